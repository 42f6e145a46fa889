// JSON as Python's `json.loads(bytes.decode("utf-8"))` reads it, for the values Fleet's Python
// side writes and the TypeScript side must read and keep: the `NaN`, `Infinity` and `-Infinity`
// tokens that `json.dumps` writes for non-finite floats are accepted (as JS NaN / ±Infinity),
// an integer literal of more than 4300 digits is refused (Python's int() limit), a UTF-8 BOM
// is refused, only ` `, `\t`, `\n` and `\r` are whitespace, and strings may not hold raw
// control characters (Python's default `strict=True`). Nesting depth is not limited (Python
// stops near 1000 levels with a RecursionError that depends on its own stack).
//
// Besides the value, a scan reports where each top-level member of an object sits in the
// text, so that a body can be edited losslessly: a splice replaces the bytes of one value and
// leaves every other byte as it was (integers beyond 2^53, `1.0`, key order, escapes).
//
// The scanner is iterative, so hostile nesting cannot overflow the stack.

/** Python's int() refuses longer digit strings (sys.int_info.default_max_str_digits). */
export const PY_INT_MAX_DIGITS = 4300;

/** One member of the top-level object: offsets into the scanned text, ends exclusive. */
export interface PyJsonMember {
  /** The key as Python reads it (escapes decoded). */
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

export type PyJsonScan =
  | {
      ok: true;
      /** The parsed value; undefined when the scan was asked not to build it. */
      value: unknown;
      /** Members of the top-level object in text order (duplicates included); null when the document is not an object. */
      members: PyJsonMember[] | null;
      /** Offsets of the top-level `{` and `}` when the document is an object. */
      open: number;
      close: number;
    }
  | { ok: false; at: number; reason: string };

const WS = /[ \t\n\r]*/y;
const PLAIN = /[^"\\\u0000-\u001f]*/y;
const DIGITS = /[0-9]*/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

class ScanError extends Error {
  constructor(
    readonly at: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

function skipWs(text: string, pos: number): number {
  WS.lastIndex = pos;
  WS.test(text);
  return WS.lastIndex;
}

/** Scans a string token opening at `pos`; returns the index after its closing quote and, when asked, its value. */
function scanString(text: string, pos: number, decode: boolean): { end: number; value: string } {
  let p = pos + 1;
  let out = "";
  for (;;) {
    PLAIN.lastIndex = p;
    PLAIN.test(text);
    const runEnd = PLAIN.lastIndex;
    if (decode) out += text.slice(p, runEnd);
    p = runEnd;
    if (p >= text.length) throw new ScanError(pos, "unterminated string");
    const ch = text[p]!;
    if (ch === '"') return { end: p + 1, value: out };
    if (ch !== "\\") throw new ScanError(p, "invalid control character in a string");
    const e = text[p + 1];
    if (e === "u") {
      const hex = text.slice(p + 2, p + 6);
      if (!HEX4.test(hex)) throw new ScanError(p, "invalid \\u escape");
      if (decode) out += String.fromCharCode(parseInt(hex, 16));
      p += 6;
    } else if (e !== undefined && e in SIMPLE_ESCAPES) {
      if (decode) out += SIMPLE_ESCAPES[e];
      p += 2;
    } else {
      throw new ScanError(p, "invalid escape");
    }
  }
}

/** Scans a number token at `pos` (Python's NUMBER_RE); returns its end and whether it is a float literal. */
export function scanNumberToken(text: string, pos: number): { end: number; isFloat: boolean } | null {
  let p = pos;
  if (text[p] === "-") p++;
  const first = text.charCodeAt(p);
  if (first === 48) p++;
  else if (first >= 49 && first <= 57) {
    DIGITS.lastIndex = p + 1;
    DIGITS.test(text);
    p = DIGITS.lastIndex;
  } else return null;
  const intDigits = p - pos - (text[pos] === "-" ? 1 : 0);
  let isFloat = false;
  if (text[p] === "." && isDigit(text.charCodeAt(p + 1))) {
    DIGITS.lastIndex = p + 1;
    DIGITS.test(text);
    p = DIGITS.lastIndex;
    isFloat = true;
  }
  if (text[p] === "e" || text[p] === "E") {
    let q = p + 1;
    if (text[q] === "+" || text[q] === "-") q++;
    if (isDigit(text.charCodeAt(q))) {
      DIGITS.lastIndex = q;
      DIGITS.test(text);
      p = DIGITS.lastIndex;
      isFloat = true;
    }
  }
  if (!isFloat && intDigits > PY_INT_MAX_DIGITS) return null;
  return { end: p, isFloat };
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  // a plain assignment to "__proto__" would replace the prototype instead of adding a member
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

interface Frame {
  isObject: boolean;
  container: Record<string, unknown> | unknown[] | null;
  key: string;
}

/**
 * Scans `text` as Python's json.loads would. With `build: false` only validates and reports
 * the top-level members (no values are made), which is what id lookups and edits need.
 */
export function pyJsonScan(text: string, opts: { build?: boolean } = {}): PyJsonScan {
  const build = opts.build !== false;
  try {
    return scan(text, build);
  } catch (err) {
    if (err instanceof ScanError) return { ok: false, at: err.at, reason: err.reason };
    throw err;
  }
}

function scan(text: string, build: boolean): PyJsonScan {
  const stack: Frame[] = [];
  let members: PyJsonMember[] | null = null;
  let open = -1;
  let close = -1;
  let root: unknown;
  let pos = skipWs(text, 0);
  // the member being read at depth 1, until its value ends
  let pending: PyJsonMember | null = null;
  let mode: "value" | "key" | "after" = "value";
  for (;;) {
    if (mode === "value") {
      const c = text[pos];
      if (pending && stack.length === 1) pending.valueStart = pos;
      let value: unknown;
      if (c === "{" || c === "[") {
        const isObject = c === "{";
        if (stack.length === 0 && isObject) {
          members = [];
          open = pos;
        }
        stack.push({ isObject, container: build ? (isObject ? {} : []) : null, key: "" });
        pos = skipWs(text, pos + 1);
        if (text[pos] === (isObject ? "}" : "]")) {
          pos++;
          value = stack.pop()!.container;
          if (stack.length === 0 && isObject) close = pos - 1;
        } else {
          mode = isObject ? "key" : "value";
          continue;
        }
      } else if (c === '"') {
        const s = scanString(text, pos, build);
        pos = s.end;
        value = s.value;
      } else if (c === "t" && text.startsWith("true", pos)) {
        pos += 4;
        value = true;
      } else if (c === "f" && text.startsWith("false", pos)) {
        pos += 5;
        value = false;
      } else if (c === "n" && text.startsWith("null", pos)) {
        pos += 4;
        value = null;
      } else if (c === "N" && text.startsWith("NaN", pos)) {
        pos += 3;
        value = Number.NaN;
      } else if (c === "I" && text.startsWith("Infinity", pos)) {
        pos += 8;
        value = Number.POSITIVE_INFINITY;
      } else if (c === "-" && text.startsWith("-Infinity", pos)) {
        pos += 9;
        value = Number.NEGATIVE_INFINITY;
      } else {
        const n = scanNumberToken(text, pos);
        if (!n) throw new ScanError(pos, "expecting a value");
        if (build) value = Number(text.slice(pos, n.end));
        pos = n.end;
      }
      if (!attach(stack, value, build)) root = value;
      if (pending && stack.length === 1) {
        pending.valueEnd = pos;
        members!.push(pending);
        pending = null;
      }
      mode = "after";
    } else if (mode === "key") {
      if (text[pos] !== '"') throw new ScanError(pos, "expecting a property name in double quotes");
      const keyStart = pos;
      const depth = stack.length;
      // keys are decoded when values are built, and at the top level (edits and id lookups need them)
      const s = scanString(text, pos, build || depth === 1);
      pos = skipWs(text, s.end);
      if (text[pos] !== ":") throw new ScanError(pos, "expecting ':'");
      pos = skipWs(text, pos + 1);
      stack[depth - 1]!.key = s.value;
      if (depth === 1) pending = { key: s.value, keyStart, valueStart: -1, valueEnd: -1 };
      mode = "value";
    } else {
      pos = skipWs(text, pos);
      const top = stack[stack.length - 1];
      if (!top) {
        if (pos !== text.length) throw new ScanError(pos, "extra data");
        return { ok: true, value: build ? root : undefined, members, open, close };
      }
      const c = text[pos];
      if (c === ",") {
        pos = skipWs(text, pos + 1);
        mode = top.isObject ? "key" : "value";
      } else if (c === (top.isObject ? "}" : "]")) {
        pos++;
        const done = stack.pop()!;
        const depthAfter = stack.length;
        if (depthAfter === 0 && done.isObject) close = pos - 1;
        if (!attach(stack, done.container, build)) root = done.container;
        if (pending && depthAfter === 1) {
          pending.valueEnd = pos;
          members!.push(pending);
          pending = null;
        }
      } else {
        throw new ScanError(pos, top.isObject ? "expecting ',' or '}'" : "expecting ',' or ']'");
      }
    }
  }
}

/** Adds a finished value to the open container; false when there is none (the value is the document). */
function attach(stack: Frame[], value: unknown, build: boolean): boolean {
  const top = stack[stack.length - 1];
  if (!top) return false;
  if (build) {
    if (top.isObject) setMember(top.container as Record<string, unknown>, top.key, value);
    else (top.container as unknown[]).push(value);
  }
  return true;
}
