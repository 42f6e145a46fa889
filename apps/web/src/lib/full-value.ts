// "Show all" and "Download" of a truncated RawValue: how each page fetches the whole value
// through the API's `preview_bytes` (apps/web/README.md), and how it makes sure that what
// came back is the value the preview was cut from, not whatever sits at that place now.
import { DeadLettersSchema, KvValueSchema, MAX_PREVIEW_BYTES, PoolItemSchema, QueueDetailSchema, StreamDetailSchema, type Priority, type RawValue } from "@fleet/schema";

import { ApiError, apiGet, qs, seg } from "./api";
import { base64ToBytes } from "./raw-value";

/** The most "Show all" fetches and renders: beyond it a tab spends seconds laying out text. */
export const SHOW_ALL_CAP = 8 * 1024 * 1024;
/** The most "Download" fetches: all the API answers (it renders nothing, so it can take more). */
export const DOWNLOAD_CAP = MAX_PREVIEW_BYTES;
/** Above this a value is shown as plain text only: a JSON tree of it would freeze the page. */
export const TREE_MAX_BYTES = 200 * 1024;
/**
 * Rows past a list row's position also fetched when the list is read again: items pushed
 * ahead of it (a high-priority task, a newer stream entry) move it down.
 */
export const LIST_SLACK = 16;

/** Fetches the value again with up to `maxBytes` bytes of it. */
export type LoadFull = (maxBytes: number) => Promise<RawValue>;

/** The value is no longer where the page saw it; the message says so in plain words. */
export class ValueGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ValueGoneError";
  }
}

/** `preview_bytes` for a value of `bytes` bytes when at most `maxBytes` are wanted. */
export function previewBytesFor(bytes: number, maxBytes: number): number {
  return Math.max(1, Math.min(bytes, maxBytes, MAX_PREVIEW_BYTES));
}

/** How many bytes a base64 text holds. */
export function base64ByteLength(b64: string): number {
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor(b64.length / 4) * 3 - pad);
}

/** How many bytes of the value a RawValue carries (its preview, or all of it). */
export function shownBytes(v: RawValue): number {
  return base64ByteLength(v.base64);
}

/**
 * True when the bytes of `shortB64` are a prefix of those of `longB64`. Whole 3-byte groups
 * compare as base64 text (no decoding of megabytes); only the last, padded group is decoded.
 */
export function base64IsPrefix(shortB64: string, longB64: string): boolean {
  const n = base64ByteLength(shortB64);
  if (n > base64ByteLength(longB64)) return false;
  const whole = Math.floor(n / 3) * 4;
  if (longB64.length < whole) return false;
  for (let i = 0; i < whole; i++) if (shortB64.charCodeAt(i) !== longB64.charCodeAt(i)) return false;
  const rest = n - (whole / 4) * 3;
  if (rest === 0) return true;
  const a = base64ToBytes(shortB64.slice(whole, whole + 4));
  const b = base64ToBytes(longB64.slice(whole, whole + 4));
  for (let i = 0; i < rest; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * True when two RawValues can be cut from the same stored value: the same full length,
 * and the shorter one's bytes begin the longer one's.
 */
export function sameValue(a: RawValue, b: RawValue): boolean {
  if (a.bytes !== b.bytes) return false;
  return shownBytes(a) <= shownBytes(b) ? base64IsPrefix(a.base64, b.base64) : base64IsPrefix(b.base64, a.base64);
}

/**
 * The candidate holding the value `preview` was cut from, searched outward from index
 * `near` (where the row was); `also` narrows further (same task id, same score). Null
 * when none is left.
 */
export function findSameValue<T>(
  candidates: readonly T[],
  valueFor: (c: T) => RawValue | null | undefined,
  preview: RawValue,
  near = 0,
  also: (c: T) => boolean = () => true,
): T | null {
  const fits = (c: T | undefined): c is T => {
    if (c === undefined) return false;
    const v = valueFor(c);
    return v !== null && v !== undefined && also(c) && sameValue(v, preview);
  };
  const start = Math.min(Math.max(0, near), Math.max(0, candidates.length - 1));
  for (let d = 0; d < candidates.length; d++) {
    // lists drain from the head, so at equal distance the earlier place is likelier
    if (d > 0) {
      const before = candidates[start - d];
      if (fits(before)) return before;
    }
    const after = candidates[start + d];
    if (fits(after)) return after;
    if (start + d >= candidates.length && start - d < 0) break;
  }
  return null;
}

/** `limit` that covers a list row at `position` and the rows that may have moved ahead of it. */
export function listLimitFor(position: number): number {
  return Math.min(1000, Math.max(1, position + 1 + LIST_SLACK));
}

function changedSince(what: string): ValueGoneError {
  return new ValueGoneError(`${what} changed since the page loaded it: reload to see the new value.`);
}

async function notFoundAs<T>(p: Promise<T>, message: string): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw new ValueGoneError(message);
    throw err;
  }
}

// ---------- one loader per kind of row

export function kvValueLoader(ns: string, key: string, preview: RawValue): LoadFull {
  return async (maxBytes) => {
    const r = await notFoundAs(
      apiGet(`/kv/${seg(ns)}/${seg(key)}${qs({ preview_bytes: previewBytesFor(preview.bytes, maxBytes) })}`, KvValueSchema),
      `The key “${key}” is gone (deleted or expired): reload.`,
    );
    if (!sameValue(r.value, preview)) throw changedSince(`The value of “${key}”`);
    return r.value;
  };
}

export function poolPayloadLoader(pool: string, id: string, preview: RawValue): LoadFull {
  return async (maxBytes) => {
    const item = await notFoundAs(
      apiGet(`/pools/${seg(pool)}/items/${seg(id)}${qs({ preview_bytes: previewBytesFor(preview.bytes, maxBytes) })}`, PoolItemSchema),
      `Item “${id}” is no longer in the pool: reload.`,
    );
    if (item.payload === null || !sameValue(item.payload, preview)) throw changedSince(`The payload of item “${id}”`);
    return item.payload;
  };
}

/** A dead letter is read at its index; its ref (the SHA-1 of its bytes) proves it is the same one. */
export function deadLetterLoader(queue: string, index: number, ref: string, preview: RawValue): LoadFull {
  return async (maxBytes) => {
    const page = await notFoundAs(
      apiGet(`/queues/${seg(queue)}/dead${qs({ offset: index, limit: 1, preview_bytes: previewBytesFor(preview.bytes, maxBytes) })}`, DeadLettersSchema),
      "This dead letter has moved: the queue is gone. Reload.",
    );
    const item = page.items[0];
    if (!item || item.ref !== ref) throw new ValueGoneError("This dead letter has moved (requeued, deleted, or others were): reload.");
    return item.body;
  };
}

export type QueueRow = { section: "pending"; priority: Priority } | { section: "processing"; id: string } | { section: "scheduled"; readyAt: number };

/** Queue items have no single-item read: the list is read again, far enough down, in full. */
export function queueItemLoader(queue: string, position: number, row: QueueRow, preview: RawValue): LoadFull {
  return async (maxBytes) => {
    const d = await notFoundAs(
      apiGet(`/queues/${seg(queue)}${qs({ limit: listLimitFor(position), preview_bytes: previewBytesFor(preview.bytes, maxBytes) })}`, QueueDetailSchema),
      `The queue “${queue}” is gone: reload.`,
    );
    const found =
      row.section === "pending"
        ? findSameValue(
            d.pending_items,
            (i) => i.body,
            preview,
            position,
            (i) => i.priority === row.priority,
          )?.body
        : row.section === "processing"
          ? findSameValue(
              d.processing_items,
              (i) => i.body,
              preview,
              position,
              (i) => i.id === row.id,
            )?.body
          : findSameValue(
              d.scheduled_items,
              (i) => i.body,
              preview,
              position,
              (i) => i.ready_at === row.readyAt,
            )?.body;
    if (!found) throw new ValueGoneError("This task is gone from where it was (taken by a worker, retried or removed): reload.");
    return found;
  };
}

export function streamEntryLoader(stream: string, order: "newest" | "oldest", position: number, score: number, preview: RawValue): LoadFull {
  return async (maxBytes) => {
    const d = await notFoundAs(
      apiGet(`/streams/${seg(stream)}${qs({ limit: listLimitFor(position), order, preview_bytes: previewBytesFor(preview.bytes, maxBytes) })}`, StreamDetailSchema),
      "This entry is gone: the stream is empty now. Reload.",
    );
    const found = findSameValue(
      d.entries,
      (e) => e.envelope,
      preview,
      position,
      (e) => e.score === score,
    );
    if (!found) throw new ValueGoneError("This entry is gone from the stream (popped or trimmed): reload.");
    return found.envelope;
  };
}

// ---------- download

/** The bytes of a base64 text as a Blob, decoded in slices (no second copy of megabytes as one string). */
export function base64ToBlob(b64: string, type = "application/octet-stream"): Blob {
  const SLICE = 4 * 256 * 1024; // a multiple of 4: slices decode on their own
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for (let i = 0; i < b64.length; i += SLICE) parts.push(base64ToBytes(b64.slice(i, i + SLICE)) as Uint8Array<ArrayBuffer>);
  return new Blob(parts, { type });
}

/** A safe file name: `<base>[-first-<n>-bytes].<json|txt|bin>`. */
export function downloadName(base: string, kind: "json" | "text" | "binary", partialBytes?: number): string {
  const safe =
    base
      .normalize("NFKD")
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/-+/g, "-")
      .replace(/^[-.]+|[-.]+$/g, "")
      .slice(0, 80) || "value";
  const ext = kind === "json" ? "json" : kind === "text" ? "txt" : "bin";
  return `${safe}${partialBytes !== undefined ? `-first-${partialBytes}-bytes` : ""}.${ext}`;
}

/** Hands a Blob to the browser as a download. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  // the download has started by the next tick; Chrome needs the URL until then
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

// ---------- reading a cut preview

/**
 * A scalar member of the top-level object in the text of a cut JSON preview (`last_error`
 * of a 100 KB dead letter), as its JSON value; undefined when the member is absent, not a
 * scalar, or lies past the cut. Members of nested objects never match.
 */
export function cutJsonField(text: string, field: string): string | number | boolean | null | undefined {
  let i = text.search(/\S/);
  if (i < 0 || text[i] !== "{") return undefined;
  let depth = 0;
  let expectKey = false;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (depth === 1 && expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        const m = /^\s*:\s*/.exec(text.slice(end + 1, end + 64));
        if (!m) return undefined;
        const at = end + 1 + m[0].length;
        if (key === field) return scalarAt(text, at);
        expectKey = false;
        i = at - 1;
        continue;
      }
      i = end;
    } else if (c === "{" || c === "[") {
      depth++;
      expectKey = depth === 1 && c === "{";
    } else if (c === "}" || c === "]") {
      depth--;
    } else if (c === "," && depth === 1) {
      expectKey = true;
    }
  }
  return undefined;
}

function stringEnd(text: string, start: number): number {
  for (let j = start + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') return j;
  }
  return -1;
}

function scalarAt(text: string, at: number): string | number | boolean | null | undefined {
  if (text[at] === '"') {
    const end = stringEnd(text, at);
    return end < 0 ? undefined : (JSON.parse(text.slice(at, end + 1)) as string);
  }
  const m = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)(?=\s*[,}])/.exec(text.slice(at, at + 64));
  return m ? (JSON.parse(m[1]!) as number | boolean | null) : undefined;
}
