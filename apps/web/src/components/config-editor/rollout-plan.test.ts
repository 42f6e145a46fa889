import { describe, expect, it } from "vitest";

import { applyMergePatch } from "./diff";
import { currentValues, describeCurrent, patchFromChoices, rolloutLeaves, startingValue } from "./rollout-plan";

const schema = {
  type: "object",
  properties: {
    slots: { type: "integer", minimum: 0, default: 1, title: "Slots" },
    mode: { type: "string", enum: ["fast", "thorough", "stealth"], default: "fast", title: "Mode", description: "How pages are fetched." },
    limits: { type: "object", title: "Limits", properties: { max: { type: "integer", title: "Max" }, burst: { type: "integer" } } },
    proxy: { anyOf: [{ $ref: "#/$defs/Proxy" }, { type: "null" }], default: null },
    tags: { type: "array", items: { type: "string" } },
  },
  $defs: { Proxy: { type: "object", properties: { host: { type: "string" } } } },
};

describe("rolloutLeaves", () => {
  it("offers every leaf setting, walking into objects with properties, with titles and defaults", () => {
    const leaves = rolloutLeaves(schema);
    expect(leaves.map((l) => l.path.join("."))).toEqual(["slots", "mode", "limits.max", "limits.burst", "proxy", "tags"]);
    expect(leaves[2]!.title).toBe("Limits › Max");
    expect(leaves[3]!.title).toBe("Limits › burst");
    expect(leaves[1]).toMatchObject({ title: "Mode", default: "fast", description: "How pages are fetched." });
  });
});

describe("currentValues and describeCurrent", () => {
  it("says one value with its count", () => {
    const g = currentValues([{ mode: "stealth" }, { mode: "stealth" }, { mode: "stealth" }, { mode: "stealth" }, { mode: "stealth" }], ["mode"]);
    expect(describeCurrent(g, "fast")).toBe("stealth ×5");
  });
  it("says mixed values, most common first, and unset ones with the default", () => {
    const g = currentValues([{ slots: 2 }, { slots: 4 }, { slots: 4 }, {}, { slots: 4 }], ["slots"]);
    expect(describeCurrent(g, 1)).toBe("mixed: 4 ×3, 2 ×1, not set ×1 (default 1)");
    expect(describeCurrent(currentValues([{}, {}], ["slots"]), 1)).toBe("not set ×2 (default 1)");
  });
  it("compares structured values as JSON, member order aside, and reads nested paths", () => {
    const g = currentValues([{ tags: ["a", "b"] }, { tags: ["a", "b"] }, { limits: { max: 3 } }], ["tags"]);
    expect(describeCurrent(g, undefined)).toBe('mixed: ["a","b"] ×2, not set ×1');
    expect(describeCurrent(currentValues([{ limits: { max: 3 } }, { limits: { max: 3 } }], ["limits", "max"]), undefined)).toBe("3 ×2");
    expect(currentValues([{ p: { a: 1, b: 2 } }, { p: { b: 2, a: 1 } }], ["p"])).toHaveLength(1);
  });
  it("names at most four values", () => {
    const g = currentValues(
      [1, 2, 3, 4, 5, 6].map((n) => ({ slots: n })),
      ["slots"],
    );
    expect(describeCurrent(g, undefined)).toBe("mixed: 1 ×1, 2 ×1, 3 ×1, 4 ×1, +2 more");
  });
  it("starts a new value from the commonest set value, else the default", () => {
    expect(startingValue(currentValues([{}, {}, { mode: "thorough" }], ["mode"]), "fast")).toBe("thorough");
    expect(startingValue(currentValues([{}, {}], ["mode"]), "fast")).toBe("fast");
  });
});

describe("patchFromChoices", () => {
  it("sets only the chosen paths, nested ones inside their objects, a default value included", () => {
    const patch = patchFromChoices([
      { path: ["mode"], value: "fast" },
      { path: ["limits", "max"], value: 5 },
      { path: ["limits", "burst"], value: 9 },
    ]);
    expect(patch).toEqual({ mode: "fast", limits: { max: 5, burst: 9 } });
    // a worker's other settings, nested ones too, survive the merge
    expect(applyMergePatch({ slots: 3, limits: { max: 1, other: true } }, patch)).toEqual({ slots: 3, mode: "fast", limits: { max: 5, other: true, burst: 9 } });
  });
  it("is empty when nothing is chosen, and __proto__ is an ordinary member", () => {
    expect(patchFromChoices([])).toEqual({});
    const p = patchFromChoices([{ path: ["__proto__", "x"], value: 1 }]);
    expect(Object.getPrototypeOf(p)).toBe(Object.prototype);
    expect(JSON.stringify(p)).toBe('{"__proto__":{"x":1}}');
  });
});
