import { describe, expect, it } from "vitest";

import { applyMergePatch, diffConfig, fromPointer, getPath, hasPath, jsonEqual, mergePatchBetween, mergePatchExpresses, stripUndefined, toPointer } from "./diff";

describe("diffConfig", () => {
  it("lists changed, added and removed leaves in a stable order", () => {
    const before = { slots: 2, mode: "fast", headless: true };
    const after = { slots: 4, headless: true, timeout_ms: 5000 };
    expect(diffConfig(before, after)).toEqual([
      { path: ["slots"], kind: "changed", before: 2, after: 4 },
      { path: ["mode"], kind: "removed", before: "fast" },
      { path: ["timeout_ms"], kind: "added", after: 5000 },
    ]);
  });

  it("walks nested objects but compares arrays whole", () => {
    const before = { limits: { max: 1, min: 0 }, tags: ["a", "b"] };
    const after = { limits: { max: 2, min: 0 }, tags: ["a", "c"] };
    expect(diffConfig(before, after)).toEqual([
      { path: ["limits", "max"], kind: "changed", before: 1, after: 2 },
      { path: ["tags"], kind: "changed", before: ["a", "b"], after: ["a", "c"] },
    ]);
  });

  it("is empty for equal configs, member order and undefined members aside", () => {
    expect(diffConfig({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1, d: undefined })).toEqual([]);
  });

  it("reports a type change of a member as one change", () => {
    expect(diffConfig({ a: { x: 1 } }, { a: 5 })).toEqual([{ path: ["a"], kind: "changed", before: { x: 1 }, after: 5 }]);
  });

  it("treats a value becoming null as a change, not a removal", () => {
    expect(diffConfig({ a: 1 }, { a: null })).toEqual([{ path: ["a"], kind: "changed", before: 1, after: null }]);
  });
});

describe("mergePatchBetween", () => {
  it("sends changed and added members, and null for removed ones", () => {
    expect(mergePatchBetween({ slots: 2, mode: "fast", x: 1 }, { slots: 3, x: 1, extra: true })).toEqual({
      slots: 3,
      mode: null,
      extra: true,
    });
  });

  it("patches nested objects member by member and leaves untouched ones out", () => {
    const before = { limits: { max: 1, min: 0 }, other: { k: 1 } };
    const after = { limits: { max: 2, min: 0 }, other: { k: 1 } };
    expect(mergePatchBetween(before, after)).toEqual({ limits: { max: 2 } });
  });

  it("is {} when nothing changed", () => {
    expect(mergePatchBetween({ a: [1], b: { c: 1 } }, { b: { c: 1 }, a: [1] })).toEqual({});
  });

  it("replaces arrays whole", () => {
    expect(mergePatchBetween({ tags: ["a", "b"] }, { tags: ["b"] })).toEqual({ tags: ["b"] });
  });

  it("drops undefined members (a cleared form field) as removals", () => {
    expect(mergePatchBetween({ a: 1, b: 2 }, { a: undefined, b: 2 })).toEqual({ a: null });
  });

  it("round-trips: applying the patch gives the new config", () => {
    const cases: Array<[unknown, unknown]> = [
      [
        { a: 1, b: { c: 2, d: [1] } },
        { a: 2, b: { d: [2], e: "x" } },
      ],
      [{ a: { b: { c: 1 } } }, { a: { b: {} } }],
      [{}, { a: { b: 1 } }],
      [{ a: { b: 1 } }, {}],
      [JSON.parse('{"__proto__": 1, "a/b": 2}'), JSON.parse('{"__proto__": {"x": 2}, "a~b": 3}')],
    ];
    for (const [before, after] of cases) {
      expect(applyMergePatch(before, mergePatchBetween(before, after))).toEqual(after);
    }
  });

  it("keeps a member named __proto__ as data", () => {
    const patch = mergePatchBetween({}, JSON.parse('{"__proto__": {"polluted": 1}}')) as Record<string, unknown>;
    expect(Object.keys(patch)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("applyMergePatch (RFC 7386; its own tests are in @fleet/schema)", () => {
  it("rebases my change onto their newer version", () => {
    const mine = mergePatchBetween({ slots: 2, mode: "fast" }, { slots: 5, mode: "fast" });
    const theirs = { slots: 3, mode: "stealth", headless: false };
    expect(applyMergePatch(theirs, mine)).toEqual({ slots: 5, mode: "stealth", headless: false });
  });
});

describe("mergePatchExpresses", () => {
  it("is true for ordinary edits", () => {
    expect(mergePatchExpresses({ a: 1 }, { a: 2, b: [null] })).toBe(true);
  });
  it("is false when a member is set to null, which a merge patch cannot say", () => {
    expect(mergePatchExpresses({ a: 1 }, { a: null })).toBe(false);
    expect(mergePatchExpresses({ a: { b: 1 } }, { a: { b: null } })).toBe(false);
  });
});

describe("pointers and paths", () => {
  it("escapes ~ and / both ways", () => {
    expect(toPointer(["a/b", "c~d", ""])).toBe("/a~1b/c~0d/");
    expect(fromPointer("/a~1b/c~0d/")).toEqual(["a/b", "c~d", ""]);
    expect(fromPointer("")).toEqual([]);
    expect(fromPointer("/")).toEqual([""]);
  });

  it("reads paths", () => {
    const v = { a: { b: 0, u: undefined } };
    expect(hasPath(v, ["a", "b"])).toBe(true);
    expect(hasPath(v, ["a", "u"])).toBe(false);
    expect(hasPath(v, ["a", "b", "c"])).toBe(false);
    expect(getPath(v, ["a", "b"])).toBe(0);
    expect(getPath(v, ["x"])).toBeUndefined();
  });
});

describe("jsonEqual and stripUndefined", () => {
  it("compares deeply", () => {
    expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual(1, "1")).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
  });
  it("drops undefined members, and turns undefined array items into null like JSON", () => {
    expect(stripUndefined({ a: undefined, b: [undefined, 1], c: { d: undefined } })).toEqual({ b: [null, 1], c: {} });
  });
});
