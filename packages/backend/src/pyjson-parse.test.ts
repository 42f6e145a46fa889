import { describe, expect, it } from "vitest";
import { parseJsonBytes, pyJsonLoadsBytes } from "./codec";
import { pyJsonDumps } from "./pyjson";
import { pyJsonScan } from "./pyjson-parse";

const loads = (text: string) => {
  const r = pyJsonScan(text);
  return r.ok ? r.value : "<refused>";
};

describe("pyJsonScan: json.loads as Python reads it", () => {
  it("reads what JSON.parse reads, the same way", () => {
    const docs = [
      '{"a": [1, -2.5e-3, true, false, null, "x\\u00e9\\ud83d\\ude00"], "b": {}, "c": [], "d": {"e": {"f": [[]]}}}',
      "  [1 , 2 ]\n",
      '"just a string"',
      "-0",
      '{"__proto__": {"polluted": 1}, "a": 1, "a": 2}',
      '{"1": "one", "b": 2, "0": "zero"}',
      "12345678901234567890",
    ];
    for (const d of docs) {
      const got = loads(d);
      expect(got).toEqual(JSON.parse(d));
      expect(JSON.stringify(got)).toBe(JSON.stringify(JSON.parse(d)));
    }
    expect(Object.getPrototypeOf(loads('{"__proto__": {"polluted": 1}}'))).toBe(Object.prototype);
  });

  it("reads Python's NaN, Infinity and -Infinity as numbers", () => {
    expect(loads('{"a": NaN, "b": [Infinity, -Infinity]}')).toEqual({ a: NaN, b: [Infinity, -Infinity] });
    expect(parseJsonBytes(Buffer.from('{"rate": NaN, "peak": Infinity}'))).toEqual({ ok: true, value: { rate: NaN, peak: Infinity } });
    // and writes them back as Python does
    expect(pyJsonDumps(loads('{"rate": NaN, "peak": -Infinity}'))).toBe('{"rate": NaN, "peak": -Infinity}');
  });

  it("refuses what Python refuses", () => {
    const bad = [
      "",
      "nan",
      "-nan",
      "+1",
      "01",
      "1.",
      ".5",
      "1e",
      "[1,]",
      '{"a": 1,}',
      "{'a': 1}",
      '"a\tb"',
      '"\\x"',
      '"\\u12"',
      "\ufeff{}",
      "\f{}",
      "{} {}",
      "[",
      '{"a" 1}',
      "Infinityx",
      "-Infinit",
      "1".repeat(4301),
      `[-${"1".repeat(4301)}]`,
    ];
    for (const d of bad) expect(loads(d), JSON.stringify(d.slice(0, 20))).toBe("<refused>");
    expect(loads("1".repeat(4300))).toBe(Number("1".repeat(4300)));
    expect(loads(`1.${"1".repeat(5000)}`)).toBeCloseTo(1.111, 3);
    expect(parseJsonBytes(Buffer.from(`{"n": ${"1".repeat(4301)}}`))).toEqual({ ok: false });
    expect(parseJsonBytes(Buffer.from(`{"s": "${"1".repeat(4301)}"}`)).ok).toBe(true);
    expect(pyJsonLoadsBytes(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toEqual({ ok: false });
    expect(pyJsonLoadsBytes(Buffer.from('{"a": NaN}'))).toEqual({ ok: true, value: { a: NaN } });
  });

  it("survives nesting deeper than the call stack", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    expect(pyJsonScan(deep, { build: false }).ok).toBe(true);
    expect(pyJsonScan(`${"[".repeat(200_000)}`, { build: false }).ok).toBe(false);
  });

  it("reports where each top-level member sits", () => {
    const text = '{"id" : "x", "p": {"q": [1]}, "id": 2 }';
    const r = pyJsonScan(text, { build: false });
    expect(r.ok && r.members!.map((m) => [m.key, text.slice(m.keyStart, m.keyStart + m.key.length + 2), text.slice(m.valueStart, m.valueEnd)])).toEqual([
      ["id", '"id"', '"x"'],
      ["p", '"p"', '{"q": [1]}'],
      ["id", '"id"', "2"],
    ]);
  });
});
