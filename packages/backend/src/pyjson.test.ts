import { describe, expect, it } from "vitest";
import { pyFloat, pyFloatRepr, pyJsonDumps } from "./pyjson";

describe("pyJsonDumps", () => {
  it("uses Python's default separators and keeps key order", () => {
    expect(pyJsonDumps({ b: 1, a: [1, 2, { c: null }], d: true })).toBe('{"b": 1, "a": [1, 2, {"c": null}], "d": true}');
  });
  it("escapes non-ASCII as \\uXXXX, astral characters as surrogate pairs", () => {
    expect(pyJsonDumps("héllo ☃ 😀")).toBe('"h\\u00e9llo \\u2603 \\ud83d\\ude00"');
    expect(pyJsonDumps('\u007f\u0000\n\t"\\/')).toBe('"\\u007f\\u0000\\n\\t\\"\\\\/"');
  });
  it("writes floats as Python's repr", () => {
    const cases: Array<[number, string]> = [
      [1.5, "1.5"],
      [0.1, "0.1"],
      [1e16, "1e+16"],
      [1.5e16, "1.5e+16"],
      [123456789012345.6, "123456789012345.6"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [1.2345e-7, "1.2345e-07"],
      [1732912345.25, "1732912345.25"],
      [-2.5, "-2.5"],
      [1e300, "1e+300"],
      [5, "5.0"],
      [0, "0.0"],
      [1e22, "1e+22"],
    ];
    for (const [n, s] of cases) expect(pyFloatRepr(n)).toBe(s);
    expect(pyJsonDumps({ x: pyFloat(1732912345) })).toBe('{"x": 1732912345.0}');
    expect(pyJsonDumps({ x: 3 })).toBe('{"x": 3}');
  });
  it("writes NaN and Infinity as Python's json.dumps does (allow_nan), so they survive a re-write", () => {
    expect(pyJsonDumps({ x: NaN, y: [Infinity, -Infinity], z: pyFloat(NaN) })).toBe('{"x": NaN, "y": [Infinity, -Infinity], "z": NaN}');
  });
});
