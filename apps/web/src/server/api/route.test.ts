import { describe, expect, it } from "vitest";

import { ajvDetails, catalogValidator, checkAgainst } from "./catalog-validation";
import { parseIfMatch } from "./config-writes";
import { ApiError, jsonPointer, jsonResponse } from "./errors";
import { paramsFromUrl } from "./route";

describe("paramsFromUrl", () => {
  it("decodes each segment exactly once", () => {
    expect(paramsFromUrl("/workers/[type]/[id]", "http://x/api/v1/workers/a%3Ab/50%2525%2Fx")).toEqual({ type: "a:b", id: "50%25/x" });
  });

  it("returns null when the URL does not fit the template", () => {
    expect(paramsFromUrl("/workers/[type]/[id]", "http://x/api/v1/workers/a")).toBeNull();
    expect(paramsFromUrl("/kv/[ns]", "http://x/api/v1/pools/a")).toBeNull();
  });

  it("answers 400 for a segment that is not valid percent-encoding", () => {
    expect(() => paramsFromUrl("/kv/[ns]", "http://x/api/v1/kv/%E0%A4%A")).toThrow(ApiError);
  });
});

describe("parseIfMatch", () => {
  it("reads strong, weak and listed generations; * and absence mean no precondition", () => {
    expect(parseIfMatch('"3"')).toEqual([3]);
    expect(parseIfMatch('W/"3", "4"')).toEqual([3, 4]);
    expect(parseIfMatch("*")).toBeNull();
    expect(parseIfMatch(null)).toBeNull();
  });

  it("rejects anything else with 400", () => {
    for (const bad of ["3", '"x"', '"3', '"-1"']) {
      expect(() => parseIfMatch(bad)).toThrow(ApiError);
    }
  });
});

describe("catalog validation", () => {
  const doc = (config: unknown) => Buffer.from(JSON.stringify({ config, output: null, task_payload: null }));

  it("lists every failing field with a JSON Pointer", () => {
    const validate = catalogValidator("t", doc({ type: "object", properties: { a: { type: "integer", maximum: 3 } }, required: ["a", "b~/c"] }), "config");
    expect(checkAgainst(validate, { a: 9 }).sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: "/a", message: "must be <= 3" },
      { path: "/b~0~1c", message: "is required" },
    ]);
  });

  it("accepts anything without a schema and refuses a catalog entry that cannot be used", () => {
    expect(catalogValidator("t", null, "config")).toBeNull();
    expect(catalogValidator("t", doc(null), "config")).toBeNull();
    expect(() => catalogValidator("t", Buffer.from("{broken"), "config")).toThrow(ApiError);
    expect(() => catalogValidator("t", doc({ type: "no-such-type" }), "config")).toThrow(/not a valid JSON Schema/);
  });

  it("compiles draft 2020-12 features ($defs, prefixItems) and formats", () => {
    const v = catalogValidator(
      "t",
      doc({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $defs: { port: { type: "integer", minimum: 1 } },
        type: "object",
        properties: { port: { $ref: "#/$defs/port" }, pair: { prefixItems: [{ type: "string" }, { type: "number" }] }, at: { format: "date-time" } },
      }),
      "config",
    );
    expect(checkAgainst(v, { port: 0, pair: [1, "x"], at: "yesterday" }).map((d) => d.path)).toEqual(["/port", "/pair/0", "/pair/1", "/at"]);
  });

  it("points at the unknown member itself", () => {
    expect(ajvDetails([{ keyword: "additionalProperties", instancePath: "/proxy", schemaPath: "", params: { additionalProperty: "x" }, message: "m" }])).toEqual([
      { path: "/proxy/x", message: "is not allowed here" },
    ]);
    expect(jsonPointer([])).toBe("");
  });
});

describe("jsonResponse", () => {
  it("sends the body as UTF-8 bytes with their length, whatever the characters", async () => {
    const body = { name: "caf\u00e9 \u20ac \u{1F600}", n: [1, 2.5, null], nested: { "k\u00fc": "\u2028" } };
    const res = jsonResponse(200, body);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
    expect(bytes.length).toBe(Buffer.byteLength(JSON.stringify(body)));
    expect(JSON.parse(bytes.toString("utf8"))).toEqual(body);
  });

  it("keeps the headers given, a Cache-Control among them", () => {
    const res = jsonResponse(201, { ok: true }, { ETag: '"3"', "Cache-Control": "private, max-age=5" });
    expect(res.headers.get("etag")).toBe('"3"');
    expect(res.headers.get("cache-control")).toBe("private, max-age=5");
    expect(res.headers.get("content-length")).toBe(String('{"ok":true}'.length));
  });
});
