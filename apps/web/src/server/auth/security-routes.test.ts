// Every mutating route of API v1 against a real Redis (REDIS_TEST_URL, its own database) with
// authentication on: no credentials → 401, a role too low → 403, a cross-site cookie
// request → 403, each refusal recorded as such and nothing done; the right role → done and
// audited; a bearer token needs no CSRF header.
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { pyJsonBytes, type Backend } from "@fleet/backend";
import { Redis } from "ioredis";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import * as auditChanges from "@/app/api/v1/audit/[id]/changes/route";
import * as automationConfig from "@/app/api/v1/automations/[type]/config/route";
import * as tasks from "@/app/api/v1/automations/[type]/tasks/route";
import * as counter from "@/app/api/v1/counters/[name]/route";
import * as kvKey from "@/app/api/v1/kv/[ns]/[key]/route";
import * as lock from "@/app/api/v1/locks/[name]/route";
import * as pool from "@/app/api/v1/pools/[name]/route";
import * as poolItem from "@/app/api/v1/pools/[name]/items/[id]/route";
import * as poolRelease from "@/app/api/v1/pools/[name]/items/[id]/release/route";
import * as dlqDelete from "@/app/api/v1/queues/[name]/dead/delete/route";
import * as dlqRequeue from "@/app/api/v1/queues/[name]/dead/requeue/route";
import * as sweep from "@/app/api/v1/queues/[name]/sweep/route";
import * as worker from "@/app/api/v1/workers/[type]/[id]/route";
import * as workerConfig from "@/app/api/v1/workers/[type]/[id]/config/route";
import { redisTestUrl } from "@/server/api/test/harness";
import { MAX_CHANGES_BYTES } from "@/server/audit/audit";

import { handleSignIn } from "./handlers";
import type { Role } from "@fleet/schema";
import { ORIGIN, PASSWORDS, SAME_ORIGIN, bearer, call, clearAuth, configureAuth, cookieOf, type Handler } from "./test/auth-env";

const DB = testRedisDb("apps/web/src/server/auth/security-routes.test.ts");
const now = () => Math.floor(Date.now() / 1000);

interface MutatingRoute {
  handler: Handler;
  method: string;
  path: string;
  role: Role;
  body?: unknown;
  action: string;
  target: string;
  seed: (b: Backend) => Promise<void>;
  /** What "done" means, checked after the call with the right role. */
  done: (b: Backend) => Promise<boolean>;
}

const seedWorker = async (b: Backend) => {
  await b.workerRegister("scraper", "w1", { hostname: "h1" });
  await b.workerSetState("scraper", "w1", "IDLE", null, now());
  await b.workerSetConfig("scraper", "w1", { slots: 1 });
};
const body = (id: string) => `{"id": "${id}", "payload": {}}`;

const ROUTES: MutatingRoute[] = [
  {
    handler: worker.DELETE,
    method: "DELETE",
    path: "/workers/scraper/w1",
    role: "admin",
    action: "worker.delete",
    target: "worker:scraper/w1",
    seed: seedWorker,
    done: async (b) => (await b.workerGet("scraper", "w1")) === null,
  },
  {
    handler: workerConfig.PATCH,
    method: "PATCH",
    path: "/workers/scraper/w1/config",
    role: "admin",
    body: { slots: 2 },
    action: "worker.config.patch",
    target: "worker:scraper/w1",
    seed: seedWorker,
    done: async (b) => (await b.workerGet("scraper", "w1"))?.config?.slots === 2,
  },
  {
    handler: workerConfig.PUT,
    method: "PUT",
    path: "/workers/scraper/w1/config",
    role: "admin",
    body: { slots: 3 },
    action: "worker.config.put",
    target: "worker:scraper/w1",
    seed: seedWorker,
    done: async (b) => (await b.workerGet("scraper", "w1"))?.config?.slots === 3,
  },
  {
    handler: automationConfig.PATCH,
    method: "PATCH",
    path: "/automations/scraper/config",
    role: "admin",
    body: { slots: 4 },
    action: "automation.config.rollout",
    target: "automation:scraper",
    seed: seedWorker,
    done: async (b) => (await b.workerGet("scraper", "w1"))?.config?.slots === 4,
  },
  {
    handler: tasks.POST,
    method: "POST",
    path: "/automations/scraper/tasks",
    role: "operator",
    body: { payload: { url: "https://x.test" } },
    action: "tasks.submit",
    target: "queue:scraper",
    seed: seedWorker,
    done: async (b) => (await b.queueSize("scraper")) === 1,
  },
  {
    handler: dlqRequeue.POST,
    method: "POST",
    path: "/queues/jobs/dead/requeue",
    role: "operator",
    body: { all: true },
    action: "dead.requeue",
    target: "queue:jobs",
    seed: async (b) => b.queueDead("jobs", body("d1")),
    done: async (b) => (await b.dlqLength("jobs")) === 0 && (await b.queueSize("jobs")) === 1,
  },
  {
    handler: dlqDelete.POST,
    method: "POST",
    path: "/queues/jobs/dead/delete",
    role: "operator",
    body: { all: true },
    action: "dead.delete",
    target: "queue:jobs",
    seed: async (b) => {
      await b.queueDead("jobs", body("d1"));
      await b.queuePush("jobs", body("p1"));
    },
    done: async (b) => (await b.dlqLength("jobs")) === 0,
  },
  {
    handler: sweep.POST,
    method: "POST",
    path: "/queues/jobs/sweep",
    role: "operator",
    action: "queue.sweep",
    target: "queue:jobs",
    seed: async () => {
      // a reservation long past its deadline
      await admin.zadd("fleet:queue:jobs:processing", now() - 600, "p-old");
      await admin.hset("fleet:queue:jobs:processing:body", "p-old", body("p-old"));
    },
    done: async (b) => (await b.queueSize("jobs")) === 1,
  },
  {
    handler: poolRelease.POST,
    method: "POST",
    path: "/pools/proxies/items/a/release",
    role: "operator",
    action: "pool.item.release",
    target: "pool:proxies/a",
    seed: async (b) => {
      await b.poolPut("proxies", "a", "p", {});
      await b.poolClaimAny("proxies", {}, 60);
    },
    done: async (b) => (await b.poolItems("proxies"))[0]?.inUseUntil == null,
  },
  {
    handler: poolItem.DELETE,
    method: "DELETE",
    path: "/pools/proxies/items/a",
    role: "operator",
    action: "pool.item.delete",
    target: "pool:proxies/a",
    seed: async (b) => {
      await b.poolPut("proxies", "a", "p", {});
      await b.poolPut("proxies", "b", "p", {});
    },
    done: async (b) => (await b.poolSize("proxies")) === 1,
  },
  {
    handler: pool.DELETE,
    method: "DELETE",
    path: "/pools/proxies",
    role: "admin",
    action: "pool.delete",
    target: "pool:proxies",
    seed: async (b) => b.poolPut("proxies", "a", "p", {}),
    done: async (b) => (await b.poolSize("proxies")) === 0,
  },
  {
    handler: lock.DELETE,
    method: "DELETE",
    path: "/locks/nightly",
    role: "admin",
    action: "lock.release",
    target: "lock:nightly",
    seed: async (b) => void (await b.lockAcquire("nightly", 60, 0)),
    done: async (b) => (await b.lockList()).length === 0,
  },
  {
    handler: counter.PUT,
    method: "PUT",
    path: "/counters/hits",
    role: "admin",
    body: { value: 5 },
    action: "counter.set",
    target: "counter:hits",
    seed: async (b) => void (await b.counterIncr("hits", 1)),
    done: async (b) => (await b.counterGet("hits")) === 5,
  },
  {
    handler: counter.DELETE,
    method: "DELETE",
    path: "/counters/hits",
    role: "admin",
    action: "counter.delete",
    target: "counter:hits",
    seed: async (b) => void (await b.counterIncr("hits", 1)),
    done: async (b) => (await b.counterList()).length === 0,
  },
  {
    handler: kvKey.PUT,
    method: "PUT",
    path: "/kv/ns/k",
    role: "admin",
    body: { value: { a: 1 } },
    action: "kv.set",
    target: "kv:ns:k",
    seed: async (b) => b.kvSet("ns", "k", "1"),
    done: async (b) => (await b.kvGet("ns", "k"))?.toString() === '{"a": 1}',
  },
  {
    handler: kvKey.DELETE,
    method: "DELETE",
    path: "/kv/ns/k",
    role: "admin",
    action: "kv.delete",
    target: "kv:ns:k",
    seed: async (b) => b.kvSet("ns", "k", "1"),
    done: async (b) => (await b.kvGet("ns", "k")) === null,
  },
];

const LOWER: Record<Role, Role | null> = { viewer: null, operator: "viewer", admin: "operator" };
const USER_OF: Record<Role, keyof typeof PASSWORDS> = { viewer: "vera", operator: "otto", admin: "ada" };

let backend: Backend;
let admin: Redis;
const cookies = {} as Record<Role, string>;

async function auditTotal(): Promise<number> {
  return (await backend.auditRange(0, 0)).total;
}

async function newestAudit(): Promise<Record<string, unknown>> {
  const { items } = await backend.auditRange(0, 1);
  return JSON.parse(items[0]!.toString("utf8")) as Record<string, unknown>;
}

async function allAudit(): Promise<Array<Record<string, unknown>>> {
  const { items } = await backend.auditRange(0, 1000);
  return items.map((b) => JSON.parse(b.toString("utf8")) as Record<string, unknown>);
}

beforeAll(async () => {
  admin = new Redis(redisTestUrl(DB), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  backend = await configureAuth(redisTestUrl(DB));
});

afterAll(async () => {
  await admin.quit();
  await clearAuth();
});

beforeEach(async () => {
  await admin.flushdb();
  // sessions live in Redis (sessions.ts): signed in again after every flush, then the
  // sign-ins' own audit entries cleared, so each test sees only what it did
  for (const role of ["viewer", "operator", "admin"] as const) {
    const res = await call(handleSignIn, "POST", "/auth/signin", { headers: SAME_ORIGIN, body: { username: USER_OF[role], password: PASSWORDS[USER_OF[role]] } });
    expect(res.status).toBe(200);
    cookies[role] = cookieOf(res);
  }
  await admin.del("fleet:console:audit");
});

describe.each(ROUTES)("$method $path (needs $role)", (r) => {
  const send = (headers: Record<string, string>) => call(r.handler, r.method, r.path, { headers, body: r.body });

  it("answers 401 without credentials and changes nothing", async () => {
    await r.seed(backend);
    const res = await send({ ...SAME_ORIGIN });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("unauthenticated");
    expect(await r.done(backend)).toBe(false);
    // recorded as refused, nothing as done
    expect(await allAudit()).toEqual([
      expect.objectContaining({ outcome: "refused", action: `refused.${r.action}`, target: r.target, actor: "anonymous", status: 401, method: r.method }),
    ]);
  });

  it("answers 403 to a role too low, by session and by token", async () => {
    await r.seed(backend);
    const lower = LOWER[r.role]!;
    const bySession = await send({ ...SAME_ORIGIN, cookie: cookies[lower] });
    expect(bySession.status).toBe(403);
    expect(bySession.json.error.code).toBe("forbidden");
    expect(bySession.json.error.message).toContain(r.role);
    const byToken = await send(bearer(lower));
    expect(byToken.status).toBe(403);
    expect(await r.done(backend)).toBe(false);
    const trail = await allAudit();
    expect(trail).toEqual([
      expect.objectContaining({ outcome: "refused", action: `refused.${r.action}`, actor: `${lower}-script`, role: lower, via: "token", status: 403 }),
      expect.objectContaining({ outcome: "refused", action: `refused.${r.action}`, actor: USER_OF[lower], role: lower, via: "session", status: 403 }),
    ]);
    expect((trail[0]!.details as { reason: string }).reason).toContain(r.role);
  });

  it("refuses a cross-site request carrying the session cookie (403)", async () => {
    await r.seed(backend);
    const cookie = cookies.admin;
    const attempts: Array<Record<string, string>> = [
      { cookie, origin: "https://evil.test", "x-fleet-csrf": "1" },
      { cookie, origin: ORIGIN, "sec-fetch-site": "cross-site", "x-fleet-csrf": "1" },
      { cookie, origin: ORIGIN, "sec-fetch-site": "same-origin" }, // no custom header
      { cookie, "x-fleet-csrf": "1" }, // no Origin, no Sec-Fetch-Site
    ];
    for (const headers of attempts) {
      const res = await send(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.json.error.code).toBe("forbidden");
    }
    expect(await r.done(backend)).toBe(false);
    const trail = await allAudit();
    expect(trail).toHaveLength(attempts.length);
    for (const e of trail) expect(e).toMatchObject({ outcome: "refused", action: `refused.${r.action}`, target: r.target, actor: "ada", via: "session", status: 403 });
    expect(trail.some((e) => e.outcome === "done" || e.outcome === "pending")).toBe(false);
  });

  it("does it for the right role from the console's pages, and audits who did what to which target", async () => {
    await r.seed(backend);
    const res = await send({ ...SAME_ORIGIN, cookie: cookies[r.role] });
    expect(res.status, res.text).toBeLessThan(300);
    expect(await r.done(backend)).toBe(true);
    // one entry, written before the change and completed in place after it
    expect(await auditTotal()).toBe(1);
    const entry = await newestAudit();
    expect(entry).toMatchObject({
      outcome: "done",
      actor: USER_OF[r.role],
      role: r.role,
      via: "session",
      action: r.action,
      target: r.target,
      method: r.method,
      status: res.status,
    });
    expect(entry.id).toMatch(/^[0-9a-f]{16}$/);
    expect(Math.abs((entry.ts as number) - Date.now() / 1000)).toBeLessThan(30);
    // stored as Python's json.dumps writes it
    const raw = (await backend.auditRange(0, 1)).items[0]!.toString("utf8");
    expect(raw).toContain('"actor": ');
  });

  it("accepts a bearer token of the right role without any CSRF header", async () => {
    await r.seed(backend);
    const res = await send(bearer(r.role));
    expect(res.status, res.text).toBeLessThan(300);
    expect(await r.done(backend)).toBe(true);
    expect(await newestAudit()).toMatchObject({ actor: `${r.role}-script`, via: "token", action: r.action });
  });
});

describe("config changes in the audit trail", () => {
  it("keep the config before and after a worker's write", async () => {
    await seedWorker(backend);
    const res = await call(workerConfig.PATCH, "PATCH", "/workers/scraper/w1/config", { headers: bearer("admin"), body: { slots: 7, mode: "fast" } });
    expect(res.status).toBe(200);
    expect(await newestAudit()).toMatchObject({ action: "worker.config.patch", before: { slots: 1 }, after: { slots: 7, mode: "fast" } });
  });

  it("keep every worker's before and after for a fleet-wide rollout", async () => {
    await seedWorker(backend);
    await backend.workerRegister("scraper", "w2", { hostname: "h2" });
    const res = await call(automationConfig.PATCH, "PATCH", "/automations/scraper/config", { headers: bearer("admin"), body: { slots: 9 } });
    expect(res.status).toBe(200);
    const entry = await newestAudit();
    expect(entry).toMatchObject({ action: "automation.config.rollout", changes_total: 2 });
    expect(entry.changes).toEqual([
      { worker_id: "w1", before: { slots: 1 }, after: { slots: 9 } },
      { worker_id: "w2", before: {}, after: { slots: 9 } },
    ]);
  });

  it("keep every worker's change of a rollout past the first 100 beside the entry, read by GET /audit/{id}/changes", async () => {
    const ids = Array.from({ length: 150 }, (_, i) => `w${String(i).padStart(3, "0")}`);
    const p = admin.pipeline();
    for (const [i, id] of ids.entries()) {
      p.sadd("wkrs:scraper", id).sadd("wkrs:all", `scraper|${id}`);
      p.set(`wkr:scraper:${id}:config`, JSON.stringify({ slots: i }));
    }
    await p.exec();
    const res = await call(automationConfig.PATCH, "PATCH", "/automations/scraper/config", { headers: bearer("admin"), body: { mode: "slow" } });
    expect(res.status, res.text).toBe(200);
    const entry = await newestAudit();
    expect(entry).toMatchObject({ action: "automation.config.rollout", outcome: "done", changes_total: 150, changes_kept: 150 });
    expect((entry.changes as unknown[]).length).toBe(100);
    const id = entry.id as string;
    const page = await call(auditChanges.GET, "GET", `/audit/${id}/changes?offset=99&limit=1000`, { headers: bearer("admin") });
    expect(page.status, page.text).toBe(200);
    expect(page.json.total).toBe(150);
    expect(page.json.changes).toHaveLength(51);
    expect(page.json.changes[0]).toEqual({ worker_id: "w099", before: { slots: 99 }, after: { slots: 99, mode: "slow" } });
    expect(page.json.changes[50]).toEqual({ worker_id: "w149", before: { slots: 149 }, after: { slots: 149, mode: "slow" } });
    const ttl = await admin.ttl(`fleet:console:audit:changes:${id}`);
    expect(ttl).toBeGreaterThan(29 * 86400);
    // admin only, like the trail; a made-up id answers 404 and a malformed one 400, each saying why
    expect((await call(auditChanges.GET, "GET", `/audit/${id}/changes`, { headers: bearer("operator") })).status).toBe(403);
    const none = await call(auditChanges.GET, "GET", "/audit/fedcba9876543210/changes", { headers: bearer("admin") });
    expect(none.status).toBe(404);
    expect(none.json.error.message).toMatch(/more than 100 workers/);
    const bad = await call(auditChanges.GET, "GET", "/audit/..%2Fx/changes", { headers: bearer("admin") });
    expect(bad.status).toBe(400);
  });

  it("list a rollout's large configs by their digest past MAX_CHANGES_BYTES, the entry staying small, and keep every change whole beside it", async () => {
    // five workers of ~40 KiB configs: listed whole, the entry would take ~400 KiB
    const ids = ["w0", "w1", "w2", "w3", "w4"];
    const config = (i: number) => ({ slots: i, proxies: Array.from({ length: 1500 }, (_, j) => `proxy-${i}-${String(j).padStart(4, "0")}.example:8080`) });
    const p = admin.pipeline();
    for (const [i, id] of ids.entries()) {
      p.sadd("wkrs:scraper", id).sadd("wkrs:all", `scraper|${id}`);
      p.set(`wkr:scraper:${id}:config`, JSON.stringify(config(i)));
    }
    await p.exec();
    expect(JSON.stringify(config(0)).length).toBeGreaterThan(38 * 1024);
    const res = await call(automationConfig.PATCH, "PATCH", "/automations/scraper/config", { headers: bearer("admin"), body: { mode: "slow" } });
    expect(res.status, res.text).toBe(200);
    const [stored] = await admin.lrangeBuffer("fleet:console:audit", 0, 0);
    expect(stored!.length).toBeLessThan(MAX_CHANGES_BYTES + 16 * 1024);
    const entry = await newestAudit();
    expect(entry).toMatchObject({ action: "automation.config.rollout", outcome: "done", changes_total: 5, changes_kept: 5 });
    const changes = entry.changes as Array<{ worker_id: string; before: Record<string, unknown>; after: Record<string, unknown> }>;
    expect(changes.map((c) => c.worker_id)).toEqual(ids);
    // the first change whole; later values by size and digest once the entry's room is used
    expect(changes[0]).toEqual({ worker_id: "w0", before: config(0), after: { ...config(0), mode: "slow" } });
    const last = pyJsonBytes({ ...config(4), mode: "slow" });
    expect(changes[4]!.after).toEqual({ truncated: true, bytes: last.length, sha256: createHash("sha256").update(last).digest("hex") });
    const page = await call(auditChanges.GET, "GET", `/audit/${entry.id as string}/changes`, { headers: bearer("admin") });
    expect(page.status, page.text).toBe(200);
    expect(page.json.changes).toEqual(ids.map((id, i) => ({ worker_id: id, before: config(i), after: { ...config(i), mode: "slow" } })));
  });

  it("a rollout of 100 workers or fewer keeps nothing beside its entry", async () => {
    await seedWorker(backend);
    const res = await call(automationConfig.PATCH, "PATCH", "/automations/scraper/config", { headers: bearer("admin"), body: { slots: 9 } });
    expect(res.status).toBe(200);
    const entry = await newestAudit();
    expect(entry.changes_kept).toBeUndefined();
    const [, kept] = await admin.scan("0", "MATCH", "fleet:console:audit:changes:*", "COUNT", 10_000);
    expect(kept).toEqual([]);
  });

  it("a failed write (422, 404) leaves no audit entry", async () => {
    const res = await call(workerConfig.PATCH, "PATCH", "/workers/scraper/none/config", { headers: bearer("admin"), body: { slots: 1 } });
    expect(res.status).toBe(404);
    expect(await auditTotal()).toBe(0);
  });
});

describe("reads", () => {
  it("need no CSRF header, accept a viewer and leave no audit entry", async () => {
    await seedWorker(backend);
    const res = await call(worker.GET, "GET", "/workers/scraper/w1", { headers: { cookie: cookies.viewer, origin: "https://elsewhere.test" } });
    expect(res.status).toBe(200);
    expect(res.json.worker_id).toBe("w1");
    expect(await auditTotal()).toBe(0);
    expect((await call(worker.GET, "GET", "/workers/scraper/w1")).status).toBe(401);
  });
});
