// The one wrapper every API v1 route handler goes through: authorize, parse path
// params, query and body with zod, resolve the backend, run the handler, check the
// answer against its schema, and map every failure to the one error envelope.
import { automationTypeProblem, poolNameProblem, queueNameProblem, type Backend } from "@fleet/backend";
import type { z } from "zod";

import { actionFor, auditAfter, auditBefore, buildEntry, currentScope, failedEntry, keepFleetChanges, runInAuditScope } from "@/server/audit/audit";
import { recordRefusal } from "@/server/audit/refusals";
import { isMutation } from "@/server/auth/csrf";
import { identify } from "@/server/auth/identify";
import { getBackend } from "@/server/backend";
import { serverEnv } from "@/server/env";

import { authorize, type Principal, type Role } from "./authorize";
import { parseJsonBody, readBodyBytes } from "./body";
import { ApiError, badRequest, jsonResponse, notFound, toErrorResponse, validationFailed, zodDetails } from "./errors";
import { nowSeconds } from "./serialize";

/** Names of the `[param]` segments of a path template such as `/workers/[type]/[id]`. */
type ParamNames<S extends string> = S extends `${string}[${infer N}]${infer Rest}` ? N | ParamNames<Rest> : never;
export type PathParams<S extends string> = { [K in ParamNames<S>]: string };

/** What a handler may return instead of a bare body: a status and headers too. */
export class Reply<T> {
  constructor(
    readonly body: T,
    readonly init: { status?: number; headers?: HeadersInit } = {},
  ) {}
}

export interface RouteContext<P, Q, B> {
  request: Request;
  params: P;
  query: Q;
  body: B;
  backend: Backend;
  principal: Principal;
  /** Unix seconds at the start of the request: one clock for the whole answer. */
  now: number;
  offlineAfterSeconds: number;
}

type BodySpec = z.ZodType | "json" | undefined;
type BodyOf<B extends BodySpec> = B extends z.ZodType ? z.output<B> : B extends "json" ? unknown : undefined;
type QueryOf<Q> = Q extends z.ZodType ? z.output<Q> : Record<string, never>;

export interface RouteSpec<S extends string, Q extends z.ZodType | undefined, B extends BodySpec, R> {
  /** The path below /api/v1, with `[param]` segments; params are read from the request URL. */
  path: S;
  role: Role;
  /** Extra checks of the (already URL-decoded) path params; failures answer 400. */
  params?: z.ZodType<PathParams<S>, PathParams<S>>;
  query?: Q;
  /** A zod schema (failures answer 422) or "json" for any JSON the handler checks itself. */
  body?: B;
  response: z.ZodType<R>;
  /**
   * For answers too big to copy through zod (GET /workers: 1,000 rows): a hand-written
   * check of what `response` checks, run instead of it (null = valid; the answer is sent
   * as it is). A test must hold it to `response`; the OpenAPI document still reads `response`.
   */
  responseCheck?: (body: unknown) => string | null;
  /** Status of a successful answer (default 200). */
  status?: number;
  handler: (ctx: RouteContext<PathParams<S>, QueryOf<Q>, BodyOf<B>>) => Promise<R | Reply<R>>;
}

/** Next.js passes `params` as a Promise (v15+); its values are already URL-decoded. */
export interface NextRouteContext {
  params: Promise<Record<string, string | string[] | undefined>>;
}

export const API_BASE = "/api/v1";

/** What a handler made by `route()` declared, as the OpenAPI document (./openapi) reads it. */
export interface DeclaredSpec {
  path: string;
  role: Role;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType | "json";
  response: z.ZodType;
  status: number;
}

/** What each handler made by `route()` declared: the test that walks every route.ts reads it. */
const declared = new WeakMap<object, DeclaredSpec>();

export function declaredRoute(handler: unknown): { path: string; role: Role } | undefined {
  const d = declaredSpec(handler);
  return d ? { path: d.path, role: d.role } : undefined;
}

export function declaredSpec(handler: unknown): DeclaredSpec | undefined {
  return typeof handler === "function" ? declared.get(handler) : undefined;
}

export function route<S extends string, Q extends z.ZodType | undefined = undefined, B extends BodySpec = undefined, R = unknown>(
  spec: RouteSpec<S, Q, B, R>,
): (request: Request, context?: NextRouteContext) => Promise<Response> {
  const where = `${spec.path}`;
  const handler = async (request: Request, context?: NextRouteContext): Promise<Response> => {
    try {
      const principal = await authorize(request, spec.role, { expectsBody: spec.body !== undefined });
      const params = await readParams(spec, request, context);
      const query = readQuery(spec.query, request);
      let body: unknown;
      if (spec.body !== undefined) {
        const raw = parseJsonBody(await readBodyBytes(request));
        if (spec.body === "json") body = raw;
        else {
          const parsed = spec.body.safeParse(raw);
          if (!parsed.success) {
            const details = zodDetails(parsed.error);
            throw validationFailed(summarize("The request body is invalid", details), details);
          }
          body = parsed.data;
        }
      }
      const backend = await getBackend();
      const run = () =>
        spec.handler({
          request,
          params,
          query: query as QueryOf<Q>,
          body: body as BodyOf<B>,
          backend,
          principal,
          now: nowSeconds(),
          offlineAfterSeconds: serverEnv().FLEET_OFFLINE_AFTER_SECONDS,
        });
      // Every mutation leaves one audit entry, written before the change is made: no entry,
      // no change (src/server/audit/audit.ts).
      const result = !isMutation(request.method)
        ? await run()
        : await runInAuditScope(async () => {
            const auditParams = params as Record<string, string>;
            const pending = await auditBefore(backend, buildEntry(principal, request, spec.path, auditParams, 0));
            const scope = currentScope()!;
            scope.final = {
              pending,
              build: (status) => ({ ...buildEntry(principal, request, spec.path, auditParams, status, scope), id: pending.entry.id, ts: pending.entry.ts }),
            };
            let r: Awaited<ReturnType<typeof run>>;
            try {
              r = await run();
            } catch (err) {
              await auditAfter(backend, pending, failedEntry(pending.entry, err));
              throw err;
            }
            const status = (r instanceof Reply ? r.init.status : undefined) ?? spec.status ?? 200;
            // a fleet-wide config write of many workers keeps all their changes before its entry says so
            await keepFleetChanges(backend, pending.entry);
            // a handler that fixed its entry (fixAuditEntry: a bulk job completes it when it ends) gets exactly that one
            await auditAfter(backend, pending, scope.fixed?.status === status ? scope.fixed : scope.final.build(status));
            for (const fn of scope.after) {
              await fn().catch((err: unknown) => console.error(`[api] ${request.method} ${where}: after its audit entry:`, err instanceof Error ? err.message : err));
            }
            return r;
          });
      const reply = result instanceof Reply ? result : new Reply(result);
      if (spec.responseCheck) {
        const problem = spec.responseCheck(reply.body);
        if (problem !== null) {
          console.error(`[api] ${request.method} ${where}: the answer does not match its schema: ${problem}`);
          throw new Error("response failed its schema");
        }
        return jsonResponse(reply.init.status ?? spec.status ?? 200, reply.body, reply.init.headers);
      }
      const checked = spec.response.safeParse(reply.body);
      if (!checked.success) {
        console.error(`[api] ${request.method} ${where}: the answer does not match its schema`, checked.error.issues.slice(0, 10));
        throw new Error("response failed its schema");
      }
      return jsonResponse(reply.init.status ?? spec.status ?? 200, checked.data, reply.init.headers);
    } catch (err) {
      if (isMutation(request.method) && err instanceof ApiError && (err.code === "unauthenticated" || err.code === "forbidden")) {
        await recordRefusedMutation(spec.path, request, err);
      }
      return toErrorResponse(err, `${request.method} ${where}`);
    }
  };
  declared.set(handler, {
    path: spec.path,
    role: spec.role,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    response: spec.response,
    status: spec.status ?? 200,
  });
  return handler;
}

/** A mutation refused for its credentials, role or origin, into the audit trail (audit/refusals.ts). */
async function recordRefusedMutation(template: string, request: Request, err: ApiError): Promise<void> {
  let params: Record<string, string> = {};
  try {
    params = paramsFromUrl(template, request.url) ?? {};
  } catch {
    params = {};
  }
  const { action, target } = actionFor(request.method, template, params);
  // a 403 knows who was refused; a 401 does not (whatever it carried did not prove it)
  const id = err.code === "forbidden" ? identify(request.headers, nowSeconds()) : null;
  const principal = id?.kind === "principal" ? id.principal : null;
  await recordRefusal(request, { principal, action, target, status: err.status, reason: err.message });
}

function summarize(lead: string, details: Array<{ path: string; message: string }>): string {
  const first = details[0];
  if (!first) return `${lead}.`;
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? "s" : ""})` : "";
  return `${lead}: ${first.path || "the body"} ${first.message}${more}.`;
}

/**
 * Path params, taken from the request URL against the route's template so that every
 * segment is decoded exactly once (names may contain `%`, `:` and any UTF-8); Next's
 * own params are the fallback when the URL does not fit the template (rewrites).
 */
async function readParams<S extends string>(
  spec: RouteSpec<S, z.ZodType | undefined, BodySpec, unknown>,
  request: Request,
  context: NextRouteContext | undefined,
): Promise<PathParams<S>> {
  const names = [...spec.path.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]!);
  if (names.length === 0) return {} as PathParams<S>;
  let values = paramsFromUrl(spec.path, request.url);
  if (values === null) {
    const given = context ? await context.params : {};
    values = {};
    for (const name of names) {
      const v = given[name];
      if (typeof v === "string") values[name] = v;
    }
  }
  for (const name of names) {
    const v = values[name];
    if (v === undefined || v === "") throw badRequest(`The path parameter '${name}' is missing or empty.`);
    const problem = nameProblem(spec.path, name, v);
    if (problem !== null) throw notFound(`${problem[0]!.toUpperCase()}${problem.slice(1)}.`);
  }
  if (!spec.params) return values as PathParams<S>;
  const parsed = spec.params.safeParse(values);
  if (!parsed.success) {
    const details = zodDetails(parsed.error);
    throw badRequest(summarize("The path is invalid", details), details);
  }
  return parsed.data;
}

/**
 * Names that would build another structure's keys (a queue `x:dead`, a pool `p:claim:i`,
 * an automation `all`) are refused on every route, before anything is read or written:
 * by the ownership rules of the key layout no such thing can exist (404). Which rule
 * applies follows from the collection the parameter names: `/queues/[name]`,
 * `/pools/[name]`, `/automations/[type]`, `/workers/[type]/…`.
 */
const NAME_RULES: Record<string, (name: string) => string | null> = {
  queues: queueNameProblem,
  pools: poolNameProblem,
  automations: automationTypeProblem,
  workers: automationTypeProblem,
};

export function nameProblem(template: string, param: string, value: string): string | null {
  const segs = template.split("/");
  const i = segs.indexOf(`[${param}]`);
  const rule = i > 0 ? NAME_RULES[segs[i - 1]!] : undefined;
  return rule ? rule(value) : null;
}

export function paramsFromUrl(template: string, url: string): Record<string, string> | null {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return null;
  }
  const tpl = `${API_BASE}${template}`.split("/");
  const segs = pathname.replace(/\/+$/, "").split("/");
  if (segs.length !== tpl.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < tpl.length; i++) {
    const t = tpl[i]!;
    const s = segs[i]!;
    const m = /^\[([^\]]+)\]$/.exec(t);
    if (m) {
      try {
        out[m[1]!] = decodeURIComponent(s);
      } catch {
        throw badRequest(`The path segment '${s}' is not valid percent-encoded UTF-8.`);
      }
    } else if (t !== s) return null;
  }
  return out;
}

function readQuery(schema: z.ZodType | undefined, request: Request): unknown {
  if (!schema) return {};
  const search = new URL(request.url).searchParams;
  const raw: Record<string, string> = {};
  // the first value wins; an empty value counts as not given (`?limit=` = default)
  for (const [k, v] of search) if (!(k in raw) && v !== "") raw[k] = v;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    // query details name the parameter itself (`limit`), not a JSON Pointer
    const details = zodDetails(parsed.error).map((d) => ({ ...d, path: d.path.replace(/^\//, "") || "query" }));
    const first = details[0];
    const rest = details.length > 1 ? ` (and ${details.length - 1} more)` : "";
    throw badRequest(first ? `Invalid query parameter '${first.path}': ${first.message}${rest}.` : "Invalid query string.", details);
  }
  return parsed.data;
}

export { ApiError };
