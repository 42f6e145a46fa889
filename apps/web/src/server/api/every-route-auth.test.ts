// Authorization on every API route, by construction: the routes are found by walking every
// route.ts under src/app/api, so a new one cannot be missed. Each exported HTTP method must be
// made by the route wrapper (./route.ts) with the role ROLE below gives it, in the source and
// at run time, unless PUBLIC or SELF_AUTHORIZED names it with a reason. Then every method of
// every route is called without credentials (401), and as viewer, operator and admin
// (bearer tokens): 403 below the role, past authorization at or above it.
import { readFileSync } from "node:fs";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { clearAuth, configureAuth, ORIGIN, PASSWORDS, SAME_ORIGIN, TOKENS } from "@/server/auth/test/auth-env";
import { resetEventHub } from "@/server/events";

import type { Role } from "./authorize";
import { declaredRoute } from "./route";
import { endpoints, exportedMethods, handlerOf, HTTP_METHODS, loadRoute, routeFiles, routeSource, SRC, urlOf, type Endpoint } from "./test/route-walk";

/**
 * The role each method of each route needs, as the README's Authentication section states
 * it: reads are viewer's (the audit trail admin's); submitting tasks, dead-letter requeue and
 * delete, sweeps, releasing and removing pool items operator's; config writes, deletions of
 * workers, pools, locks, counters and kv keys, and setting counters and kv values admin's.
 * Paths are below /api.
 */
const ROLE: Record<string, Role> = {
  "GET /v1/audit": "admin",
  "GET /v1/audit/[id]/changes": "admin",
  "GET /v1/automations": "viewer",
  "GET /v1/automations/[type]": "viewer",
  "PATCH /v1/automations/[type]/config": "admin",
  "POST /v1/automations/[type]/tasks": "operator",
  "GET /v1/counters": "viewer",
  "PUT /v1/counters/[name]": "admin",
  "DELETE /v1/counters/[name]": "admin",
  "GET /v1/events": "viewer",
  "GET /v1/kv": "viewer",
  "GET /v1/kv/[ns]": "viewer",
  "GET /v1/kv/[ns]/[key]": "viewer",
  "PUT /v1/kv/[ns]/[key]": "admin",
  "DELETE /v1/kv/[ns]/[key]": "admin",
  "GET /v1/locks": "viewer",
  "DELETE /v1/locks/[name]": "admin",
  "GET /v1/metrics": "viewer",
  "GET /v1/openapi.json": "viewer",
  "GET /v1/pools": "viewer",
  "GET /v1/pools/[name]": "viewer",
  "DELETE /v1/pools/[name]": "admin",
  "GET /v1/pools/[name]/items/[id]": "viewer",
  "DELETE /v1/pools/[name]/items/[id]": "operator",
  "POST /v1/pools/[name]/items/[id]/release": "operator",
  "POST /v1/pools/[name]/items/[id]/reveal": "operator",
  "GET /v1/queues": "viewer",
  "GET /v1/queues/[name]": "viewer",
  "GET /v1/queues/[name]/dead": "viewer",
  "POST /v1/queues/[name]/dead/delete": "operator",
  "POST /v1/queues/[name]/dead/requeue": "operator",
  "POST /v1/queues/[name]/sweep": "operator",
  "GET /v1/streams": "viewer",
  "GET /v1/streams/[name]": "viewer",
  "GET /v1/workers": "viewer",
  "GET /v1/workers/[type]/[id]": "viewer",
  "DELETE /v1/workers/[type]/[id]": "admin",
  "PATCH /v1/workers/[type]/[id]/config": "admin",
  "PUT /v1/workers/[type]/[id]/config": "admin",
  "GET /v1/workers/[type]/[id]/stats": "viewer",
  "GET /v1/workers/[type]/[id]/errors": "viewer",
  // issue 15: queue history and alerts
  "GET /v1/queues/[name]/history": "viewer",
  "GET /v1/history": "viewer",
  "GET /v1/alerts": "viewer",
  "GET /v1/alerts/rules": "viewer",
  "PUT /v1/alerts/rules": "admin",
  // issue 14: search inside a queue
  "GET /v1/queues/[name]/search": "viewer",
  "GET /v1/queues/[name]/bulk": "viewer",
  "POST /v1/queues/[name]/bulk": "operator",
  "GET /v1/queues/[name]/bulk/[id]": "viewer",
  "POST /v1/queues/[name]/bulk/[id]/cancel": "operator",
  // issue 14: error groups (reads) and the worker list's bulk actions (a removal and config writes: admin, as for one worker)
  "GET /v1/errors": "viewer",
  "GET /v1/queues/[name]/errors": "viewer",
  "POST /v1/workers/bulk-remove": "admin",
  "POST /v1/workers/bulk-config": "admin",
};

/** Open without credentials, on purpose; each is checked to answer a stranger. */
const PUBLIC: Record<string, { reason: string; stranger: { headers?: Record<string, string>; body?: unknown; status: number } }> = {
  "GET /v1/health": {
    reason: "load balancers probe it without credentials (README: it stays open; it answers backend facts, no fleet data)",
    stranger: { status: 200 },
  },
  "GET /v1/auth/session": {
    reason: "the sign-in page and the shell ask who is signed in before anyone is (null when nobody)",
    stranger: { status: 200 },
  },
  "POST /v1/auth/signin": {
    reason: "signing in is how one gets credentials (CSRF-checked, throttled)",
    stranger: { headers: SAME_ORIGIN, body: { username: "vera", password: PASSWORDS.vera }, status: 200 },
  },
  "POST /v1/auth/signout": {
    reason: "it only clears the caller's own session cookie (CSRF-checked)",
    stranger: { headers: SAME_ORIGIN, status: 200 },
  },
};

/** Not made by route() (their answer is not one JSON body), so they call authorize() themselves. */
const SELF_AUTHORIZED: Record<string, { reason: string; authorizes: () => boolean }> = {
  "GET /v1/events": {
    reason: "a Server-Sent Events stream; createEventsHandler authorizes before it opens",
    authorizes: () =>
      /createEventsHandler\(/.test(routeSource("/v1/events")) &&
      /await authorize\(request, "viewer"\)/.test(readFileSync(path.join(SRC, "server", "events", "sse-response.ts"), "utf8")),
  },
  "GET /v1/queues/[name]/search": {
    reason: "an NDJSON stream; handleSearch authorizes before it opens",
    authorizes: () =>
      /handleSearch/.test(routeSource("/v1/queues/[name]/search")) &&
      /await authorize\(request, "viewer"\)/.test(readFileSync(path.join(SRC, "server", "search", "handler.ts"), "utf8")),
  },
  "GET /v1/metrics": {
    reason: "Prometheus text exposition, not JSON",
    authorizes: () => /^\s*await authorize\(request, "viewer"\);/m.test(routeSource("/v1/metrics")),
  },
};

const FILES = routeFiles();
const ENDPOINTS = endpoints();
const GUARDED = ENDPOINTS.filter((e) => !(e.key in PUBLIC));

describe("the route walk", () => {
  it("finds every route.ts, each exported method listed in ROLE or PUBLIC (a new route fails here until it is given a role)", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(34);
    const found = ENDPOINTS.map((e) => e.key).sort();
    const listed = [...Object.keys(ROLE), ...Object.keys(PUBLIC)].sort();
    expect(found).toEqual(listed);
    for (const key of Object.keys(SELF_AUTHORIZED)) expect(ROLE[key], key).toBeDefined();
    for (const key of Object.keys(PUBLIC)) expect(ROLE[key], key).toBeUndefined();
  });

  it.each(FILES.map((f) => [f.apiPath, f] as const))("%s: every exported method is route({ role }) with its role, in the source and at run time", async (_, f) => {
    const src = readFileSync(f.file, "utf8");
    const declaredInSource = exportedMethods(src);
    const mod = await loadRoute(f.file);
    // the module exports no method the source reading missed (a re-export, say)
    expect(HTTP_METHODS.filter((m) => m in mod).sort()).toEqual([...declaredInSource.keys()].sort());
    for (const [method, how] of declaredInSource) {
      const key = `${method} ${f.apiPath}`;
      if (key in PUBLIC) continue;
      if (key in SELF_AUTHORIZED) {
        expect(how.wrapped, key).toBe(false);
        expect(SELF_AUTHORIZED[key]!.authorizes(), `${key} calls authorize(request, "viewer")`).toBe(true);
        continue;
      }
      expect(how, key).toEqual({ wrapped: true, role: ROLE[key] });
      expect(src, key).toMatch(/^import \{[^}]*\broute\b[^}]*\} from "@\/server\/api\/route";$/m);
      expect(declaredRoute(mod[method]), key).toEqual({ path: f.apiPath.replace(/^\/v1/, ""), role: ROLE[key] });
    }
  });
});

// ---- every method, called as a stranger and as each role

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };
type Caller = "nobody" | Role;

/** Calls the exported handler as Next would; a stream is cancelled once its status is known. */
async function send(endpoint: Endpoint, headers: Record<string, string>, body?: unknown): Promise<{ status: number; code?: string }> {
  const handler = await handlerOf(endpoint);
  const url = urlOf(endpoint.apiPath, ORIGIN);
  const abort = new AbortController();
  const init: RequestInit = { method: endpoint.method, headers: { ...headers }, signal: abort.signal };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await handler(new Request(url, init), { params: Promise.resolve({}) });
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    abort.abort();
    await res.body?.cancel().catch(() => undefined);
    return { status: res.status };
  }
  const text = await res.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: res.status, code };
}

beforeAll(async () => {
  // The in-memory backend: authorization comes before any backend work, and what the
  // allowed calls do (404s, 422s, a sweep of nothing) stays in this process.
  await configureAuth("memory://every-route-auth");
});

afterAll(async () => {
  await resetEventHub();
  await clearAuth();
});

const CASES = GUARDED.flatMap((e) =>
  (["nobody", "viewer", "operator", "admin"] as const).map((caller: Caller) => {
    const role = ROLE[e.key]!;
    const expected = caller === "nobody" ? "401" : RANK[caller] < RANK[role] ? "403" : "allowed";
    return { ...e, caller, role, expected };
  }),
);

describe("every guarded method, by caller", () => {
  it("covers every GET and every mutation the walk found", () => {
    expect(new Set(CASES.map((c) => c.key)).size).toBe(GUARDED.length);
    // no mutation is open to a viewer
    expect(CASES.filter((c) => c.method !== "GET" && c.caller === "viewer" && c.expected !== "403")).toEqual([]);
  });

  it.each(CASES.map((c) => [c.key, c.caller, c.expected, c] as const))("%s as %s: %s", async (_key, _caller, _expected, c: (typeof CASES)[number]) => {
    const headers: Record<string, string> = c.caller === "nobody" ? {} : { authorization: `Bearer ${TOKENS[c.caller]}` };
    const res = await send(c, headers);
    const { caller, expected } = c;
    if (expected === "401") {
      expect(res).toEqual({ status: 401, code: "unauthenticated" });
    } else if (expected === "403") {
      expect(res).toEqual({ status: 403, code: "forbidden" });
    } else {
      // past authorization: whatever the handler answers to a made-up name, it is not a refusal
      expect([401, 403], `${c.key} as ${caller} answered ${res.status} ${res.code ?? ""}`).not.toContain(res.status);
    }
  });
});

describe("the public routes", () => {
  it.each(Object.entries(PUBLIC).map(([key, p]) => [key, p.reason, p] as const))("%s answers a stranger (%s)", async (key, _reason, p) => {
    const endpoint = ENDPOINTS.find((e) => e.key === key);
    expect(endpoint, `${key} exists`).toBeDefined();
    const res = await send(endpoint!, { ...p.stranger.headers }, p.stranger.body);
    expect(res.status).toBe(p.stranger.status);
  });
});
