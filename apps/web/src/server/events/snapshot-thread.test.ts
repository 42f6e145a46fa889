// The worker-thread snapshot source against a real Redis (its own database, flushed).
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { backendFromUrl } from "@fleet/backend/url";
import { Worker } from "node:worker_threads";

import { createMemoryBackend } from "@fleet/backend/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";

import { InlineSnapshotSource } from "./snapshot-source";
import { ThreadSnapshotSource } from "./snapshot-thread";

const REDIS_TEST_URL = process.env.REDIS_TEST_URL;
/** What the hub would send along from the name discovery. */
const NAMES = { queues: ["thread-queue", "fallback-queue"], pools: [], streams: [] };
const DB = testRedisDb("apps/web/src/server/events/snapshot-thread.test.ts");

function dbUrl(base: string, db: number): string {
  const u = new URL(base);
  u.pathname = `/${db}`;
  return u.toString();
}

describe("ThreadSnapshotSource (Redis)", () => {
  let admin: Redis | undefined;
  beforeAll(async () => {
    if (!REDIS_TEST_URL) return;
    admin = new Redis(dbUrl(REDIS_TEST_URL, DB));
    await admin.flushdb();
  });
  afterAll(async () => {
    await admin?.flushdb();
    admin?.disconnect();
  });

  it("needs REDIS_TEST_URL (CI always sets it)", () => {
    expect(REDIS_TEST_URL, "set REDIS_TEST_URL, e.g. redis://127.0.0.1:6390/0").toMatch(/^redis:\/\//);
  });

  it("reads and diffs in a worker thread: baseline first, then only what changed", async () => {
    const url = dbUrl(REDIS_TEST_URL!, DB);
    const backend = backendFromUrl(url);
    const logs: string[] = [];
    const source = new ThreadSnapshotSource(
      { backendUrl: url, offlineAfterSeconds: 60 },
      () => new InlineSnapshotSource(async () => backend, 60),
      (m) => logs.push(m),
    );
    try {
      const now = Date.now() / 1000;
      await backend.workerRegister("thread-type", "w1", {});
      await backend.workerSetState("thread-type", "w1", "IDLE", null, now);
      expect(await source.poll(now, NAMES)).toEqual([]);
      await backend.workerSetState("thread-type", "w1", "IDLE", null, now + 1); // heartbeat only
      expect(await source.poll(now + 1, NAMES)).toEqual([]);
      await backend.workerSetState("thread-type", "w1", "ERROR", "boom", now + 2);
      await backend.queuePush("thread-queue", '{"id": "1", "payload": {}}');
      const changes = await source.poll(now + 2, NAMES);
      expect(changes.map((c) => c.event).sort()).toEqual(["queues", "workers"]);
      const workers = changes.find((c) => c.event === "workers")!.data as { changed: Array<{ status: string; last_error: string }> };
      expect(workers.changed).toEqual([expect.objectContaining({ status: "error", last_error: "boom" })]);
      expect(source.kind).toBe("thread"); // it really ran in the thread
      expect(logs).toEqual([]);
    } finally {
      await source.close();
      await backend.close();
    }
    await expect(source.poll(Date.now() / 1000, NAMES)).rejects.toThrow(/closed/);
  }, 120_000);
});

describe("ThreadSnapshotSource fallback", () => {
  it("reads inline for good after three workers died without answering", async () => {
    const memory = createMemoryBackend("memory://fallback-test");
    await memory.queuePush("fallback-queue", "{}");
    const logs: string[] = [];
    let spawned = 0;
    const source = new ThreadSnapshotSource(
      { backendUrl: "redis://127.0.0.1:1/0", offlineAfterSeconds: 60 },
      () => new InlineSnapshotSource(async () => memory, 60),
      (m) => logs.push(m),
      () => {
        spawned++;
        return new Worker('throw new Error("this build cannot load the snapshot worker")', { eval: true });
      },
    );
    try {
      for (let i = 0; i < 3; i++) await expect(source.poll(Date.now() / 1000, NAMES)).rejects.toThrow();
      expect(source.kind).toBe("inline");
      expect(logs).toHaveLength(1);
      expect(await source.poll(Date.now() / 1000, NAMES)).toEqual([]); // the inline baseline
      await memory.queuePush("fallback-queue", "{}");
      const changes = await source.poll(Date.now() / 1000, NAMES);
      expect(changes.map((c) => c.event)).toEqual(["queues"]);
      expect(spawned).toBe(3);
    } finally {
      await source.close();
    }
  });
});
