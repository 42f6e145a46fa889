// Encodings shared by both implementations, so they decode the same bytes the same way.
import { createHash } from "node:crypto";
import { pyFloat, pyFloatRepr, pyJsonBytes } from "./pyjson";
import { PY_INT_MAX_DIGITS, pyJsonScan } from "./pyjson-parse";
import type { BytesLike, JsonObject, PoolItemRecord, StatsFrame, WorkerRecord } from "./types";

export function toBuffer(v: BytesLike): Buffer {
  return typeof v === "string" ? Buffer.from(v, "utf8") : v;
}

/** Hex SHA-1 of the bytes: how dead letters are addressed. */
export function sha1Hex(v: BytesLike): string {
  return createHash("sha1").update(toBuffer(v)).digest("hex");
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict UTF-8 decode; null when the bytes are not UTF-8. */
export function decodeUtf8(buf: Buffer): string | null {
  try {
    return utf8.decode(buf);
  } catch {
    return null;
  }
}

export type JsonParse = { ok: true; value: unknown } | { ok: false };

const LONG_DIGIT_RUN = new RegExp(`[0-9]{${PY_INT_MAX_DIGITS + 1}}`);

/**
 * JSON as Python's json.loads reads it (see pyjson-parse.ts), for reading and showing stored
 * values: Python's `NaN`, `Infinity` and `-Infinity` come back as JS NaN and ±Infinity. The
 * engine's JSON.parse reads the common case; the Python-compatible scanner decides whatever it
 * refuses, and the rare text with an integer literal Python's int() would refuse. One
 * leniency: a leading UTF-8 BOM is skipped (Python refuses it); decisions that must be
 * Python's exactly (task ids, pool pruning) use pyJsonLoadsBytes.
 */
export function parseJsonBytes(buf: Buffer): JsonParse {
  const text = decodeUtf8(buf);
  if (text === null) return { ok: false };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    const scanned = pyJsonScan(text);
    return scanned.ok ? { ok: true, value: scanned.value } : { ok: false };
  }
  // a run of more digits than Python's int() takes needs that many characters: short texts (a
  // worker's config, stats and hardware, 30,000 of them per read of 10,000 workers) skip the scan
  if (text.length > PY_INT_MAX_DIGITS && LONG_DIGIT_RUN.test(text) && !pyJsonScan(text, { build: false }).ok) return { ok: false };
  return { ok: true, value };
}

const utf8KeepBom = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Exactly `json.loads(raw.decode("utf-8"))` of Python: a BOM is refused, as Python refuses it. */
export function pyJsonLoadsBytes(buf: Buffer): JsonParse {
  let text: string;
  try {
    text = utf8KeepBom.decode(buf);
  } catch {
    return { ok: false };
  }
  const scanned = pyJsonScan(text);
  return scanned.ok ? { ok: true, value: scanned.value } : { ok: false };
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Python's float(str): accepts what `str(float)` writes, rejects the rest. */
export function parseFloatStrict(text: string): number | null {
  const t = text.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/**
 * `digits[.digits]` (at most 20 bytes, not starting with a dot) as a number, or null for any
 * other bytes: a subset of what parseFloatStrict accepts, with the same value (Number() of the
 * same text), for timestamps read 10,000 at a time.
 */
function plainDecimal(raw: Buffer): number | null {
  const n = raw.length;
  if (n === 0 || n > 20) return null;
  let dot = -1;
  for (let i = 0; i < n; i++) {
    const c = raw[i]!;
    if (c === 0x2e && dot < 0 && i > 0) dot = i;
    else if (c < 0x30 || c > 0x39) return null;
  }
  return Number(raw.toString("latin1", 0, n));
}

export function parseIntStrict(text: string): number | null {
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : null;
}

/** `str(time.time())` as Python writes last_seen. */
export function encodeUnixFloat(seconds: number): string {
  return pyFloatRepr(seconds);
}

// ---- pool items: JSON {"p": base64 payload, "t": tags, "x": expires_at or null}

export function encodePoolItem(payload: BytesLike, tags: JsonObject, expiresAt: number | null): Buffer {
  return pyJsonBytes({ p: toBuffer(payload).toString("base64"), t: tags, x: expiresAt === null ? null : pyFloat(expiresAt) });
}

export function decodePoolItem(raw: Buffer): { payload: Buffer; tags: JsonObject; expiresAt: number | null } | null {
  const parsed = parseJsonBytes(raw);
  if (!parsed.ok || !isJsonObject(parsed.value)) return null;
  const { p, t, x } = parsed.value;
  if (typeof p !== "string" || !isJsonObject(t)) return null;
  // base64 as Python's b64decode reads it (characters outside the alphabet, a newline say, skipped)
  const payload = pyB64Decode(p);
  if (payload === null) return null;
  if (x !== undefined && x !== null && typeof x !== "number") return null;
  return { payload, tags: t, expiresAt: typeof x === "number" ? x : null };
}

const B64_VALUES = (() => {
  const table = new Int8Array(128).fill(-1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
})();

/**
 * Python's `base64.b64decode(s)` (binascii.a2b_base64, non-strict) of a str: characters outside
 * the alphabet are skipped, decoding stops at the padding that completes a quantum, and a
 * dangling quantum is an error. Null where Python raises (non-ASCII text included).
 */
export function pyB64Decode(s: string): Buffer | null {
  const out = Buffer.alloc(Math.floor((s.length * 3) / 4) + 3);
  let n = 0;
  let quadPos = 0;
  let left = 0;
  let pads = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 127) return null;
    if (c === 61) {
      // "=": ends the input once it completes a quantum, else ignored
      if (quadPos >= 2 && quadPos + ++pads >= 4) return out.subarray(0, n);
      continue;
    }
    const v = B64_VALUES[c]!;
    if (v < 0) continue;
    pads = 0;
    if (quadPos === 0) {
      left = v;
      quadPos = 1;
    } else if (quadPos === 1) {
      out[n++] = (left << 2) | (v >> 4);
      left = v & 0x0f;
      quadPos = 2;
    } else if (quadPos === 2) {
      out[n++] = (left << 4) | (v >> 2);
      left = v & 0x03;
      quadPos = 3;
    } else {
      out[n++] = (left << 6) | v;
      quadPos = 0;
    }
  }
  return quadPos === 0 ? out.subarray(0, n) : null;
}

/**
 * The items Python's pool_put prunes (`_prune_pool`): those `_decode_item` cannot read (not
 * UTF-8 or JSON, not an object, no "p" or "t", "p" not base64 Python accepts) and those whose
 * "x" is a number (or bool) below `now`. Everything else stays: `"t": null`, base64 with a
 * newline, `"x": NaN`... An item whose "x" is a string, list or object makes Python's
 * comparison raise a TypeError before it deletes anything, so then nothing is pruned at all.
 */
export function poolPruneVictims(items: Iterable<[string, Buffer]>, now: number): string[] {
  const victims: string[] = [];
  for (const [id, raw] of items) {
    const parsed = pyJsonLoadsBytes(raw);
    const d = parsed.ok && isJsonObject(parsed.value) ? parsed.value : null;
    if (!d || !Object.hasOwn(d, "p") || !Object.hasOwn(d, "t") || typeof d.p !== "string" || pyB64Decode(d.p) === null) {
      victims.push(id);
      continue;
    }
    const x = d.x;
    if (x === undefined || x === null) continue;
    if (typeof x === "number" || typeof x === "boolean") {
      if (Number(x) < now) victims.push(id);
      continue;
    }
    return [];
  }
  return victims;
}

export function poolItemRecord(id: string, raw: Buffer, claimPttlMs: number, now: number): PoolItemRecord {
  const d = decodePoolItem(raw);
  const inUseUntil = claimPttlMs > 0 ? now + claimPttlMs / 1000 : null;
  if (!d) return { id, raw, payload: null, tags: null, expiresAt: null, expired: false, inUseUntil, corrupt: true };
  return {
    id,
    raw,
    payload: d.payload,
    tags: d.tags,
    expiresAt: d.expiresAt,
    expired: d.expiresAt !== null && d.expiresAt < now,
    inUseUntil,
    corrupt: false,
  };
}

export interface PoolCounts {
  live: number;
  expired: number;
  claimed: number;
  free: number;
}

/** Counts of a pool's items: claimed counts every claim (on an expired item too), free only live unclaimed items. */
export function poolCounts(items: readonly PoolItemRecord[]): PoolCounts {
  const c = { live: 0, expired: 0, claimed: 0, free: 0 };
  for (const i of items) {
    if (i.inUseUntil !== null) c.claimed++;
    if (i.corrupt) continue;
    if (i.expired) c.expired++;
    else {
      c.live++;
      if (i.inUseUntil === null) c.free++;
    }
  }
  return c;
}

/** A sample's counts scaled to the pool's size (rounded; a count the sample saw at 0 stays 0). */
export function scalePoolCounts(c: PoolCounts, sampled: number, size: number): PoolCounts {
  const f = sampled > 0 ? size / sampled : 0;
  return { live: Math.round(c.live * f), expired: Math.round(c.expired * f), claimed: Math.round(c.claimed * f), free: Math.round(c.free * f) };
}

/** Python's pool_claim_any `where`: every key equal (deep, JSON-wise) to the item's tag. */
export function tagsMatch(tags: JsonObject, where: JsonObject): boolean {
  // tags.get(k) is None for a missing tag, so `where {k: null}` matches it, as in Python
  return Object.entries(where).every(([k, v]) => jsonEqual(Object.hasOwn(tags, k) ? tags[k] : null, v));
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  return deepEqual(a, b, false);
}

/**
 * Equal as stored documents: what jsonEqual says, but Python's `NaN` token equals itself (two
 * configs that both hold it would be written as the same bytes). Not for tagsMatch: Python's
 * `==` on two parsed NaNs is False.
 */
export function sameDocument(a: unknown, b: unknown): boolean {
  return deepEqual(a, b, true);
}

function deepEqual(a: unknown, b: unknown, nanEqual: boolean): boolean {
  if (a === b) return true;
  if (nanEqual && typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i], nanEqual));
  }
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => k in bo && deepEqual(ao[k], bo[k], nanEqual));
}

// ---- workers

/** Raw values of one worker's keys, as read from storage (null = key absent). */
export interface WorkerRawValues {
  registered: boolean;
  hardware: Buffer | null;
  config: Buffer | null;
  gen: Buffer | null;
  /** HGETALL of the state hash; empty object = key absent. */
  state: Record<string, Buffer>;
  stats: Buffer | null;
  historyLen: number;
}

/**
 * A worker's `config` as Python's worker_get_config reads it: absent or empty is `{}`; null
 * when the stored value is not a JSON object.
 */
export function configFromRaw(raw: Buffer | null): JsonObject | null {
  if (raw === null || raw.length === 0) return {};
  const parsed = parseJsonBytes(raw);
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : null;
}

/** A worker's `gen` as Python reads it: absent or empty is 0; null when it is not an integer. */
export function genFromRaw(raw: Buffer | null): number | null {
  if (raw === null || raw.length === 0) return 0;
  const text = decodeUtf8(raw);
  return text === null ? null : parseIntStrict(text);
}

/** A JSON-object field of a worker (hardware, config, stats) as workerRecordFromRaw reads it: null when absent, {} when empty; `field` pushed onto `corrupt` when unreadable. */
export function parseObjectField(buf: Buffer | null, field: string, corrupt: string[]): JsonObject | null {
  if (buf === null) return null;
  // Python's worker_get reads an empty value as {} (`json.loads(raw) if raw else {}`)
  if (buf.length === 0) return {};
  const parsed = parseJsonBytes(buf);
  if (parsed.ok && isJsonObject(parsed.value)) return parsed.value;
  corrupt.push(field);
  return null;
}

const STATE_BYTES = { IDLE: Buffer.from("IDLE"), RUNNING: Buffer.from("RUNNING"), ERROR: Buffer.from("ERROR") } as const;

function sameBytes(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The `state` field as workerRecordFromRaw reads it (IDLE, RUNNING or ERROR, else null), without decoding it to a string first. */
export function workerStateFromRaw(raw: Buffer): WorkerRecord["state"] {
  return sameBytes(raw, STATE_BYTES.RUNNING) ? "RUNNING" : sameBytes(raw, STATE_BYTES.IDLE) ? "IDLE" : sameBytes(raw, STATE_BYTES.ERROR) ? "ERROR" : null;
}

/** The `last_seen` field as workerRecordFromRaw reads it (Python's float of UTF-8 text), null when unreadable. */
export function lastSeenFromRaw(raw: Buffer): number | null {
  // What Python's time.time() writes (digits, one dot, digits) is read straight from the
  // bytes; anything else goes through the decoder and parseFloatStrict, which accept it too.
  const plain = plainDecimal(raw);
  if (plain !== null) return plain;
  const text = decodeUtf8(raw);
  return text === null ? null : parseFloatStrict(text);
}

export function workerRecordFromRaw(automationType: string, workerId: string, raw: WorkerRawValues): WorkerRecord {
  const corrupt: string[] = [];
  const hardware = parseObjectField(raw.hardware, "hardware", corrupt);
  const config = parseObjectField(raw.config, "config", corrupt);
  const stats = parseObjectField(raw.stats, "stats", corrupt);
  let configGen: number | null = null;
  if (raw.gen !== null) {
    configGen = genFromRaw(raw.gen);
    if (configGen === null) corrupt.push("config_gen");
  }
  const hasState = Object.keys(raw.state).length > 0;
  let state: WorkerRecord["state"] = null;
  let lastSeen: number | null = null;
  let lastError: string | null = null;
  if (hasState) {
    state = raw.state.state ? workerStateFromRaw(raw.state.state) : null;
    if (state === null) corrupt.push("state");
    lastSeen = raw.state.last_seen ? lastSeenFromRaw(raw.state.last_seen) : null;
    if (lastSeen === null) corrupt.push("last_seen");
    if (raw.state.last_error === undefined) corrupt.push("last_error");
    else {
      const le = decodeUtf8(raw.state.last_error);
      if (le === null) corrupt.push("last_error");
      else lastError = le === "" ? null : le;
    }
  }
  return {
    automationType,
    workerId,
    registered: raw.registered,
    hardware,
    config,
    configGen,
    state,
    lastSeen,
    lastError,
    stats,
    historyLen: raw.historyLen,
    corrupt,
  };
}

export function statsFrameFromRaw(raw: Buffer, ts: number): StatsFrame {
  const parsed = parseJsonBytes(raw);
  return { ts, frame: parsed.ok && isJsonObject(parsed.value) ? parsed.value : null, raw };
}

/** Escapes SCAN/glob metacharacters so a name is matched literally. */
export function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
