// Task bodies (`{"id": ..., "payload": ...}`, plus `attempts` and `last_error` once a run
// failed), read and edited the way a mixed fleet needs: one task-id rule shared by the reserve
// script (src/lua/reserve-6.lua, which implements the same rule in Lua), the memory backend and
// the worker runtime; and edits that change only the members they name, byte for byte.
//
// The task-id rule. Python's reserve registers `str(json.loads(body.decode("utf-8")).get("id", ""))`.
// We register exactly that string wherever Python registers a usable id:
//   string            -> itself                      ("" is no id)
//   integer literal   -> its digits, exactly          (12345678901234567890 stays so; -0 is "0")
//   float literal     -> Python's repr of the float   (1.0 -> "1.0", 1e-07 -> "1e-07", 1E400 -> "inf")
//   NaN / ±Infinity   -> "nan", "inf", "-inf"
//   true / false      -> "True", "False"
//   null              -> "None"
// and there is no usable id (the body is delivered once, unregistered, as the schema document
// promises) when: the id is missing or ""; the body is not UTF-8, not JSON as Python reads it
// (see pyjson-parse.ts), or not an object; the id is an object or an array (Python would
// register its repr, which depends on Python's own printing rules; no Fleet producer writes
// one); the id string holds a lone surrogate (`"\ud800"`: Python's Redis client cannot encode
// it and its reserve fails, losing the body). Where Python falls back to a random uuid (bytes
// it cannot parse), nothing is registered: such a reservation could never be acknowledged.

import { pyJsonScan, type PyJsonMember } from "./pyjson-parse";
import { pyFloatRepr, pyJsonString } from "./pyjson";
import type { JsonObject } from "./types";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decodeStrict(buf: Buffer): string | null {
  try {
    return utf8.decode(buf);
  } catch {
    return null;
  }
}

/** Python's `str(float)`: repr, with `nan`, `inf` and `-inf` for the non-finite values. */
export function pyFloatStr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  return pyFloatRepr(x);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `str(value)` of the JSON token `raw` as Python would print it, or null when it is not a usable id. */
export function pyStrOfIdToken(raw: string): string | null {
  const c = raw[0];
  if (c === '"') {
    const scanned = pyJsonScan(raw);
    const s = scanned.ok ? (scanned.value as string) : "";
    return s === "" || LONE_SURROGATE.test(s) ? null : s;
  }
  if (c === "{" || c === "[") return null;
  switch (raw) {
    case "true":
      return "True";
    case "false":
      return "False";
    case "null":
      return "None";
    case "NaN":
      return "nan";
    case "Infinity":
      return "inf";
    case "-Infinity":
      return "-inf";
  }
  if (/[.eE]/.test(raw)) return pyFloatStr(Number(raw));
  return raw === "-0" ? "0" : raw;
}

/** A body read as a task envelope: its text, its top-level members, and the document. */
export interface TaskEnvelope {
  /** The id a reserve registers (see the rule above). */
  id: string;
  /** The parsed document (NaN and ±Infinity as JS numbers, integers beyond 2^53 rounded). */
  doc: JsonObject;
}

interface ScannedObject {
  text: string;
  members: PyJsonMember[];
  close: number;
  value: unknown;
}

function scanObject(body: Buffer, build: boolean): ScannedObject | null {
  const text = decodeStrict(body);
  if (text === null) return null;
  const scanned = pyJsonScan(text, { build });
  if (!scanned.ok || scanned.members === null) return null;
  return { text, members: scanned.members, close: scanned.close, value: scanned.value };
}

/** The member Python's dict keeps for `key`: the last one written. */
function lastMember(members: PyJsonMember[], key: string): PyJsonMember | undefined {
  for (let i = members.length - 1; i >= 0; i--) if (members[i]!.key === key) return members[i];
  return undefined;
}

function idOf(s: ScannedObject): string | null {
  const m = lastMember(s.members, "id");
  return m ? pyStrOfIdToken(s.text.slice(m.valueStart, m.valueEnd)) : null;
}

/** The task id a reserve registers for this body; null when it has no usable id (delivered unregistered). */
export function taskIdOfBody(body: Buffer): string | null {
  const s = scanObject(body, false);
  return s ? idOf(s) : null;
}

/** The body as a task: null exactly when it has no usable id, i.e. when a reserve leaves it unregistered. */
export function parseTaskEnvelope(body: Buffer): TaskEnvelope | null {
  const s = scanObject(body, true);
  if (!s) return null;
  const id = idOf(s);
  return id === null ? null : { id, doc: s.value as JsonObject };
}

/**
 * The body with top-level members set to the given JSON texts (already encoded as Python
 * would, e.g. `pyJsonDumps(x)`), every other byte untouched: an existing member keeps its
 * place and key bytes and only its value is replaced (the last one, which is the one Python
 * reads, when a key is repeated); a new member is appended after the last one with Python's
 * `", "` and `": "` separators. Null when the body is not a JSON object as Python reads it.
 */
export function setTopLevelMembers(body: Buffer, values: ReadonlyArray<readonly [key: string, jsonText: string]>): Buffer | null {
  const s = scanObject(body, false);
  if (!s) return null;
  const edits: Array<{ at: number; end: number; text: string }> = [];
  let appended = "";
  let count = s.members.length;
  for (const [key, jsonText] of values) {
    const m = lastMember(s.members, key);
    if (m) edits.push({ at: m.valueStart, end: m.valueEnd, text: jsonText });
    else {
      appended += `${count > 0 ? ", " : ""}${pyJsonString(key)}: ${jsonText}`;
      count++;
    }
  }
  if (appended) {
    const last = s.members[s.members.length - 1];
    // after the last value, before any whitespace that precedes the closing brace
    const at = last ? last.valueEnd : s.close;
    edits.push({ at, end: at, text: appended });
  }
  if (edits.length === 0) return Buffer.from(body);
  edits.sort((a, b) => a.at - b.at);
  let out = "";
  let from = 0;
  for (const e of edits) {
    out += s.text.slice(from, e.at) + e.text;
    from = e.end;
  }
  out += s.text.slice(from);
  return Buffer.from(out, "utf8");
}

/**
 * A failed run's body: `attempts` and `last_error` set, nothing else changed. Null when the
 * body is not a JSON object (a body without a usable id never reaches a retry).
 */
export function withTaskFailure(body: Buffer, attempts: number, lastError: string): Buffer | null {
  if (!Number.isSafeInteger(attempts) || attempts < 0) throw new RangeError(`attempts must be a non-negative integer, got ${attempts}`);
  return setTopLevelMembers(body, [
    ["attempts", String(attempts)],
    ["last_error", pyJsonString(lastError)],
  ]);
}

/**
 * A dead letter about to be requeued, given its attempts back: an `attempts` member becomes
 * `0`; `last_error` stays, so the last failure remains visible until the next run replaces
 * it; every other byte is kept. A body without `attempts` (never failed, or not a JSON object,
 * or not UTF-8) comes back unchanged, so its dead-letter ref (the SHA-1 of its bytes) stays
 * the same too. `keepAttempts: true` returns the body unchanged.
 */
export function withAttemptsReset(body: Buffer, opts: { keepAttempts?: boolean } = {}): Buffer {
  if (opts.keepAttempts) return Buffer.from(body);
  const s = scanObject(body, false);
  if (!s || !lastMember(s.members, "attempts")) return Buffer.from(body);
  return setTopLevelMembers(body, [["attempts", "0"]]) ?? Buffer.from(body);
}
