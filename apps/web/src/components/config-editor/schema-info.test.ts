import { describe, expect, it } from "vitest";

import { schemaAt, schemaFields, titleAt } from "./schema-info";

const schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  title: "Scraper",
  required: ["mode"],
  properties: {
    slots: { type: "integer", minimum: 0, maximum: 64, default: 1, title: "Slots", description: "Concurrent slots." },
    mode: { type: "string", enum: ["fast", "slow"], title: "Mode" },
    rate: { type: "number", exclusiveMinimum: 0, maximum: 1 },
    agent: { type: "string", maxLength: 300 },
    proxy: { anyOf: [{ $ref: "#/$defs/Proxy" }, { type: "null" }], default: null, title: "Proxy" },
    tags: { type: "array", items: { type: "string" }, maxItems: 5 },
  },
  $defs: {
    Proxy: {
      type: "object",
      properties: { host: { type: "string", title: "Host", format: "hostname" }, port: { type: "integer", minimum: 1 } },
      required: ["host"],
    },
  },
};

describe("schemaFields", () => {
  it("flattens members with type, bounds, default, description and required", () => {
    const fields = schemaFields(schema);
    expect(fields.map((f) => f.path.join("."))).toEqual(["slots", "mode", "rate", "agent", "proxy", "proxy.host", "proxy.port", "tags"]);
    expect(fields[0]).toEqual({
      path: ["slots"],
      title: "Slots",
      type: "integer",
      required: false,
      bounds: "0 ≤ x ≤ 64",
      default: "1",
      description: "Concurrent slots.",
    });
    expect(fields[1]).toMatchObject({ required: true, type: "string", bounds: "one of: fast, slow", default: null });
    expect(fields[2]!.bounds).toBe("0 < x ≤ 1");
    expect(fields[3]!.bounds).toBe("≤ 300 chars");
    expect(fields[4]).toMatchObject({ type: "object | null", title: "Proxy", default: "null" });
    expect(fields[5]).toMatchObject({ title: "Host", required: true, bounds: "format hostname" });
    expect(fields[6]!.bounds).toBe("≥ 1");
    expect(fields[7]).toMatchObject({ type: "array of string", bounds: "0–5 items" });
  });

  it("is empty for schemas without properties", () => {
    expect(schemaFields(true)).toEqual([]);
    expect(schemaFields({ type: "object" })).toEqual([]);
  });
});

describe("schemaAt and titleAt", () => {
  it("follows refs and nullable wrappers", () => {
    expect(schemaAt(schema, ["proxy", "host"])).toMatchObject({ title: "Host" });
    expect(schemaAt(schema, ["nope"])).toBeNull();
    expect(titleAt(schema, ["proxy", "port"])).toBe("Proxy › port");
    expect(titleAt(schema, ["slots"])).toBe("Slots");
    expect(titleAt(null, ["x", "y"])).toBe("x › y");
  });
});

describe("safe-integer bounds", () => {
  it("are not shown (zod emits them for every int)", () => {
    const f = schemaFields({ type: "object", properties: { n: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 } } });
    expect(f[0]!.bounds).toBeNull();
  });
});
