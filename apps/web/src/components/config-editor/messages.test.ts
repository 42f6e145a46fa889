import { describe, expect, it } from "vitest";

import { detailsToErrorSchema, humanizeServerMessage, plainMessage, propertyLabel, transformErrors } from "./messages";

describe("plainMessage", () => {
  it("explains bounds, types and choices in words", () => {
    expect(plainMessage("maximum", { comparison: "<=", limit: 64 })).toBe("Must be at most 64.");
    expect(plainMessage("minimum", { limit: 0 })).toBe("Must be at least 0.");
    expect(plainMessage("exclusiveMaximum", { limit: 1 })).toBe("Must be less than 1.");
    expect(plainMessage("type", { type: "integer" })).toBe("Must be a whole number.");
    expect(plainMessage("type", { type: ["string", "null"] })).toBe("Must be text or empty (null).");
    expect(plainMessage("enum", { allowedValues: ["fast", "slow"] })).toBe('Must be one of: "fast", "slow".');
    expect(plainMessage("required", { missingProperty: "slots" })).toBe("Required: this setting must have a value.");
    expect(plainMessage("maxLength", { limit: 1 })).toBe("Must be at most 1 character long.");
    expect(plainMessage("minLength", { limit: 1 })).toBe("Must not be empty.");
    expect(plainMessage("format", { format: "uri" })).toMatch(/web address/);
    expect(plainMessage("additionalProperties", { additionalProperty: "x" })).toBe("Is not a setting this automation knows.");
  });

  it("returns null for a keyword it does not know", () => {
    expect(plainMessage("if", {})).toBeNull();
  });
});

describe("transformErrors", () => {
  it("rewrites message and stack, and falls back to a tidied Ajv message", () => {
    const out = transformErrors([
      { name: "maximum", params: { limit: 64 }, property: ".slots", message: "must be <= 64", stack: ".slots must be <= 64" },
      { name: "if", params: {}, property: ".a", message: 'must match "then" schema', stack: "" },
    ]);
    expect(out[0]).toMatchObject({ message: "Must be at most 64.", stack: "slots: Must be at most 64." });
    expect(out[1]!.message).toBe('Must match "then" schema.');
  });
});

describe("propertyLabel", () => {
  it("reads rjsf's property notation", () => {
    expect(propertyLabel(".limits.max")).toBe("limits › max");
    expect(propertyLabel(".a['b c'][2]")).toBe("a › b c › 2");
    expect(propertyLabel(".")).toBe("");
    expect(propertyLabel(undefined)).toBe("");
  });
});

describe("humanizeServerMessage", () => {
  it("turns the server's Ajv messages into the same plain words", () => {
    expect(humanizeServerMessage("must be <= 64")).toBe("Must be at most 64.");
    expect(humanizeServerMessage("must be >= 1")).toBe("Must be at least 1.");
    expect(humanizeServerMessage("must be integer")).toBe("Must be a whole number.");
    expect(humanizeServerMessage("is required")).toBe("Required: this setting must have a value.");
    expect(humanizeServerMessage("worker w-1: must be <= 64")).toBe("worker w-1: Must be at most 64.");
    expect(humanizeServerMessage("something odd")).toBe("Something odd.");
  });
});

describe("detailsToErrorSchema", () => {
  it("places details on the fields their pointers name", () => {
    expect(
      detailsToErrorSchema([
        { path: "/slots", message: "must be <= 64" },
        { path: "/limits/max", message: "must be integer" },
        { path: "/slots", message: "is required" },
        { path: "", message: "must be object" },
      ]),
    ).toEqual({
      slots: { __errors: ["Must be at most 64.", "Required: this setting must have a value."] },
      limits: { max: { __errors: ["Must be a whole number."] } },
      __errors: ["Must be a group of settings (a JSON object)."],
    });
  });
});
