// The OpenAPI document (GET /api/v1/openapi.json): it names every route and method the walk
// of src/app/api finds and nothing else, each operation's role is the one its route()
// declares and enforces, it is structurally sound (every $ref resolves, every path parameter
// is declared, every schema compiles as JSON Schema 2020-12), and it describes what the
// handlers really answer: every GET is called on seeded data and its answer, success or
// error, is checked against the document's schema for that status.
import { Ajv2020 } from "ajv/dist/2020";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Backend } from "@fleet/backend";

import * as openapiRoute from "@/app/api/v1/openapi.json/route";
import { clearAuth, configureAuth, ORIGIN, TOKENS } from "@/server/auth/test/auth-env";
import { resetEventHub } from "@/server/events";

import { declaredRoute } from "../route";
import { endpoints, handlerOf, type Endpoint } from "../test/route-walk";
import { ERROR_RESPONSES, openApiDocument, resolveOperations, ROLE_EXTENSION, type OpenApiDocument } from "./document";
import { ROUTE_TABLE } from "./route-table";

type Json = Record<string, unknown>;
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

let doc: OpenApiDocument;
let backend: Backend;

beforeAll(async () => {
  backend = await configureAuth("memory://openapi-test");
  doc = await openApiDocument();
});

afterAll(async () => {
  await resetEventHub();
  await clearAuth();
});

/** `GET /v1/workers/[type]/[id]`, as the route walk names endpoints. */
function operationKeys(d: OpenApiDocument): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(d.paths)) {
    for (const method of Object.keys(item)) {
      if (METHODS.includes(method)) out.push(`${method.toUpperCase()} /v1${path.replace(/\{([^}]+)\}/g, "[$1]")}`);
    }
  }
  return out.sort();
}

function operations(d: OpenApiDocument): Array<{ path: string; method: string; op: Json }> {
  return Object.entries(d.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ path, method, op: op as Json })),
  );
}

/** Resolves a local JSON Pointer ref (`#/components/schemas/Worker`) in the document. */
function resolve(d: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = d;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

function refs(value: unknown, at = "#", out: Array<{ at: string; ref: string }> = []): Array<{ at: string; ref: string }> {
  if (Array.isArray(value)) for (const [i, v] of value.entries()) refs(v, `${at}/${i}`, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push({ at, ref: v });
      else refs(v, `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, out);
    }
  }
  return out;
}

describe("the document names exactly the routes that exist", () => {
  it("every method of every route.ts (the route walk) is an operation, and every operation is a method of a route.ts", () => {
    const walked = endpoints()
      .map((e) => e.key)
      .sort();
    const documented = operationKeys(doc);
    const missing = walked.filter((k) => !documented.includes(k));
    const extra = documented.filter((k) => !walked.includes(k));
    expect(missing, "routes missing from the document: add them to src/server/api/openapi/route-table.ts").toEqual([]);
    expect(extra, "operations in the document that no route.ts exports").toEqual([]);
    expect(walked.length).toBeGreaterThanOrEqual(40);
  });

  it("the route table lists each route.ts once, with the path its route() declares", async () => {
    const paths = ROUTE_TABLE.map((e) => e.path);
    expect(new Set(paths).size).toBe(paths.length);
    const ops = await resolveOperations();
    for (const op of ops) if (op.spec) expect(op.spec.path, `${op.method} ${op.path}`).toBe(op.path);
  });

  it("every operation of a route() handler names the role that route declares", async () => {
    for (const e of endpoints()) {
      const handler = await handlerOf(e);
      const declared = declaredRoute(handler);
      const op = opOf(e);
      if (declared) expect(op[ROLE_EXTENSION], e.key).toBe(declared.role);
      else expect(["public", "viewer", "operator", "admin"], e.key).toContain(op[ROLE_EXTENSION]);
      // a role is a security requirement too: none for the public operations
      if (op[ROLE_EXTENSION] === "public") expect(op.security, e.key).toEqual([]);
      else expect((op.security as unknown[]).length, e.key).toBeGreaterThan(0);
    }
  });

  it("the role is enforced as documented: a stranger gets 401 from every guarded operation and never from a public one", async () => {
    for (const e of endpoints()) {
      const op = opOf(e);
      const res = await call(e, {}, e.method === "GET" ? undefined : {});
      if (op[ROLE_EXTENSION] === "public") expect(res.status, e.key).not.toBe(401);
      else expect(res.status, e.key).toBe(401);
      if (res.status >= 400) expect(documentedStatuses(op), `${e.key} answered ${res.status}, which the document does not list`).toContain(String(res.status));
    }
  });
});

function opOf(e: Endpoint): Json {
  const path = e.apiPath.replace(/^\/v1/, "").replace(/\[([^\]]+)\]/g, "{$1}");
  const op = (doc.paths[path] as Json | undefined)?.[e.method.toLowerCase()] as Json | undefined;
  if (!op) throw new Error(`${e.key} is not in the document`);
  return op;
}

function documentedStatuses(op: Json): string[] {
  return Object.keys(op.responses as Json);
}

describe("the document is structurally sound", () => {
  it("is OpenAPI 3.1 with info, servers, tags, and the error envelope", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: "1" });
    expect(doc.servers).toEqual([{ url: "/api/v1" }]);
    expect(Object.keys(doc.components.schemas as Json)).toContain("ErrorEnvelope");
  });

  it("every $ref resolves", () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(100);
    const broken = all.filter(({ ref }) => resolve(doc, ref) === undefined);
    expect(broken).toEqual([]);
  });

  it("every component is used, every tag used is declared, and operation ids are unique", () => {
    const used = new Set(refs(doc).map((r) => r.ref));
    const schemas = Object.keys(doc.components.schemas as Json);
    expect(schemas.filter((n) => !used.has(`#/components/schemas/${n}`))).toEqual([]);
    const responses = Object.keys(doc.components.responses as Json);
    expect(responses.filter((n) => !used.has(`#/components/responses/${n}`))).toEqual([]);
    const declaredTags = new Set((doc.tags as Array<{ name: string }>).map((t) => t.name));
    const ids: string[] = [];
    for (const { path, method, op } of operations(doc)) {
      for (const tag of op.tags as string[]) expect(declaredTags, `${method} ${path} tag ${tag}`).toContain(tag);
      ids.push(op.operationId as string);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
  });

  it("every path parameter is declared once as required, and every declared one is in the path", () => {
    for (const { path, method, op } of operations(doc)) {
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const params = (op.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
      const declared = params.filter((p) => p.in === "path");
      expect(declared.map((p) => p.name).sort(), `${method} ${path}`).toEqual([...inTemplate].sort());
      for (const p of declared) expect(p.required, `${method} ${path} ${p.name}`).toBe(true);
      // each says what it names (not just its own name)
      for (const p of declared) expect((p as { description?: string }).description, `${method} ${path} ${p.name}`).toMatch(/^[A-Z][^.]+\. URL-encoded/);
      // no parameter twice (name + location), each with a schema
      const keys = params.map((p) => `${p.in}:${p.name}`);
      expect(new Set(keys).size, `${method} ${path}`).toBe(keys.length);
      for (const p of params) expect(p.schema, `${method} ${path} ${p.name}`).toBeDefined();
    }
  });

  it("every operation has a success answer and the errors of the route wrapper; every response has a description", () => {
    for (const { path, method, op } of operations(doc)) {
      const statuses = Object.keys(op.responses as Json);
      expect(
        statuses.some((s) => /^2\d\d$/.test(s)),
        `${method} ${path}`,
      ).toBe(true);
      expect(statuses, `${method} ${path}`).toContain("421");
      if (op[ROLE_EXTENSION] !== "public") expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(["401", "403"]));
      if (method !== "get") expect(statuses, `${method} ${path}`).toContain("415");
      if (path.includes("{")) expect(statuses, `${method} ${path}`).toContain("404");
      if (op.requestBody) expect(statuses, `${method} ${path}`).toContain("413");
      for (const [status, r] of Object.entries(op.responses as Json)) {
        const response = ((r as Json).$ref ? resolve(doc, (r as Json).$ref as string) : r) as Json;
        expect(typeof response.description, `${method} ${path} ${status}`).toBe("string");
      }
    }
    // the config writes take If-Match and document 412
    const patch = (doc.paths["/workers/{type}/{id}/config"] as Json).patch as Json;
    expect((patch.parameters as Array<{ name: string }>).map((p) => p.name)).toContain("If-Match");
    expect(Object.keys(patch.responses as Json)).toContain("412");
  });

  it("query parameters are those of each route's query schema, optional where the route has a default", () => {
    const list = (doc.paths["/workers"] as Json).get as Json;
    const names = (list.parameters as Array<{ name: string; required: boolean; in: string }>).filter((p) => p.in === "query");
    expect(names.map((p) => p.name).sort()).toEqual(["error_group", "limit", "offset", "q", "sort", "status", "type"]);
    expect(names.every((p) => p.required === false)).toBe(true);
    const events = (doc.paths["/events"] as Json).get as Json;
    expect((events.parameters as Array<{ name: string }>).map((p) => p.name)).toEqual(["topics"]);
  });

  it("every schema compiles as JSON Schema 2020-12", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(doc as object, "openapi.json");
    for (const name of Object.keys(doc.components.schemas as Json)) {
      expect(() => ajv.getSchema(`openapi.json#/components/schemas/${name}`), name).not.toThrow();
    }
    for (const { path, method, op } of operations(doc)) {
      const bodies = Object.values(((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, { schema: object }>);
      for (const b of bodies) expect(() => ajv.compile(b.schema), `${method} ${path} body`).not.toThrow();
    }
  });
});

// ---- the document against the handlers' real answers

async function call(e: Endpoint, headers: Record<string, string>, body?: unknown, url?: string): Promise<{ status: number; json: unknown; type: string }> {
  const handler = await handlerOf(e);
  const abort = new AbortController();
  const init: RequestInit = { method: e.method, headers: { ...headers }, signal: abort.signal };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const target = url ?? `${ORIGIN}/api${e.apiPath.replace(/\[([^\]]+)\]/g, "x-$1")}`;
  const res = await handler(new Request(target, init), { params: Promise.resolve({}) });
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("application/json")) {
    abort.abort();
    await res.body?.cancel().catch(() => undefined);
    return { status: res.status, json: null, type };
  }
  return { status: res.status, json: await res.json(), type };
}

describe("the document describes the real answers", () => {
  const names = { type: "scraper", id: "w-1", name: "", ns: "settings", key: "flags" };
  const AUDIT_ID = "0123456789abcdef";

  beforeAll(async () => {
    await backend.catalogSet("scraper", JSON.stringify({ config: { type: "object" }, output: null, task_payload: null }));
    await backend.workerRegister("scraper", "w-1", { hostname: "h1", cpus: 2 });
    await backend.workerSetState("scraper", "w-1", "RUNNING", null, Date.now() / 1000);
    await backend.workerSetConfig("scraper", "w-1", { slots: 2 });
    await backend.workerStatsPush("scraper", "w-1", Date.now() / 1000, { pages: 3 });
    await backend.queuePushMany("scraper", [{ body: JSON.stringify({ id: "a".repeat(32), payload: { u: 1 } }) }]);
    await backend.queueDead("scraper", JSON.stringify({ id: "b".repeat(32), payload: {} }));
    await backend.poolPut("scraper", "p-1", "payload", { region: "eu" });
    await backend.streamPush("scraper", JSON.stringify({ ts: 1, data: 1 }), { score: 1, maxLen: 10, ttlSeconds: 60 });
    await backend.lockAcquire("nightly", 60, 0);
    await backend.counterSet("pages", 7);
    await backend.kvSet("settings", "flags", JSON.stringify({ beta: true }), null);
    // a finished bulk job of queue "scraper" under the id the walk fills [id] with
    await backend.bulkJobCreate(
      "w-1",
      JSON.stringify({ queue: "scraper", action: "delete-dead", q: "x", where: null, rate: 10, expected: 0, created_at: 1, created_by: "vera", role: "operator" }),
    );
    await backend.bulkJobSet("w-1", { state: "done" });
    // the changes kept beside an audit entry (GET /audit/{id}/changes)
    await backend.auditChangesPut(AUDIT_ID, [JSON.stringify({ worker_id: "w-1", before: { slots: 1 }, after: { slots: 2 } })], 60);
  });

  /** The URL of a route filled with seeded names ("scraper" for queues, pools, streams too). */
  function urlFor(apiPath: string, missing = false): string {
    const filled = apiPath.replace(/\[([^\]]+)\]/g, (_, p: string) => {
      const v =
        p === "name"
          ? /\/(locks)\//.test(apiPath)
            ? "nightly"
            : /\/counters\//.test(apiPath)
              ? "pages"
              : "scraper"
          : p === "id" && apiPath.includes("/audit/")
            ? missing
              ? "fedcba9876543210"
              : AUDIT_ID
            : p === "id"
              ? apiPath.includes("/items/")
                ? "p-1"
                : "w-1"
              : names[p as keyof typeof names];
      return encodeURIComponent(missing && !apiPath.includes("/audit/") ? `${v}-absent` : v);
    });
    return `${ORIGIN}/api${filled}`;
  }

  function validatorFor(op: Json, status: string, type = "application/json") {
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(doc as object, "openapi.json");
    let response = (op.responses as Json)[status] as Json | undefined;
    if (!response) return null;
    if (response.$ref) response = resolve(doc, response.$ref as string) as Json;
    const schema = ((response.content as Json)[type] as Json).schema as Json;
    // refs inside point at the document's root
    return ajv.compile({ $ref: `openapi.json#${pointerTo(schema)}` });
  }

  /** Where `target` sits in the document, as a JSON Pointer. */
  function pointerTo(target: unknown): string {
    const seen = new Set<unknown>();
    const walk = (node: unknown, at: string): string | null => {
      if (node === target) return at;
      if (node === null || typeof node !== "object" || seen.has(node)) return null;
      seen.add(node);
      for (const [k, v] of Object.entries(node)) {
        const found = walk(v, `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`);
        if (found !== null) return found;
      }
      return null;
    };
    const p = walk(doc, "");
    if (p === null) throw new Error("schema not in the document");
    return p;
  }

  it("every JSON GET answers, on seeded data and for a missing name, as its documented schema for that status says", async () => {
    const auth = { authorization: `Bearer ${TOKENS.admin}` };
    let checked = 0;
    for (const e of endpoints().filter((x) => x.method === "GET")) {
      const op = opOf(e);
      for (const missing of e.apiPath.includes("[") ? [false, true] : [false]) {
        const res = await call(e, auth, undefined, urlFor(e.apiPath, missing));
        const status = String(res.status);
        // seeded names answer 200, made-up ones 404 (the memory backend knows no automation "scraper-absent")
        expect(res.status, `${e.key}${missing ? " (missing)" : ""}`).toBe(missing ? 404 : 200);
        expect(documentedStatuses(op), `${e.key}${missing ? " (missing)" : ""} answered ${status}`).toContain(status);
        if (!res.type.includes("application/json")) continue;
        const validate = validatorFor(op, status)!;
        expect(validate(res.json) ? [] : validate.errors, `${e.key} ${status}: ${JSON.stringify(res.json).slice(0, 300)}`).toEqual([]);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(30);
  });

  it("a stale If-Match answers 412 and a bad body 422, each as documented; a good write as its 200 schema says", async () => {
    const e = endpoints().find((x) => x.key === "PATCH /v1/workers/[type]/[id]/config")!;
    const op = opOf(e);
    const headers = { authorization: `Bearer ${TOKENS.admin}` };
    const stale = await call(e, { ...headers, "if-match": '"999"' }, { slots: 3 }, urlFor(e.apiPath));
    expect(stale.status).toBe(412);
    expect(validatorFor(op, "412")!(stale.json)).toBe(true);
    const good = await call(e, headers, { slots: 3 }, urlFor(e.apiPath));
    expect(good.status).toBe(200);
    expect(validatorFor(op, "200")!(good.json)).toBe(true);
    // the 412 schema is specific: a 404 envelope does not pass it
    expect(validatorFor(op, "412")!({ error: { code: "not_found", message: "x" } })).toBe(false);

    const dead = endpoints().find((x) => x.key === "POST /v1/queues/[name]/dead/requeue")!;
    const bad = await call(dead, headers, { refs: ["nope"] }, urlFor(dead.apiPath));
    expect(bad.status).toBe(422);
    expect(validatorFor(opOf(dead), "422")!(bad.json)).toBe(true);
  });

  it("GET /openapi.json serves the document to a viewer, and refuses a stranger", async () => {
    const ok = await openapiRoute.GET(new Request(`${ORIGIN}/api/v1/openapi.json`, { headers: { authorization: `Bearer ${TOKENS.viewer}` } }));
    expect(ok.status).toBe(200);
    const served = (await ok.json()) as OpenApiDocument;
    expect(operationKeys(served)).toEqual(operationKeys(doc));
    expect(served).toEqual(JSON.parse(JSON.stringify(doc)));
    const refused = await openapiRoute.GET(new Request(`${ORIGIN}/api/v1/openapi.json`));
    expect(refused.status).toBe(401);
  });

  it("names each error status it lists in components.responses with its envelope code", () => {
    for (const [status, e] of Object.entries(ERROR_RESPONSES)) {
      const r = (doc.components.responses as Json)[e.name] as Json;
      expect(r.description as string, status).toContain(e.code);
    }
  });
});
