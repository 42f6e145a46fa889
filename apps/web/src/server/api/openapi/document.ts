// The OpenAPI 3.1 document of the HTTP API, served at GET /api/v1/openapi.json and shown on
// /api-docs. Generated, never written by hand: the operations from the route table
// (./route-table.ts) and what each route({...}) declared (declaredSpec: role, query, body,
// response, status), the schemas from the zod schemas themselves (z.toJSONSchema, JSON Schema
// 2020-12, which OpenAPI 3.1 uses as is). Responses are described as the routes send them
// (zod's output side), query parameters and bodies as clients send them (the input side:
// a parameter with a default is optional).
import "server-only";

import * as schemas from "@fleet/schema";
import { ErrorEnvelopeSchema, LiveEventSchema, type Role } from "@fleet/schema";
import { z } from "zod";

import { declaredSpec, type DeclaredSpec } from "../route";
import { PATH_PARAM_DESCRIPTIONS, QUERY_PARAM_DESCRIPTIONS, ROUTE_TABLE, type HttpMethod, type ManualOperation, type OperationInfo } from "./route-table";

export type JsonSchema = Record<string, unknown>;

/** One parameter of an operation (path, query or header). */
export type OpenApiParameter = {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  description: string;
  schema: JsonSchema;
};

/** One operation as the document describes it (and /api-docs renders it). */
export type OpenApiOperation = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  [ROLE_EXTENSION]: Role | "public";
  security: Array<Record<string, string[]>>;
  "x-fleet-extension"?: true;
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, JsonSchema>;
  [EVENTS_EXTENSION]?: Record<string, JsonSchema>;
};

/** The error answers under components.responses, by name. */
export type OpenApiErrorResponse = {
  description: string;
  headers?: Record<string, JsonSchema>;
  content: Record<string, { schema: JsonSchema }>;
};

/** What openApiDocument() builds: OpenAPI 3.1, the parts this console fills in, typed. */
export type BuiltOpenApiDocument = {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, OpenApiErrorResponse>; securitySchemes: Record<string, JsonSchema> };
};

/** What GET /openapi.json answers, as far as the route checks it. */
export const OpenApiDocumentSchema = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.looseObject({})),
  components: z.looseObject({}),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocumentSchema>;

export const OPENAPI_VERSION = "3.1.1";
const REF = "#/components/schemas/";

/** Tags by the first path segment below /api/v1, in the order the reference shows them. */
export const TAGS: Array<{ name: string; description: string; segments: string[] }> = [
  { name: "Workers", description: "Worker hosts' slots: state, config, stats history.", segments: ["workers"] },
  { name: "Automations", description: "Automation types: catalog schemas, fleet-wide config rollouts, task submission.", segments: ["automations"] },
  { name: "Queues", description: "Task queues, their items, dead letters and sweeps.", segments: ["queues"] },
  { name: "Errors", description: "Error groups: dead letters' and workers' last_error grouped by the normalised message.", segments: ["errors"] },
  { name: "Pools", description: "Resource pools and their claims.", segments: ["pools"] },
  { name: "Streams", description: "Output streams of the automations.", segments: ["streams"] },
  { name: "State", description: "Locks, counters and key-value namespaces.", segments: ["locks", "counters", "kv"] },
  { name: "Live events", description: "Server-Sent Events: bus messages and changes of workers, queues, pools and streams.", segments: ["events"] },
  { name: "Watch", description: "Queue history (depths and throughput over time) and alerts: rules, what fires, deliveries.", segments: ["history", "alerts"] },
  { name: "Audit", description: "The console's audit trail (admin).", segments: ["audit"] },
  { name: "Authentication", description: "Sign-in, sign-out and who is asking.", segments: ["auth"] },
  { name: "Service", description: "Health, Prometheus metrics and this document.", segments: ["health", "metrics", "openapi.json"] },
];

/** Error responses (components.responses), by status: name and when. */
export const ERROR_RESPONSES: Record<number, { name: string; code: string; description: string }> = {
  400: { name: "BadRequest", code: "bad_request", description: "Malformed JSON, a bad query parameter, header or path segment, or an out-of-range count." },
  401: { name: "Unauthenticated", code: "unauthenticated", description: "No valid credentials." },
  403: { name: "Forbidden", code: "forbidden", description: "The caller's role is too low, or a browser change came from another origin." },
  404: { name: "NotFound", code: "not_found", description: "No such thing, or a name that would build another structure's keys." },
  409: { name: "Conflict", code: "conflict", description: "The write would lose someone else's change, or the stored data cannot be changed this way." },
  412: { name: "PreconditionFailed", code: "precondition_failed", description: "The If-Match generation is stale." },
  413: { name: "PayloadTooLarge", code: "payload_too_large", description: "The body is over the limit (1 MiB)." },
  415: { name: "UnsupportedMediaType", code: "unsupported_media_type", description: "A change whose body is not declared application/json." },
  421: { name: "MisdirectedRequest", code: "misdirected_request", description: "The Host is not one this console answers to (FLEET_ALLOWED_HOSTS)." },
  422: { name: "ValidationFailed", code: "validation_failed", description: "The body fails its schema; details name each problem by JSON Pointer." },
  429: { name: "TooManyRequests", code: "too_many_requests", description: "Too many failed sign-ins, or too many at once; Retry-After says when to try again." },
  500: { name: "Internal", code: "internal", description: "An unexpected error; the server log has the cause." },
  503: {
    name: "BackendUnavailable",
    code: "backend_unavailable",
    description: "Redis is unreachable (or a session cannot be checked); the message names the URL without its password.",
  },
};

export const ROLE_EXTENSION = "x-fleet-role";
export const EVENTS_EXTENSION = "x-fleet-events";

export interface ResolvedOperation {
  path: string;
  method: HttpMethod;
  info: OperationInfo;
  /** null for a manual operation. */
  spec: DeclaredSpec | null;
}

/** Every operation of the route table with what its route() declared. */
export async function resolveOperations(): Promise<ResolvedOperation[]> {
  const out: ResolvedOperation[] = [];
  for (const entry of ROUTE_TABLE) {
    const mod = await entry.load();
    for (const [method, info] of Object.entries(entry.operations) as Array<[HttpMethod, OperationInfo]>) {
      const handler = mod[method];
      if (typeof handler !== "function") throw new Error(`route table: ${method} ${entry.path} is not exported by its route.ts`);
      const spec = declaredSpec(handler) ?? null;
      if (spec === null && !info.manual) {
        throw new Error(`route table: ${method} ${entry.path} is not made by route(), so describe it by hand (manual)`);
      }
      if (spec !== null && info.manual) throw new Error(`route table: ${method} ${entry.path} is made by route(); drop its manual description`);
      if (spec !== null && spec.path !== entry.path) throw new Error(`route table: ${entry.path} declares route({ path: "${spec.path}" })`);
      if (spec?.body === "json" && !info.body) throw new Error(`route table: ${method} ${entry.path} checks its own JSON body; give its shape (body)`);
      out.push({ path: entry.path, method, info, spec });
    }
  }
  return out;
}

function tagOf(path: string): string {
  const first = path.split("/")[1] ?? "";
  const tag = TAGS.find((t) => t.segments.includes(first));
  if (!tag) throw new Error(`OpenAPI: no tag for ${path} (add its first segment to TAGS)`);
  return tag.name;
}

/** `/workers/[type]/[id]` -> `/workers/{type}/{id}` */
export function openApiPath(path: string): string {
  return path.replace(/\[([^\]]+)\]/g, "{$1}");
}

function strip(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** A zod schema as a self-contained JSON Schema (request side: what a client sends). */
function inputSchema(schema: z.ZodType): JsonSchema {
  return strip(z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any", reused: "inline" }) as JsonSchema);
}

/**
 * Named components: every schema @fleet/schema exports (`FooSchema` -> `Foo`) and the
 * console's own answers, converted together so that one refers to another by $ref. Only
 * those the document reaches are kept (see prune()).
 */
function namedSchemas(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  const add = (schema: unknown, name: string) => {
    if (schema instanceof z.ZodType && !names.has(schema)) names.set(schema, name);
  };
  // One object exported under several names (JsonObjectSchema = ConfigBodySchema = ...): the general name wins.
  add(schemas.JsonObjectSchema, "JsonObject");
  for (const [key, value] of Object.entries(schemas)) if (key.endsWith("Schema")) add(value, key.slice(0, -"Schema".length));
  add(OpenApiDocumentSchema, "OpenApiDocument");
  return names;
}

function refsIn(value: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.add(v);
      else refsIn(v, out);
    }
  }
  return out;
}

/** The components reachable from `roots`, transitively. */
function prune(all: Record<string, JsonSchema>, roots: unknown): Record<string, JsonSchema> {
  const keep = new Set<string>();
  const queue = [...refsIn(roots, new Set())];
  while (queue.length > 0) {
    const ref = queue.pop()!;
    if (!ref.startsWith(REF)) continue;
    const name = ref.slice(REF.length);
    if (keep.has(name) || !all[name]) continue;
    keep.add(name);
    queue.push(...refsIn(all[name], new Set()));
  }
  return Object.fromEntries([...keep].sort().map((n) => [n, all[n]!]));
}

function queryParameters(schema: z.ZodType): OpenApiParameter[] {
  const json = inputSchema(schema);
  const props = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: "query" as const,
      required: required.has(name),
      description: typeof description === "string" ? description : (QUERY_PARAM_DESCRIPTIONS[name] ?? name),
      schema: rest,
    };
  });
}

function pathParameters(path: string): OpenApiParameter[] {
  const segs = path.split("/");
  return segs.flatMap((seg, i) => {
    const m = /^\[([^\]]+)\]$/.exec(seg);
    if (!m) return [];
    const name = m[1]!;
    const before = (segs[i - 1] ?? "").replace(/^\[|\]$/g, "");
    const after = (segs[i + 1] ?? "").replace(/^\[|\]$/g, "");
    const description = PATH_PARAM_DESCRIPTIONS[`${before}/${name}`] ?? PATH_PARAM_DESCRIPTIONS[`${name}/${after}`] ?? name;
    return [
      {
        name,
        in: "path" as const,
        required: true,
        description: `${description} URL-encoded; may contain \`:\`, \`.\`, \`-\`, \`_\` and any UTF-8.`,
        schema: { type: "string", minLength: 1 },
      },
    ];
  });
}

const isMutation = (m: HttpMethod) => m !== "GET";

/** The error statuses an operation made by route() can answer, by what it declares. */
export function routeErrors(op: ResolvedOperation): number[] {
  const spec = op.spec!;
  const set = new Set<number>([401, 403, 421, 500, 503, ...(op.info.errors ?? [])]);
  const hasPathParams = op.path.includes("[");
  if (spec.query || hasPathParams || spec.body !== undefined || op.info.ifMatch) set.add(400);
  if (hasPathParams) set.add(404);
  if (isMutation(op.method)) set.add(415);
  if (spec.body !== undefined) {
    set.add(413);
    set.add(422);
  }
  if (op.info.ifMatch) set.add(412);
  return [...set].sort((a, b) => a - b);
}

function errorResponseRef(status: number): Record<string, string> {
  const e = ERROR_RESPONSES[status];
  if (!e) throw new Error(`OpenAPI: no error response for ${status}`);
  return { $ref: `#/components/responses/${e.name}` };
}

function errorComponents(): Record<string, OpenApiErrorResponse> {
  const out: Record<string, OpenApiErrorResponse> = {};
  for (const [status, e] of Object.entries(ERROR_RESPONSES)) {
    const schema = { allOf: [{ $ref: `${REF}ErrorEnvelope` }, { properties: { error: { properties: { code: { const: e.code } } } } }] };
    out[e.name] = {
      description: `${status} \`${e.code}\`: ${e.description}`,
      ...(Number(status) === 429 ? { headers: { "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } } } } : {}),
      content: { "application/json": { schema } },
    };
  }
  return out;
}

const SECURITY: Array<Record<string, string[]>> = [{ bearerToken: [] }, { sessionCookie: [] }, { ssoProxy: [] }];

interface Built {
  doc: BuiltOpenApiDocument;
}

async function build(): Promise<Built> {
  const ops = await resolveOperations();
  const names = namedSchemas();
  // every route's answer is a component: named after its schema, or after its operation
  for (const op of ops) {
    const response = op.spec?.response ?? op.info.manual?.success.schema;
    if (response && !names.has(response)) names.set(response, `${op.info.operationId[0]!.toUpperCase()}${op.info.operationId.slice(1)}Response`);
  }
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of names) registry.add(schema, { id });
  const converted = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "output",
    unrepresentable: "any",
    uri: (id) => `${REF}${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  const allSchemas = Object.fromEntries(Object.entries(converted.schemas).map(([k, v]) => [k, strip(v)]));
  const ref = (schema: z.ZodType) => ({ $ref: `${REF}${names.get(schema)!}` });

  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  for (const op of ops) {
    const { info, method, spec } = op;
    const manual: ManualOperation | undefined = info.manual;
    const role = spec ? spec.role : manual!.role;
    const parameters = [...pathParameters(op.path)];
    const query = spec?.query ?? manual?.query;
    if (query) parameters.push(...queryParameters(query));
    if (info.ifMatch) {
      parameters.push({
        name: "If-Match",
        in: "header",
        required: false,
        description: 'The config generation the change was made against, quoted as the ETag gives it ("3"); `*` or no header: no check. Stale: 412.',
        schema: { type: "string" },
      });
    }

    const operation: OpenApiOperation = {
      operationId: info.operationId,
      summary: info.summary,
      ...(info.description ? { description: info.description } : {}),
      tags: [tagOf(op.path)],
      [ROLE_EXTENSION]: role,
      security: role === "public" ? [] : SECURITY,
      ...(info.extension ? { "x-fleet-extension": true } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: {},
    };

    const bodySchema = spec ? (spec.body === "json" ? info.body : spec.body) : manual?.body?.schema;
    if (bodySchema) {
      const schema = inputSchema(bodySchema);
      const types = ["application/json", ...(info.bodyTypes ?? [])];
      operation.requestBody = {
        required: spec ? true : manual!.body!.required,
        content: Object.fromEntries(types.map((t) => [t, { schema }])),
      };
    }

    const responses = operation.responses;
    if (spec) {
      const headers =
        info.ifMatch || info.etag
          ? { ETag: { description: 'The config generation, quoted ("3"): what a config write sends back as If-Match.', schema: { type: "string" } } }
          : undefined;
      responses[String(spec.status)] = {
        description: info.summary,
        ...(headers ? { headers } : {}),
        content: { "application/json": { schema: ref(spec.response) } },
      };
      for (const status of routeErrors(op)) responses[String(status)] = errorResponseRef(status);
    } else {
      const s = manual!.success;
      responses[String(s.status)] = {
        description: s.description,
        content: { [s.contentType]: { schema: s.schema ? ref(s.schema) : { type: "string" } } },
      };
      for (const status of [...manual!.errors].sort((a, b) => a - b)) responses[String(status)] = errorResponseRef(status);
    }
    if (op.path === "/events") {
      operation[EVENTS_EXTENSION] = Object.fromEntries(LiveEventSchema.options.map((o) => [o.shape.event.value, ref(o.shape.data as z.ZodType)]));
    }
    (paths[openApiPath(op.path)] ??= {})[method.toLowerCase()] = operation;
  }

  const responses = errorComponents();
  const components = {
    schemas: prune(allSchemas, { paths, responses, errorEnvelope: ref(ErrorEnvelopeSchema) }),
    responses,
    securitySchemes: {
      bearerToken: {
        type: "http",
        scheme: "bearer",
        description: "An API token (FLEET_AUTH_TOKENS lists name:role:sha256-of-the-token; `pnpm hash-password --token <name> <role>` makes one).",
      },
      sessionCookie: {
        type: "apiKey",
        in: "cookie",
        name: "__Host-fleet_session",
        description: "The session cookie of a signed-in user (POST /auth/signin); `fleet_session` on plain-http loopback. Changes also need a same-origin request.",
      },
      ssoProxy: {
        type: "apiKey",
        in: "header",
        name: "X-Forwarded-User",
        description: "A trusted SSO proxy names the user (FLEET_AUTH_PROXY_USER_HEADER; honoured only from FLEET_AUTH_TRUSTED_PROXIES).",
      },
    },
  };

  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  const doc: BuiltOpenApiDocument = {
    openapi: OPENAPI_VERSION,
    info: {
      title: "Fleet Console HTTP API",
      version: "1",
      description:
        "The contract of API.md (version 1) and the console's extensions (marked x-fleet-extension). Every error answers one envelope " +
        '{"error": {"code", "message", "details"}}. Each operation names the role it needs in x-fleet-role (viewer < operator < admin, or public).',
    },
    servers: [{ url: "/api/v1" }],
    tags: TAGS.map(({ name, description }) => ({ name, description })),
    paths: sortedPaths,
    components,
  };
  return { doc };
}

let cached: Promise<Built> | null = null;

/** The document, built once per process (the routes and schemas do not change while it runs). */
export async function openApiDocument(): Promise<BuiltOpenApiDocument> {
  if (!cached) {
    cached = build();
    cached.catch(() => {
      cached = null;
    });
  }
  return (await cached).doc;
}
