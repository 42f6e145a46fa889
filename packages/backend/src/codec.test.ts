import { describe, expect, it } from "vitest";

import { jsonEqual, lastSeenFromRaw, parseFloatStrict, parseJsonBytes, sameDocument, tagsMatch } from "./codec";
import { PY_INT_MAX_DIGITS } from "./pyjson-parse";

describe("lastSeenFromRaw", () => {
  // the bytes-only path for plain decimals must give exactly what the text path gives
  const cases = [
    "1733130000.123456",
    "1733130000",
    "1733130000.",
    "0",
    "00012.5000",
    "17331300001733130000",
    "173313000017331300001", // 21 bytes: the text path
    ".5",
    "1.2.3",
    "-1733130000.5",
    "+12",
    " 12.5 ",
    "1e9",
    "1E+3",
    "",
    "12a",
    "NaN",
    "inf",
    "１２", // full-width digits: not ASCII
  ];
  for (const text of cases) {
    it(`reads ${JSON.stringify(text)} as parseFloatStrict reads its text`, () => {
      expect(lastSeenFromRaw(Buffer.from(text, "utf8"))).toBe(parseFloatStrict(text));
    });
  }

  it("refuses bytes that are not UTF-8", () => {
    expect(lastSeenFromRaw(Buffer.from([0x31, 0xff]))).toBeNull();
  });
});

describe("parseJsonBytes", () => {
  it("refuses an integer longer than Python's int() takes, and takes one at the limit", () => {
    const at = `{"n": ${"7".repeat(PY_INT_MAX_DIGITS)}}`;
    const over = `{"n": ${"7".repeat(PY_INT_MAX_DIGITS + 1)}}`;
    expect(parseJsonBytes(Buffer.from(at)).ok).toBe(true);
    expect(parseJsonBytes(Buffer.from(over)).ok).toBe(false);
    // a long digit run inside a string is text, not an integer
    expect(parseJsonBytes(Buffer.from(`{"s": "${"7".repeat(PY_INT_MAX_DIGITS + 1)}"}`)).ok).toBe(true);
  });
});

describe("sameDocument and jsonEqual", () => {
  it("sameDocument holds two configs that both hold NaN equal (the same bytes); jsonEqual and tagsMatch do not, as Python's == does not", () => {
    const a = parseJsonBytes(Buffer.from('{"limit": NaN, "xs": [1, NaN, {"lo": -Infinity}]}'));
    const b = parseJsonBytes(Buffer.from('{"xs": [1, NaN, {"lo": -Infinity}], "limit": NaN}'));
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(sameDocument(a.value, b.value)).toBe(true);
    expect(sameDocument(a.value, { limit: "NaN", xs: [1, Number.NaN, { lo: Number.NEGATIVE_INFINITY }] })).toBe(false);
    expect(sameDocument({ n: Number.NaN }, { n: 1 })).toBe(false);
    expect(jsonEqual(a.value, b.value)).toBe(false);
    expect(tagsMatch({ x: Number.NaN }, { x: Number.NaN })).toBe(false);
    expect(tagsMatch({ x: 1 }, { x: 1 })).toBe(true);
  });
});
