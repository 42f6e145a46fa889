import { Ajv2020 } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";

import { InterpretingValidator, toRjsfError } from "./interpreting-validator";
import { backtracksBadly, checkSchema, LOCAL_PATTERN_MAX_CHARS } from "./json-schema-check";
import { transformErrors } from "./messages";

const CONFIG = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["mode"],
  additionalProperties: false,
  properties: {
    slots: { type: "integer", minimum: 0, maximum: 64, default: 1 },
    rate: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.01 },
    mode: { type: "string", enum: ["fast", "slow"] },
    name: { type: "string", minLength: 1, maxLength: 5, pattern: "^[a-z]+$" },
    url: { type: "string", format: "uri" },
    when: { type: "string", format: "date-time" },
    tags: { type: "array", items: { type: "string" }, maxItems: 2, uniqueItems: true },
    pair: { type: "array", prefixItems: [{ type: "integer" }, { type: "string" }], items: false },
    proxy: { anyOf: [{ $ref: "#/$defs/Proxy" }, { type: "null" }] },
    kind: { const: "x" },
    choice: { oneOf: [{ type: "integer" }, { type: "number", minimum: 10 }] },
    cond: {
      type: "object",
      properties: { on: { type: "boolean" }, level: { type: "integer" } },
      if: { properties: { on: { const: true } }, required: ["on"] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, as the schema under test spells it
      then: { required: ["level"] },
    },
    env: { type: "object", additionalProperties: { type: "string" }, propertyNames: { pattern: "^[A-Z_]+$" }, maxProperties: 2 },
  },
  $defs: { Proxy: { type: "object", required: ["host"], properties: { host: { type: "string", format: "hostname" }, port: { type: "integer" } } } },
};

const CASES: unknown[] = [
  { mode: "fast" },
  {},
  { mode: "medium" },
  { mode: "fast", slots: 65 },
  { mode: "fast", slots: -1 },
  { mode: "fast", slots: 2.5 },
  { mode: "fast", slots: "3" },
  { mode: "fast", rate: 0 },
  { mode: "fast", rate: 1 },
  { mode: "fast", rate: 0.5 },
  { mode: "fast", rate: 0.505 },
  { mode: "fast", name: "" },
  { mode: "fast", name: "abcdef" },
  { mode: "fast", name: "ABC" },
  { mode: "fast", name: "abc" },
  { mode: "fast", url: "https://example.com/x" },
  { mode: "fast", url: "not a url" },
  { mode: "fast", when: "2026-01-31T12:00:00Z" },
  { mode: "fast", when: "yesterday" },
  { mode: "fast", tags: ["a", "a"] },
  { mode: "fast", tags: ["a", "b", "c"] },
  { mode: "fast", tags: [1] },
  { mode: "fast", pair: [1, "a"] },
  { mode: "fast", pair: [1, 2] },
  { mode: "fast", pair: [1, "a", 3] },
  { mode: "fast", proxy: null },
  { mode: "fast", proxy: { host: "proxy.example" } },
  { mode: "fast", proxy: { port: 1 } },
  { mode: "fast", proxy: { host: "bad host!" } },
  { mode: "fast", proxy: 3 },
  { mode: "fast", kind: "x" },
  { mode: "fast", kind: "y" },
  { mode: "fast", choice: 3 },
  { mode: "fast", choice: 12 },
  { mode: "fast", choice: 12.5 },
  { mode: "fast", choice: 1.5 },
  { mode: "fast", cond: { on: true } },
  { mode: "fast", cond: { on: true, level: 2 } },
  { mode: "fast", cond: { on: false } },
  { mode: "fast", env: { A_B: "x" } },
  { mode: "fast", env: { lower: "x" } },
  { mode: "fast", env: { A: 1 } },
  { mode: "fast", env: { A: "1", B: "2", C: "3" } },
  { mode: "fast", extra: 1 },
  [1, 2],
  "text",
  null,
];

function ajvCheck(schema: object, data: unknown) {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  const ok = validate(data);
  return { ok, keywords: new Set((validate.errors ?? []).map((e) => e.keyword)) };
}

describe("checkSchema agrees with Ajv 2020 (what the server validates with)", () => {
  it.each(CASES.map((c) => [JSON.stringify(c), c]))("%s", (_label, data) => {
    const mine = checkSchema(CONFIG, data);
    const theirs = ajvCheck(CONFIG, data);
    expect(mine.length === 0).toBe(theirs.ok);
    // Every keyword we report, Ajv reports too (Ajv may add wrapper keywords like anyOf/if).
    for (const e of mine) expect(theirs.keywords).toContain(e.keyword);
  });
});

describe("checkSchema details", () => {
  it("reports Ajv's keyword, params and instance path", () => {
    expect(checkSchema(CONFIG, { mode: "fast", slots: 65 })).toEqual([
      { instancePath: "/slots", schemaPath: "#/properties/slots/maximum", keyword: "maximum", params: { comparison: "<=", limit: 64 }, message: "must be <= 64" },
    ]);
    expect(checkSchema(CONFIG, {})).toEqual([
      { instancePath: "", schemaPath: "#/required", keyword: "required", params: { missingProperty: "mode" }, message: "must have required property 'mode'" },
    ]);
  });

  it("takes the strings the API shows a Python NaN / Infinity as for a number (not an integer): the server writes the number back where the worker had it", () => {
    const schema = { type: "object", properties: { limit: { type: "number", minimum: 0 }, n: { type: "integer" }, name: { type: "string" } } };
    expect(checkSchema(schema, { limit: "NaN", name: "NaN" })).toEqual([]);
    expect(checkSchema(schema, { limit: "-Infinity" })).toEqual([]);
    expect(checkSchema(schema, { limit: "nan" }).map((e) => e.keyword)).toEqual(["type"]);
    expect(checkSchema(schema, { n: "NaN" }).map((e) => e.keyword)).toEqual(["type"]);
  });

  it("counts characters, not UTF-16 units", () => {
    expect(checkSchema({ type: "string", maxLength: 2 }, "😀😀")).toEqual([]);
  });

  it("survives a cyclic $ref", () => {
    expect(checkSchema({ $ref: "#" }, 1)).toEqual([]);
  });

  it("treats boolean schemas as JSON Schema does", () => {
    expect(checkSchema(true, 1)).toEqual([]);
    expect(checkSchema(false, 1)).toHaveLength(1);
  });
});

describe("InterpretingValidator (rjsf)", () => {
  const v = new InterpretingValidator();

  it("places errors on the field they are about, in plain words", () => {
    const { errors, errorSchema } = v.validateFormData({ slots: 65 }, CONFIG as never, undefined, transformErrors);
    expect(errorSchema).toEqual({
      slots: { __errors: ["Must be at most 64."] },
      mode: { __errors: ["Required: this setting must have a value."] },
    });
    expect(errors.map((e) => e.stack).sort()).toEqual(["mode: Required: this setting must have a value.", "slots: Must be at most 64."]);
  });

  it("answers isValid against a root schema for $refs", () => {
    expect(v.isValid({ $ref: "#/$defs/Proxy" }, { host: "a.example" }, CONFIG as never)).toBe(true);
    expect(v.isValid({ $ref: "#/$defs/Proxy" }, {}, CONFIG as never)).toBe(false);
  });

  it("maps nested pointers and escapes to rjsf property paths", () => {
    expect(toRjsfError({ instancePath: "/a~1b/c", schemaPath: "#", keyword: "type", params: {}, message: "m" }).property).toBe(".a/b.c");
    expect(toRjsfError({ instancePath: "/proxy", schemaPath: "#", keyword: "required", params: { missingProperty: "host" }, message: "m" }).property).toBe(".proxy.host");
  });
});

describe("patterns from the catalog that would freeze the page are left to the server", () => {
  it("tells the forms that backtrack without end from the usual ones", () => {
    for (const p of ["^(a+)+$", "(a*)*", "^(\\w+\\s?)*$", "(a|ab)*c", "((ab)+|c)+", "^([a-z]+\\.?){2,}$", "(?:x+y?)+", "(a)\\1", "(?<n>a)\\k<n>"]) {
      expect(backtracksBadly(p), p).toBe(true);
    }
    for (const p of [
      "^[a-z]+$",
      "^[a-z][a-z0-9_-]*$",
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^(foo|bar)$",
      "^(ab)+$",
      "^[(+)*]+$",
      "\\(a+\\)+",
      "^(?:https?)://[^ ]+$",
      "(?<year>\\d{4})-(?=x)",
    ]) {
      expect(backtracksBadly(p), p).toBe(false);
    }
  });

  it("answers at once for a value such a pattern takes minutes on, and still checks the usual patterns", () => {
    const schema = { type: "object", properties: { id: { type: "string", pattern: "^(a+)+$" }, name: { type: "string", pattern: "^[a-z]+$" } } };
    const t0 = performance.now();
    expect(checkSchema(schema, { id: `${"a".repeat(40)}!`, name: "ok" })).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(checkSchema(schema, { id: "aaa", name: "Not OK" }).map((e) => e.instancePath)).toEqual(["/name"]);
    // a long value is left to the server too, however plain the pattern
    expect(checkSchema(schema, { name: "A".repeat(LOCAL_PATTERN_MAX_CHARS + 1) })).toEqual([]);
    expect(checkSchema(schema, { name: "A".repeat(LOCAL_PATTERN_MAX_CHARS) }).map((e) => e.keyword)).toEqual(["pattern"]);
  });

  it("counts a property name it leaves to the server as matching its patternProperties (no 'not allowed here' it cannot vouch for)", () => {
    const schema = { type: "object", patternProperties: { "^(x+)+$": { type: "integer" }, "^y$": { type: "string" } }, additionalProperties: false };
    expect(checkSchema(schema, { [`${"x".repeat(40)}!`]: 1 })).toEqual([]);
    expect(checkSchema(schema, { y: 1 }).map((e) => e.keyword)).toEqual(["type"]);
    // any name might match the pattern left to the server: it decides whether z is allowed
    expect(checkSchema(schema, { z: 1 })).toEqual([]);
    const plain = { ...schema, patternProperties: { "^y$": { type: "string" } } };
    expect(checkSchema(plain, { z: 1 }).map((e) => e.keyword)).toEqual(["additionalProperties"]);
  });
});
