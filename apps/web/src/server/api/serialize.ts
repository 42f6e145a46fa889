// Backend records -> the API v1 shapes of ../shared/API.md. Pure functions, no I/O: the
// route handlers and the SSE event hub both use them, so a worker or a queue looks the
// same whether it comes from a REST answer or a live frame.
import { maskPayload, maskTags } from "./secrets";
import {
  decodeUtf8,
  isJsonObject,
  parseJsonBytes,
  pyFloatRepr,
  sha1Hex,
  taskIdOfBody,
  type PoolItemRecord,
  type PoolSummary as PoolSummaryRecord,
  type QueueDepths,
  type StreamSummary as StreamSummaryRecord,
  type WorkerRecord,
  type WorkerRow,
} from "@fleet/backend";
import {
  CatalogDocSchema,
  DEFAULT_PREVIEW_BYTES as SCHEMA_DEFAULT_PREVIEW_BYTES,
  type Automation,
  type CatalogDoc,
  type DeadLetter,
  type PoolItem,
  type PoolSummary,
  type Queue,
  type RawValue,
  type StreamSummary,
  type Worker,
  type WorkerCounts,
  type WorkerDetail,
  type WorkerStatus,
} from "@fleet/schema";

// One default for the API and its docs: packages/schema owns it with `preview_bytes`.
export const DEFAULT_PREVIEW_BYTES: number = SCHEMA_DEFAULT_PREVIEW_BYTES;

/**
 * A JSON document read from Redis, as the browser gets it. Python's json.dumps writes
 * non-finite floats as the tokens `NaN`, `Infinity` and `-Infinity`; the backend reads them as
 * JS numbers (so a stats frame with `"rate": NaN` is shown, not reported corrupt), but JSON
 * has no such numbers and JSON.stringify would silently turn them into null. The API sends
 * each as the string of the token Python wrote ("NaN", "Infinity", "-Infinity"), so the page
 * shows what is stored; a raw value's `text` keeps the exact bytes. Writes keep them: a config
 * merge patch leaves such a member alone and the backend writes it back as the bare token.
 * Returns the value itself (no copy) when it holds no non-finite number.
 */
export function jsonForBrowser<T>(value: T): T {
  return convertNonFinite(value) as T;
}

function convertNonFinite(v: unknown): unknown {
  // the token as json.dumps writes it (pyFloatRepr of a non-finite number)
  if (typeof v === "number") return Number.isFinite(v) ? v : pyFloatRepr(v);
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const c = convertNonFinite(v[i]);
      if (c !== v[i] && out === null) out = v.slice();
      if (out) out[i] = c;
    }
    return out ?? v;
  }
  if (Buffer.isBuffer(v)) return v;
  let out: Record<string, unknown> | null = null;
  // for...in over own keys rather than Object.entries: no array per object and per member
  // (GET /workers walks 3,000 objects a page)
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    const x = (v as Record<string, unknown>)[k];
    const c = convertNonFinite(x);
    if (c !== x && out === null) out = { ...(v as Record<string, unknown>) };
    if (out) {
      if (k === "__proto__") Object.defineProperty(out, k, { value: c, writable: true, enumerable: true, configurable: true });
      else out[k] = c;
    }
  }
  return out ?? v;
}

/**
 * The way back of jsonForBrowser, for a config written from what the API showed: where the
 * stored value holds a non-finite number (a Python `NaN`, `Infinity`, `-Infinity`) and the
 * new value, at the same place (same member names, same array index), holds the very token
 * string the API showed for it, the number is kept. The browser cannot send such a number,
 * so a whole-config write (PUT, a revert, a merge patch that replaces an array) would
 * otherwise turn a Python worker's float into a string it never wrote. Anything else is
 * written as given: a token string where the stored value is not that number stays a string.
 * Returns `next` itself when nothing is kept.
 */
export function keepNonFinite<T>(stored: unknown, next: T): T {
  return keep(stored, next) as T;
}

function keep(stored: unknown, next: unknown): unknown {
  if (typeof stored === "number") return !Number.isFinite(stored) && typeof next === "string" && next === convertNonFinite(stored) ? stored : next;
  if (typeof stored !== "object" || stored === null || typeof next !== "object" || next === null) return next;
  if (Array.isArray(next)) {
    if (!Array.isArray(stored)) return next;
    let out: unknown[] | null = null;
    for (let i = 0; i < next.length && i < stored.length; i++) {
      const c = keep(stored[i], next[i]);
      if (c !== next[i] && out === null) out = next.slice();
      if (out) out[i] = c;
    }
    return out ?? next;
  }
  if (Array.isArray(stored)) return next;
  let out: Record<string, unknown> | null = null;
  for (const k in next) {
    if (!Object.hasOwn(next, k) || !Object.hasOwn(stored, k)) continue;
    const x = (next as Record<string, unknown>)[k];
    const c = keep((stored as Record<string, unknown>)[k], x);
    if (c !== x && out === null) out = { ...(next as Record<string, unknown>) };
    if (out) {
      if (k === "__proto__") Object.defineProperty(out, k, { value: c, writable: true, enumerable: true, configurable: true });
      else out[k] = c;
    }
  }
  return out ?? next;
}

/**
 * A worker's status. `offline` when `now - last_seen` exceeds the threshold or when
 * `last_seen` is missing or unreadable; otherwise the lower-cased state.
 *
 * Choice: a worker that is heartbeating (fresh `last_seen`) but whose `state` field is
 * missing or not IDLE/RUNNING/ERROR is reported as `error`: it is alive but in a state
 * the console cannot vouch for, and `error` is the status an operator looks at. Its
 * `state` is null and `corrupt` names `state` when the stored value was unreadable.
 */
export function workerStatus(state: WorkerRecord["state"], lastSeen: number | null, now: number, offlineAfterSeconds: number): WorkerStatus {
  if (lastSeen === null || !Number.isFinite(lastSeen) || now - lastSeen > offlineAfterSeconds) return "offline";
  if (state === "RUNNING") return "running";
  if (state === "IDLE") return "idle";
  return "error";
}

export function toWorker(record: WorkerRow, now: number, offlineAfterSeconds: number): Worker {
  const worker: Worker = {
    automation_type: record.automationType,
    worker_id: record.workerId,
    state: record.state,
    status: workerStatus(record.state, record.lastSeen, now, offlineAfterSeconds),
    last_seen: record.lastSeen,
    last_error: record.lastError,
    config: jsonForBrowser(record.config),
    config_gen: record.configGen,
    hardware: jsonForBrowser(record.hardware),
    stats: jsonForBrowser(record.stats),
  };
  if (record.corrupt.length > 0) worker.corrupt = [...record.corrupt];
  return worker;
}

export function toWorkerDetail(record: WorkerRecord, now: number, offlineAfterSeconds: number): WorkerDetail {
  return { ...toWorker(record, now, offlineAfterSeconds), history_len: record.historyLen };
}

export function emptyWorkerCounts(): WorkerCounts {
  return { running: 0, idle: 0, error: 0, offline: 0 };
}

export function countWorkers(workers: Iterable<Pick<Worker, "status">>): WorkerCounts {
  const counts = emptyWorkerCounts();
  for (const w of workers) counts[w.status] += 1;
  return counts;
}

/** The hostname a worker reports in its hardware payload, if any (searched by `q`). */
export function workerHostname(worker: Pick<Worker, "hardware">): string | null {
  const h = worker.hardware?.hostname;
  return typeof h === "string" ? h : null;
}

export function toQueue(depths: QueueDepths): Queue {
  return {
    name: depths.name,
    pending: {
      high: depths.pending.high,
      normal: depths.pending.normal,
      low: depths.pending.low,
      total: depths.pending.total,
    },
    processing: depths.processing,
    overdue: depths.overdue,
    scheduled: depths.scheduled,
    due: depths.due,
    dead: depths.dead,
    ...(depths.corrupt && depths.corrupt.length > 0 ? { corrupt: [...depths.corrupt] } : {}),
  };
}

export function emptyQueue(name: string): Queue {
  return {
    name,
    pending: { high: 0, normal: 0, low: 0, total: 0 },
    processing: 0,
    overdue: 0,
    scheduled: 0,
    due: 0,
    dead: 0,
  };
}

/** True when a queue holds nothing at all (no key would exist for it; a wrong-typed key is one). */
export function isEmptyQueue(q: Queue): boolean {
  return q.corrupt === undefined && q.pending.total === 0 && q.processing === 0 && q.scheduled === 0 && q.dead === 0;
}

/**
 * Bytes that may not be JSON or UTF-8, as the API shows them. A value longer than
 * `previewBytes` is cut to a preview (never inside a UTF-8 sequence) and `json`, `text`
 * and `base64` then describe the preview; `bytes` is always the full length.
 */
export function toRawValue(buf: Buffer, previewBytes: number = DEFAULT_PREVIEW_BYTES): RawValue {
  const truncated = buf.length > previewBytes;
  const shown = truncated ? buf.subarray(0, utf8CutPoint(buf, previewBytes)) : buf;
  const parsed = parseJsonBytes(shown);
  return {
    json: parsed.ok ? jsonForBrowser(parsed.value) : null,
    text: decodeUtf8(shown),
    base64: shown.toString("base64"),
    bytes: buf.length,
    truncated,
  };
}

/** Backs `at` off a UTF-8 continuation byte (at most 3) so the preview ends on a character. */
function utf8CutPoint(buf: Buffer, at: number): number {
  let cut = at;
  for (let i = 0; i < 3 && cut > 0 && ((buf[cut] ?? 0) & 0xc0) === 0x80; i++) cut--;
  // not UTF-8 after all (a long run of continuation bytes): cut where asked
  return ((buf[cut] ?? 0) & 0xc0) === 0x80 ? at : cut;
}

export function toPoolSummary(s: PoolSummaryRecord): PoolSummary {
  return {
    name: s.name,
    size: s.size,
    live: s.live,
    expired: s.expired,
    claimed: s.claimed,
    free: s.free,
    ...(s.estimated ? { estimated: { sampled: s.estimated.sampled } } : {}),
    ...(s.corrupt ? { corrupt: [...s.corrupt] } : {}),
  };
}

/**
 * A pool item for the browser, secrets masked (./secrets.ts) unless `reveal` (the operator's
 * audited POST .../reveal): masked bytes are never serialized.
 */
export function toPoolItem(item: PoolItemRecord, previewBytes: number = DEFAULT_PREVIEW_BYTES, opts: { reveal?: boolean } = {}): PoolItem {
  const payload = item.payload === null || opts.reveal ? { bytes: item.payload, masked: [] as string[] } : maskPayload(item.payload);
  const tags = opts.reveal ? { tags: item.tags, masked: [] as string[] } : maskTags(item.tags);
  const out: PoolItem = {
    id: item.id,
    tags: jsonForBrowser(tags.tags),
    expires_at: item.expiresAt,
    in_use_until: item.inUseUntil,
    payload: payload.bytes === null ? null : toRawValue(payload.bytes, previewBytes),
    expired: item.expired,
  };
  if (item.corrupt) out.corrupt = ["payload", "tags", "expires_at"];
  const masked = [...payload.masked, ...tags.masked];
  if (masked.length > 0) out.masked = masked;
  return out;
}

export function toStreamSummary(s: StreamSummaryRecord): StreamSummary {
  return { name: s.name, length: s.length, oldest: s.oldest, newest: s.newest, ...(s.corrupt ? { corrupt: [...s.corrupt] } : {}) };
}

export function toDeadLetter(body: Buffer, index: number, previewBytes: number = DEFAULT_PREVIEW_BYTES): DeadLetter {
  return { ref: sha1Hex(body), index, body: toRawValue(body, previewBytes), task_id: taskIdOfBody(body) };
}

/** A `fleet:catalog` value: the parsed document, or null and `corrupt` when it does not parse. */
export function parseCatalogDoc(raw: Buffer | null): { doc: CatalogDoc | null; corrupt: boolean } {
  if (raw === null) return { doc: null, corrupt: false };
  const parsed = parseJsonBytes(raw);
  if (!parsed.ok || !isJsonObject(parsed.value)) return { doc: null, corrupt: true };
  // Missing schema members are read as "no schema": Fleet accepts anything there.
  const v = parsed.value;
  const result = CatalogDocSchema.safeParse({
    config: v.config ?? null,
    output: v.output ?? null,
    task_payload: v.task_payload ?? null,
  });
  return result.success ? { doc: result.data, corrupt: false } : { doc: null, corrupt: true };
}

export interface AutomationParts {
  automationType: string;
  /** The raw `fleet:catalog` value, null when the type has no catalog entry. */
  catalog: Buffer | null;
  /** Every worker of the type, already serialized (their status decides the counts). */
  workers: Iterable<Pick<Worker, "status">>;
  /** Depths of the queue named after the type; null when it has no key at all. */
  queue: QueueDepths | Queue | null;
  /** Length of the stream named after the type; null when it has no key. */
  streamLength: number | null;
}

export function toAutomation(parts: AutomationParts): Automation {
  const { doc, corrupt } = parseCatalogDoc(parts.catalog);
  let total = 0;
  const counts = emptyWorkerCounts();
  for (const w of parts.workers) {
    counts[w.status] += 1;
    total += 1;
  }
  const automation: Automation = {
    automation_type: parts.automationType,
    schemas: doc,
    workers: { total, ...counts },
    queue: parts.queue === null ? null : toQueue(parts.queue),
    stream: parts.streamLength === null ? null : { length: parts.streamLength },
  };
  if (corrupt) automation.corrupt = ["schemas"];
  return automation;
}

/** Unix seconds, as Redis holds them. */
export function nowSeconds(): number {
  return Date.now() / 1000;
}

/** `text` of a stored value for logs and messages; never throws. */
export function describeBytes(buf: Buffer): string {
  return decodeUtf8(buf) ?? `<${buf.length} bytes, not UTF-8>`;
}
