import { describe, expect, it } from "vitest";

import { applyMergePatch as mergePatch } from "./merge-patch";

// The examples of RFC 7386, appendix A, plus the cases that bite in practice.
describe("mergePatch (RFC 7386)", () => {
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [
      ["a", "b"],
      ["c", "d"],
      ["c", "d"],
    ],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(cases)("merge(%j, %j) = %j", (target, patch, expected) => {
    expect(mergePatch(target, patch)).toEqual(expected);
  });

  it("does not modify the target or the patch", () => {
    const target = { a: { b: 1 }, c: [1] };
    const patch = { a: { d: 2 }, c: null };
    mergePatch(target, patch);
    expect(target).toEqual({ a: { b: 1 }, c: [1] });
    expect(patch).toEqual({ a: { d: 2 }, c: null });
  });

  it("keeps the target's key order and appends new keys", () => {
    expect(Object.keys(mergePatch({ z: 1, a: 2 }, { a: 3, m: 4 }) as object)).toEqual(["z", "a", "m"]);
  });
});

describe("mergePatch and unusual member names", () => {
  it("treats __proto__ as an ordinary member", () => {
    const patch = JSON.parse('{"__proto__": {"x": 1}}') as unknown;
    const merged = mergePatch({}, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.hasOwn(merged, "__proto__")).toBe(true);
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"x":1}}');
  });
});

describe("mergePatch and undefined", () => {
  it("skips undefined members and copies the patch's values", () => {
    const inner = { b: [1, undefined] };
    const merged = mergePatch({ a: 1, c: 2 }, { a: undefined, c: inner }) as Record<string, unknown>;
    expect(merged).toEqual({ a: 1, c: { b: [1, null] } });
    expect(merged.c).not.toBe(inner);
  });
});
