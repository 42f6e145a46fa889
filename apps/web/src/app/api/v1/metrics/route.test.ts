// GET /api/v1/metrics: seeded data read back through the exposition, on a real Redis
// (its own database, flushed)
// and on the memory backend.
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import type { Backend } from "@fleet/backend";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { closeBackend, getBackend } from "@/server/backend";
import { resetServerEnv } from "@/server/env";
import { sleep } from "@/server/events/test/helpers";
import { parseExposition, sampleValue } from "@/server/metrics/test/parse-exposition";

import { GET } from "./route";

const REDIS_TEST_URL = process.env.REDIS_TEST_URL;
const DB = testRedisDb("apps/web/src/app/api/v1/metrics/route.test.ts");

function dbUrl(base: string, db: number): string {
  const u = new URL(base);
  u.pathname = `/${db}`;
  return u.toString();
}

async function switchBackendUrl(url: string): Promise<Backend> {
  await closeBackend();
  process.env.FLEET_BACKEND_URL = url;
  resetServerEnv();
  return getBackend();
}

afterEach(async () => {
  await closeBackend();
  delete process.env.FLEET_BACKEND_URL;
  resetServerEnv();
});

const ODD_TYPE = 'odd"type\\x';

/** The same fleet on any backend; `corruptPoolItem` writes one undecodable pool value. */
async function seed(backend: Backend, corruptPoolItem: () => Promise<void>): Promise<void> {
  const now = Date.now() / 1000;
  await backend.workerRegister("scraper", "w1", {});
  await backend.workerSetState("scraper", "w1", "RUNNING", null, now);
  await backend.workerRegister("scraper", "w2", {});
  await backend.workerSetState("scraper", "w2", "IDLE", null, now);
  await backend.workerRegister("scraper", "w3", {});
  await backend.workerSetState("scraper", "w3", "IDLE", null, now - 600); // offline
  await backend.workerRegister("scraper", "w4", {});
  await backend.workerSetState("scraper", "w4", "RUNNING", null, now);
  await backend.workerRegister(ODD_TYPE, "x1", {});
  await backend.workerSetState(ODD_TYPE, "x1", "ERROR", "boom", now);
  await backend.catalogSet("idle-type", '{"config": null, "output": null, "task_payload": null}');

  const task = (id: string) => `{"id": "${id}", "payload": {}}`;
  await backend.queuePushMany("jobs", [
    { body: task("h1"), priority: "high" },
    { body: task("h2"), priority: "high" },
    { body: task("h3"), priority: "high" },
    { body: task("n1") },
    { body: task("n2") },
    { body: task("n3") },
    { body: task("l1"), priority: "low" },
  ]);
  await backend.queueReserve("jobs", 0, 300); // stays in flight
  await backend.queueReserve("jobs", 0, 1); // becomes overdue (1 s is the shortest visibility)
  const retried = await backend.queueReserve("jobs", 0, 300);
  await backend.queueNack("jobs", "h3", retried!, { delaySeconds: 600 }); // scheduled, not due
  await backend.queueDead("jobs", task("d1"));
  await backend.queueDead("jobs", task("d2"));
  await backend.queueDead("other", "not json at all");

  await backend.poolPut("proxies", "p1", "a", {});
  await backend.poolPut("proxies", "p2", "b", {});
  await backend.poolPut("proxies", "p3", "c", {}, 0.05); // expires
  await corruptPoolItem();
  await backend.poolClaimAny("proxies", {}, 300);

  for (let i = 0; i < 3; i++) await backend.streamPush("scraper", `{"n": ${i}}`, { score: now + i, maxLen: 100, ttlSeconds: 3600 });
  await sleep(1100); // let the short visibility and the short pool TTL run out
}

async function scrape() {
  const res = await GET(new Request("http://localhost/api/v1/metrics"));
  const text = await res.text();
  return { res, text, metrics: parseExposition(text) };
}

function expectSeededNumbers(metrics: ReturnType<typeof parseExposition>, text: string) {
  for (const name of metrics.keys()) expect(name.startsWith("fleet_"), name).toBe(true);
  for (const f of metrics.values()) {
    expect(f.help, f.name).toBeTruthy();
    // counters (the watch's running totals) end in _total, as Prometheus names them
    expect(f.type, f.name).toBe(f.name.endsWith("_total") ? "counter" : "gauge");
  }
  const v = (name: string, labels: Record<string, string> = {}) => sampleValue(metrics, name, labels);
  expect(v("fleet_backend_up")).toBe(1);
  expect(v("fleet_backend_latency_seconds")).toBeGreaterThanOrEqual(0);

  expect(v("fleet_workers", { automation_type: "scraper", status: "running" })).toBe(2);
  expect(v("fleet_workers", { automation_type: "scraper", status: "idle" })).toBe(1);
  expect(v("fleet_workers", { automation_type: "scraper", status: "offline" })).toBe(1);
  expect(v("fleet_workers", { automation_type: "scraper", status: "error" })).toBe(0);
  expect(v("fleet_workers", { automation_type: ODD_TYPE, status: "error" })).toBe(1);
  expect(text).toContain('fleet_workers{automation_type="odd\\"type\\\\x",status="error"} 1\n');
  expect(v("fleet_workers", { automation_type: "idle-type", status: "running" })).toBe(0);

  expect(v("fleet_queue_tasks", { queue: "jobs", state: "pending" })).toBe(4);
  expect(v("fleet_queue_tasks", { queue: "jobs", state: "processing" })).toBe(2);
  expect(v("fleet_queue_tasks", { queue: "jobs", state: "scheduled" })).toBe(1);
  expect(v("fleet_queue_tasks", { queue: "jobs", state: "dead" })).toBe(2);
  expect(v("fleet_queue_pending_tasks", { queue: "jobs", priority: "high" })).toBe(0);
  expect(v("fleet_queue_pending_tasks", { queue: "jobs", priority: "normal" })).toBe(3);
  expect(v("fleet_queue_pending_tasks", { queue: "jobs", priority: "low" })).toBe(1);
  expect(v("fleet_queue_overdue_tasks", { queue: "jobs" })).toBe(1);
  expect(v("fleet_queue_due_tasks", { queue: "jobs" })).toBe(0);
  expect(v("fleet_dead_letters", { queue: "jobs" })).toBe(2);
  expect(v("fleet_dead_letters", { queue: "other" })).toBe(1);
  expect(v("fleet_queue_tasks", { queue: "other", state: "pending" })).toBe(0);

  expect(v("fleet_pool_items", { pool: "proxies", state: "live" })).toBe(2);
  expect(v("fleet_pool_items", { pool: "proxies", state: "expired" })).toBe(1);
  expect(v("fleet_pool_items", { pool: "proxies", state: "corrupt" })).toBe(1);
  expect(v("fleet_pool_claimed_items", { pool: "proxies" })).toBe(1);

  expect(v("fleet_stream_length", { stream: "scraper" })).toBe(3);
}

describe("GET /api/v1/metrics", () => {
  it("needs REDIS_TEST_URL (CI always sets it)", () => {
    expect(REDIS_TEST_URL, "set REDIS_TEST_URL, e.g. redis://127.0.0.1:6390/0").toMatch(/^redis:\/\//);
  });

  describe("on Redis", () => {
    let admin: Redis | undefined;
    afterAll(async () => {
      await admin?.flushdb();
      admin?.disconnect();
    });

    it("exports the seeded numbers in valid exposition text", async () => {
      const url = dbUrl(REDIS_TEST_URL!, DB);
      admin = new Redis(url);
      await admin.flushdb();
      const backend = await switchBackendUrl(url);
      await seed(backend, async () => {
        await admin!.hset("fleet:pool:proxies", "bad", "not a pool item");
      });
      const { res, text, metrics } = await scrape();
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      expectSeededNumbers(metrics, text);
    });
  });

  it("exports the same numbers on the memory backend", async () => {
    const backend = await switchBackendUrl("memory://metrics-test");
    await seed(backend, async () => {
      (backend as unknown as { raw: { hset(k: string, f: Record<string, string>): void } }).raw.hset("fleet:pool:proxies", {
        bad: "not a pool item",
      });
    });
    const { text, metrics } = await scrape();
    expectSeededNumbers(metrics, text);
  });

  it("answers 200 with fleet_backend_up 0, without hanging, when Redis is down", async () => {
    await switchBackendUrl("redis://:pw-secret@127.0.0.1:1/0");
    const started = performance.now();
    const { res, text, metrics } = await scrape();
    expect(performance.now() - started).toBeLessThan(15_000); // a guard against hanging, not a latency claim
    expect(res.status).toBe(200);
    expect(sampleValue(metrics, "fleet_backend_up")).toBe(0);
    expect(metrics.has("fleet_workers")).toBe(false);
    expect(metrics.has("fleet_backend_latency_seconds")).toBe(false);
    expect(text).not.toContain("pw-secret");
  });
});
