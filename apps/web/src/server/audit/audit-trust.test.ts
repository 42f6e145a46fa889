// An audit trail that can be trusted (issue 12, point 9), against a real Redis
// (REDIS_TEST_URL, its own database): refusals and failed sign-ins are recorded, budgeted per
// actor so that no loop pushes older entries out; a change whose entry cannot be written
// is not made (the entry is written before the change); names are escaped in logs.
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { startMonitor } from "@/server/test/monitor";
import { NotFoundError } from "@fleet/backend";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import * as counter from "@/app/api/v1/counters/[name]/route";
import * as dlqDelete from "@/app/api/v1/queues/[name]/dead/delete/route";
import * as workerConfig from "@/app/api/v1/workers/[type]/[id]/config/route";
import { ApiError } from "@/server/api/errors";
import { redisTestUrl } from "@/server/api/test/harness";
import { handleSignIn } from "@/server/auth/handlers";
import { PASSWORDS, SAME_ORIGIN, bearer, call, clearAuth, configureAuth, fromPeer } from "@/server/auth/test/auth-env";
import { getBackend } from "@/server/backend";
import { resetServerEnv } from "@/server/env";
import { waitFor } from "@/server/events/test/helpers";

import { AUDIT_UNWRITABLE, failedEntry, type AuditEntry } from "./audit";
import { REFUSALS_PER_MINUTE } from "./refusals";

const DB = testRedisDb("apps/web/src/server/audit/audit-trust.test.ts");
let admin: Redis;

beforeAll(async () => {
  admin = new Redis(redisTestUrl(DB), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  await configureAuth(redisTestUrl(DB));
});

afterAll(async () => {
  await admin.quit();
  await clearAuth();
});

beforeEach(async () => {
  await admin.flushdb();
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function trail(): Promise<Array<Record<string, any>>> {
  return (await admin.lrange("fleet:console:audit", 0, -1)).map((t) => JSON.parse(t) as Record<string, any>);
}

const anonymousPut = (address: string, name = "c") =>
  call(counter.PUT, "PUT", `/counters/${encodeURIComponent(name)}`, { headers: { ...SAME_ORIGIN, ...fromPeer(address) }, body: { value: 9 } });

describe("refusals", () => {
  it("are recorded, budgeted per actor: a loop of refused writes cannot push older entries out of the capped trail", async () => {
    process.env.FLEET_AUDIT_MAX_ENTRIES = "20";
    resetServerEnv();
    try {
      expect((await call(counter.PUT, "PUT", "/counters/kept", { headers: bearer("admin"), body: { value: 1 } })).status).toBe(200);
      for (let i = 0; i < 60; i++) expect((await anonymousPut("192.0.2.10")).status).toBe(401);
      const entries = await trail();
      const refused = entries.filter((e) => e.outcome === "refused");
      expect(refused).toHaveLength(REFUSALS_PER_MINUTE);
      for (const e of refused) {
        expect(e).toMatchObject({ action: "refused.counter.set", target: "counter:c", actor: "anonymous", status: 401, method: "PUT", details: { address: "192.0.2.10" } });
      }
      expect(entries.filter((e) => e.outcome === "suppressed")).toEqual([
        expect.objectContaining({
          action: "refused.suppressed",
          details: expect.objectContaining({ address: "192.0.2.10", reason: expect.stringContaining("counted, not listed") }),
        }),
      ]);
      // the change made before the flood is still there
      expect(entries.at(-1)).toMatchObject({ action: "counter.set", target: "counter:kept", outcome: "done" });
      expect(entries).toHaveLength(REFUSALS_PER_MINUTE + 2);
      // another address is another actor, with its own budget
      expect((await anonymousPut("192.0.2.11")).status).toBe(401);
      expect((await trail())[0]).toMatchObject({ outcome: "refused", details: { address: "192.0.2.11" } });
    } finally {
      delete process.env.FLEET_AUDIT_MAX_ENTRIES;
      resetServerEnv();
    }
  });

  it("a later minute opens with how many were not listed in the one before", async () => {
    // what a flood of 25 refusals a minute ago left (as any replica would have)
    const start = Date.now() - 61_000;
    await admin.hset("fleet:console:audit:refusals:addr:192.0.2.12", { start: String(start), n: "25" });
    expect((await anonymousPut("192.0.2.12")).status).toBe(401);
    const [refusal, summary] = await trail();
    expect(summary).toMatchObject({ action: "refused.suppressed", outcome: "suppressed", details: { suppressed: 25 - REFUSALS_PER_MINUTE, window_start: start / 1000 } });
    expect(refusal).toMatchObject({ action: "refused.counter.set", outcome: "refused" });
  });

  it("failed and throttled sign-ins are recorded by address, with the name tried as the target, within the same budget", async () => {
    const guess = (i: number) =>
      call(handleSignIn, "POST", "/auth/signin", { headers: { ...SAME_ORIGIN, ...fromPeer("198.51.100.20") }, body: { username: "ada", password: `guess-${i}` } });
    for (let i = 0; i < 3; i++) expect((await guess(i)).status).toBe(401);
    const answers = await Promise.all(Array.from({ length: 27 }, (_, i) => guess(3 + i)));
    expect(answers.every((a) => a.status === 429)).toBe(true);
    const entries = await trail();
    const refused = entries.filter((e) => e.outcome === "refused");
    expect(refused.length).toBe(REFUSALS_PER_MINUTE);
    const failed = refused.filter((e) => e.status === 401);
    expect(failed).toHaveLength(3);
    expect(refused.filter((e) => e.status === 429)).toHaveLength(REFUSALS_PER_MINUTE - 3);
    for (const e of refused) expect(e).toMatchObject({ action: "refused.auth.signin", target: "user:ada", actor: "anonymous", details: { address: "198.51.100.20" } });
    expect(failed[0]!.details.reason).toBe("wrong user name or password");
    expect(entries.filter((e) => e.outcome === "suppressed")).toHaveLength(1);
    // a sign-in from another page is refused and recorded too
    const csrf = await call(handleSignIn, "POST", "/auth/signin", {
      headers: { origin: "https://evil.test", "x-fleet-csrf": "1", ...fromPeer("198.51.100.21") },
      body: { username: "ada", password: PASSWORDS.ada },
    });
    expect(csrf.status).toBe(403);
    expect((await trail())[0]).toMatchObject({ action: "refused.auth.signin", status: 403, outcome: "refused", details: { address: "198.51.100.21" } });
  });
});

describe("no entry, no change", () => {
  async function breakTrail(): Promise<void> {
    // a trail that cannot be appended to (here: a key of the wrong type; in life: a full
    // memory, a denied command, a replica gone read-only)
    await admin.set("fleet:console:audit", "not a list");
  }

  it("a write whose entry cannot be written is refused with 503 and not made", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await admin.set("fleet:counter:c", "1");
    await admin.rpush("fleet:queue:jobs:dead", '{"id": "d1", "payload": {}}');
    await breakTrail();
    const put = await call(counter.PUT, "PUT", "/counters/c", { headers: bearer("admin"), body: { value: 7 } });
    expect(put.status).toBe(503);
    expect(put.json.error).toEqual({ code: "backend_unavailable", message: AUDIT_UNWRITABLE });
    expect(await admin.get("fleet:counter:c")).toBe("1");
    const del = await call(dlqDelete.POST, "POST", "/queues/jobs/dead/delete", { headers: bearer("operator"), body: { all: true } });
    expect(del.status).toBe(503);
    expect(await admin.llen("fleet:queue:jobs:dead")).toBe(1);
  });

  it("a sign-in whose entry cannot be written starts no session", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await breakTrail();
    const res = await call(handleSignIn, "POST", "/auth/signin", { headers: SAME_ORIGIN, body: { username: "ada", password: PASSWORDS.ada } });
    expect(res.status).toBe(503);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await admin.keys("fleet:console:session:*")).toEqual([]);
  });

  it("the entry is written before the change and completed in place after it", async () => {
    const seen: string[][] = [];
    const monitor = await startMonitor(redisTestUrl(DB), (c) => {
      if (c.db === DB) seen.push(c.args);
    });
    try {
      await waitFor(async () => {
        await admin.ping("start");
        return seen.some((a) => a[1] === "start");
      });
      seen.length = 0;
      expect((await call(counter.PUT, "PUT", "/counters/c", { headers: bearer("admin"), body: { value: 3 } })).status).toBe(200);
      await admin.ping("end");
      await waitFor(() => seen.some((a) => a[1] === "end"), { what: "the monitor to catch up" });
      const at = (pred: (a: string[]) => boolean) => seen.findIndex(pred);
      const pendingWrite = at((a) => a[0]!.toLowerCase() === "lpush" && a[1] === "fleet:console:audit" && a[2]!.includes('"outcome": "pending"'));
      const change = at((a) => a[0]!.toLowerCase() === "set" && a[1] === "fleet:counter:c");
      const completion = at((a) => /^evalsha$|^eval$/i.test(a[0]!) && a.includes("fleet:console:audit") && a.some((x) => x.includes('"outcome": "done"')));
      expect(pendingWrite).toBeGreaterThanOrEqual(0);
      expect(change).toBeGreaterThan(pendingWrite);
      expect(completion).toBeGreaterThan(change);
    } finally {
      monitor.close();
    }
    const entries = await trail();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ outcome: "done", status: 200, action: "counter.set", details: { counter: "c", value: 3 } });
  });

  it("a request that fails cleanly leaves no entry; one that fails part way is marked failed", async () => {
    const res = await call(workerConfig.PATCH, "PATCH", "/workers/scraper/none/config", { headers: bearer("admin"), body: { slots: 1 } });
    expect(res.status).toBe(404);
    expect(await trail()).toEqual([]);
    const pending = { id: "0123456789abcdef", outcome: "pending", status: 0, action: "x", target: "t" } as unknown as AuditEntry;
    expect(failedEntry(pending, new ApiError("conflict", "stale"))).toBeNull();
    expect(failedEntry(pending, new NotFoundError("gone"))).toBeNull();
    expect(failedEntry(pending, new Error("boom"))).toMatchObject({ id: pending.id, outcome: "failed", status: 500 });
  });

  it("Redis itself unreachable: the usual 503, and nothing written", async () => {
    const url = process.env.FLEET_BACKEND_URL!;
    process.env.FLEET_BACKEND_URL = "redis://127.0.0.1:1/15";
    resetServerEnv();
    try {
      const res = await call(counter.PUT, "PUT", "/counters/c", { headers: bearer("admin"), body: { value: 7 } });
      expect(res.status).toBe(503);
      expect(res.json.error.code).toBe("backend_unavailable");
    } finally {
      process.env.FLEET_BACKEND_URL = url;
      resetServerEnv();
    }
    expect(await admin.exists("fleet:counter:c")).toBe(0);
    await getBackend();
  });
});

describe("names in logs", () => {
  it("cannot forge a log line: control characters in a user name or a path name are escaped", async () => {
    const lines: string[] = [];
    const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
    vi.spyOn(console, "warn").mockImplementation(capture);
    vi.spyOn(console, "error").mockImplementation(capture);
    const forged = "mallory\n[auth] signed in ada from 10.0.0.1\u202e";
    await call(handleSignIn, "POST", "/auth/signin", { headers: SAME_ORIGIN, body: { username: forged, password: "x" } });
    await admin.set("fleet:console:audit", "not a list");
    await call(counter.DELETE, "DELETE", `/counters/${encodeURIComponent("x\n[audit] all good")}`, { headers: bearer("admin") });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line).not.toMatch(/[\n\r\u2028\u2029\u202e]/);
    }
    expect(lines.join(" ")).toContain("mallory\\u000a[auth] signed in ada");
    expect(lines.join(" ")).toContain("x\\u000a[audit] all good");
  });
});
