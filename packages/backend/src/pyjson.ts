// JSON text byte-identical to Python's `json.dumps(obj)` with default arguments:
// `", "` and `": "` separators, non-ASCII escaped as \uXXXX (astral characters as
// surrogate pairs), floats as Python's repr, key order kept; non-finite numbers as the
// `NaN`, `Infinity` and `-Infinity` tokens Python writes (allow_nan=True), so a value Python
// wrote with them is written back the same way.
//
// JavaScript has one number type. An integral number is written as a Python int
// (`3`); wrap a value in `pyFloat()` where Python would hold a float (`time.time()`
// results such as `last_seen` or a pool item's `x`), so that `3` becomes `3.0`.

export class PyFloat {
  constructor(readonly value: number) {}
}

/** Marks a number that Python would hold as a float. */
export function pyFloat(value: number): PyFloat {
  return new PyFloat(value);
}

/**
 * Python's `repr(float)`: shortest round-trip digits, exponent outside [1e-4, 1e16); the
 * non-finite values as json.dumps writes them (`NaN`, `Infinity`, `-Infinity`; str() of them
 * is `nan`, `inf`, `-inf`: see pyFloatStr).
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  // toExponential() with no argument gives the shortest round-trip digits
  const [mant, expStr] = x.toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  let out: string;
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  } else if (exp < 0) {
    out = `0.${"0".repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    out = `${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
  } else {
    out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return neg ? `-${out}` : out;
}

function encodeNumber(n: number): string {
  if (!Number.isFinite(n)) return pyFloatRepr(n);
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return BigInt(n).toString();
  return pyFloatRepr(n);
}

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/** Python's `json.encoder.py_encode_basestring_ascii`. */
export function pyJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const code = s.charCodeAt(i);
    const esc = ESCAPES[ch];
    if (esc) out += esc;
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** `json.dumps(value)` as Python writes it. `undefined` object members are skipped. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return encodeNumber(value);
    case "bigint":
      return value.toString();
    case "string":
      return pyJsonString(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map((v) => pyJsonDumps(v === undefined ? null : v)).join(", ")}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined) continue;
        parts.push(`${pyJsonString(k)}: ${pyJsonDumps(v)}`);
      }
      return `{${parts.join(", ")}}`;
    }
    default:
      throw new TypeError(`cannot encode a ${typeof value} as JSON`);
  }
}

/** `json.dumps(value).encode("utf-8")` — always ASCII, so latin1 would do too. */
export function pyJsonBytes(value: unknown): Buffer {
  return Buffer.from(pyJsonDumps(value), "utf8");
}
