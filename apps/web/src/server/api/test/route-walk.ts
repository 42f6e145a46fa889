// Every API route, found by walking src/app/api for route.ts files, so that tests which claim
// "every route" cover every route, a new one included. The HTTP methods each file exports are
// read from its source (how each is made, too: route({ role }) or not).
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const API_DIR = path.join(SRC, "app", "api");
export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type Handler = (request: Request, context?: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface RouteFile {
  /** Below /api, with [param] segments: /v1/workers/[type]/[id]. */
  apiPath: string;
  file: string;
}

export interface Endpoint extends RouteFile {
  method: HttpMethod;
  /** "GET /v1/workers/[type]/[id]" */
  key: string;
}

export interface ExportedMethod {
  /** `export const M = route({` */
  wrapped: boolean;
  /** The `role:` of that route({...}), or null. */
  role: string | null;
}

function walk(dir: string): RouteFile[] {
  const out: RouteFile[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.name === "route.ts") out.push({ apiPath: `/${path.relative(API_DIR, dir).split(path.sep).join("/")}`, file: p });
  }
  return out;
}

export function routeFiles(): RouteFile[] {
  return walk(API_DIR).sort((a, b) => a.apiPath.localeCompare(b.apiPath));
}

export function routeSource(apiPath: string): string {
  return readFileSync(path.join(API_DIR, apiPath, "route.ts"), "utf8");
}

/** The HTTP methods a route.ts exports, read from its source, and how each is made. */
export function exportedMethods(src: string): Map<HttpMethod, ExportedMethod> {
  const out = new Map<HttpMethod, ExportedMethod>();
  const names = HTTP_METHODS.join("|");
  for (const m of src.matchAll(new RegExp(`^export\\s+(?:const|let|var)\\s+(${names})\\s*=\\s*([^\\n]*)`, "gm"))) {
    const wrapped = /^route\(\{/.test(m[2]!);
    // the role: inside this route({...}), before the next export
    const rest = src.slice(m.index! + m[0].length);
    const next = rest.search(/^export\s/m);
    const body = next === -1 ? rest : rest.slice(0, next);
    out.set(m[1] as HttpMethod, { wrapped, role: wrapped ? (/^\s*role:\s*"(\w+)"/m.exec(body)?.[1] ?? null) : null });
  }
  for (const m of src.matchAll(new RegExp(`^export\\s+(?:async\\s+)?function\\s+(${names})\\b`, "gm"))) {
    out.set(m[1] as HttpMethod, { wrapped: false, role: null });
  }
  for (const m of src.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const part of m[1]!.split(",")) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop()!;
      if ((HTTP_METHODS as readonly string[]).includes(name)) out.set(name as HttpMethod, { wrapped: false, role: null });
    }
  }
  return out;
}

/** Every method of every route.ts. */
export function endpoints(): Endpoint[] {
  return routeFiles().flatMap((f) => [...exportedMethods(readFileSync(f.file, "utf8")).keys()].map((method) => ({ ...f, method, key: `${method} ${f.apiPath}` })));
}

/** The URL of a route with each `[param]` filled in as `x-param` (an audit entry's id, which must be 16 hex digits, as one). */
export function urlOf(apiPath: string, origin = "http://localhost"): string {
  return `${origin}/api${apiPath.replace(/\[([^\]]+)\]/g, (_, p: string) => (p === "id" && apiPath.startsWith("/v1/audit/") ? "0123456789abcdef" : `x-${p}`))}`;
}

export async function loadRoute(file: string): Promise<Record<string, unknown>> {
  return (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
}

export async function handlerOf(e: Endpoint): Promise<Handler> {
  const h = (await loadRoute(e.file))[e.method];
  if (typeof h !== "function") throw new Error(`${e.key}: ${e.file} exports no ${e.method} function`);
  return h as Handler;
}
