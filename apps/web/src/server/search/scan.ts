// Search inside one queue (issue 14.1): reads the queue's parts chunk by chunk through
// Backend.queueScan (each chunk one short Redis command; the next one already asked for
// while this one is matched here), each after the last entries examined, found again by
// content wherever the list moved them (./list-cursor.ts), matches in Node, and yields NDJSON lines as it goes:
// matches as they are found, progress, and a last summary. The caller pulls: nothing is
// read ahead of a consumer that stops (a client that went away ends the scan at the next pull).
import { sha1Hex, taskIdOfBody, type Backend, type QueueDepths, type QueueScanChunk, type QueueScanPart } from "@fleet/backend";
import { advance, newCursor, nextChunk } from "./list-cursor";
import { compileFilter, SEARCH_BODY_PREVIEW, type FilterNode, type SearchDoneLine, type SearchLine, type SearchList, type SearchMatchLine } from "@fleet/schema";

/** Entries per queueScan call: an LRANGE of 500 (with the cursor's look-back, up to 517; a sorted set's up to 1,000) stays near a millisecond of Redis; reads of 1,000 (+500 look-back for a set) reached 10-12 ms in `pnpm bench:search`. */
export const SEARCH_CHUNK = 500;
/** At most one progress line per this many milliseconds (and one after each part). */
export const PROGRESS_EVERY_MS = 200;

export interface SearchOptions {
  /** Case-insensitive substring of the body's text. */
  q?: string;
  where?: FilterNode | null;
  lists: readonly SearchList[];
  /** Matches sent as lines; the rest are counted only. */
  limit: number;
  chunk?: number;
  /** The depths read first (the route reads them anyway, to answer 404). */
  depths?: QueueDepths;
}

/** The queue's parts to read, in order, for the lists asked for. */
export function partsOf(lists: readonly SearchList[]): Array<{ list: SearchList; part: QueueScanPart }> {
  const out: Array<{ list: SearchList; part: QueueScanPart }> = [];
  for (const list of ["pending", "processing", "scheduled", "dead"] as const) {
    if (!lists.includes(list)) continue;
    if (list === "pending") for (const p of ["high", "normal", "low"] as const) out.push({ list, part: p });
    else out.push({ list, part: list });
  }
  return out;
}

function sizeOf(d: QueueDepths, part: QueueScanPart): number {
  if (part === "high" || part === "normal" || part === "low") return d.pending[part];
  return d[part];
}

/** A body as a predicate input: the parsed JSON, or undefined when it is not JSON. */
function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const memberOf = (doc: unknown, key: string): unknown =>
  doc !== null && typeof doc === "object" && !Array.isArray(doc) && Object.hasOwn(doc, key) ? (doc as Record<string, unknown>)[key] : undefined;

/** Tests one body; null when it does not match. Exported for the bulk actions, which match alike. */
export function makeMatcher(q: string | undefined, where: FilterNode | null | undefined): (body: Buffer) => { text: string; doc: unknown } | null {
  const needle = q ? q.toLowerCase() : "";
  const predicate = where ? compileFilter(where) : null;
  return (body) => {
    const text = body.toString("utf8");
    if (needle && !text.toLowerCase().includes(needle)) return null;
    if (!predicate) return { text, doc: undefined };
    const doc = parseBody(text);
    return predicate(doc) ? { text, doc } : null;
  };
}

export function matchLine(list: SearchList, part: QueueScanPart, entry: QueueScanChunk["entries"][number], text: string, doc: unknown, ref = sha1Hex(entry.body)): SearchMatchLine {
  const d = doc === undefined ? parseBody(text) : doc;
  const attempts = memberOf(d, "attempts");
  const lastError = memberOf(d, "last_error");
  const cut = text.length > SEARCH_BODY_PREVIEW;
  return {
    type: "match",
    list,
    priority: list === "pending" ? (part as "high" | "normal" | "low") : null,
    index: entry.index,
    ref,
    task_id: entry.id ?? taskIdOfBody(entry.body),
    attempts: typeof attempts === "number" && Number.isFinite(attempts) ? attempts : null,
    last_error: typeof lastError === "string" ? (lastError.length > SEARCH_BODY_PREVIEW ? `${lastError.slice(0, SEARCH_BODY_PREVIEW)}…` : lastError) : null,
    at: entry.score ?? null,
    body: { text: cut ? text.slice(0, SEARCH_BODY_PREVIEW) : text, bytes: entry.body.length, truncated: cut },
  };
}

/** Matches' refs kept per list to recognise them when the list is read again (beyond: `repeats` counts what may repeat). */
export const SEEN_KEPT = 100_000;
/** A list read again from its head this many times (every anchor gone each time) is given up (`incomplete`). */
export const MAX_REREADS = 5;

export async function* searchQueue(backend: Backend, name: string, opts: SearchOptions): AsyncGenerator<SearchLine, void, undefined> {
  const t0 = performance.now();
  const chunk = opts.chunk ?? SEARCH_CHUNK;
  const parts = partsOf(opts.lists);
  const depths = opts.depths ?? (await backend.queueDepths([name]))[0]!;
  const total = parts.reduce((n, p) => n + sizeOf(depths, p.part), 0);
  const matches = makeMatcher(opts.q, opts.where);
  const corrupt = new Set<string>();
  const reread = new Set<string>();
  const incomplete = new Set<string>();
  let scanned = 0;
  let matched = 0;
  let returned = 0;
  let repeats = 0;
  let lastProgress = performance.now();
  for (const { list, part } of parts) {
    const label = part === "normal" ? "normal" : part;
    const read = (start: number, count: number) => backend.queueScan(name, part, start, count);
    // the part's place by content (./list-cursor.ts): the next read goes on after the last entry
    // examined, wherever the list moved it; a part read again from its head knows its matches by ref
    const cursor = newCursor();
    const seen = new Set<string>();
    let seenFull = false;
    const ask = () => {
      const p = nextChunk(read, part, cursor, chunk);
      // a scan abandoned by its consumer leaves this read unawaited: never an unhandled rejection
      p.catch(() => undefined);
      return p;
    };
    let next: Promise<Awaited<ReturnType<typeof nextChunk>>> | null = ask();
    while (next !== null) {
      const c = await next;
      next = null;
      if (c.corrupt) {
        corrupt.add(label);
        break;
      }
      if (c.lost) reread.add(label);
      if (cursor.lost > MAX_REREADS) {
        incomplete.add(label);
        break;
      }
      if (c.entries.length === 0) break;
      // every entry of the chunk is examined: the next read can start now, while this one is matched
      advance(part, cursor, c.entries);
      next = ask();
      for (const entry of c.entries) {
        const m = matches(entry.body);
        if (!m) continue;
        const ref = sha1Hex(entry.body);
        if (cursor.lost > 0) {
          // read again: a match already counted is not counted twice
          if (seen.has(ref)) continue;
          if (seenFull) repeats++;
        }
        if (seen.size < SEEN_KEPT) seen.add(ref);
        else seenFull = true;
        matched++;
        if (returned < opts.limit) {
          returned++;
          yield matchLine(list, part, entry, m.text, m.doc, ref);
        }
      }
      scanned += c.entries.length;
      const now = performance.now();
      if (now - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = now;
        yield { type: "progress", list, scanned, total: Math.max(total, scanned), matched };
      }
    }
    lastProgress = performance.now();
    yield { type: "progress", list, scanned, total: Math.max(total, scanned), matched };
  }
  const done: SearchDoneLine = {
    type: "done",
    scanned,
    total: Math.max(total, scanned),
    matched,
    returned,
    elapsed_ms: Math.round(performance.now() - t0),
    corrupt: [...corrupt],
    reread: [...reread],
    incomplete: [...incomplete],
    repeats,
  };
  yield done;
}
