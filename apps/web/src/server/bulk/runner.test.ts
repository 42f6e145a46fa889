// The bulk runner on both backends (Redis: a private redis-server, its keys are fixed
// fleet:console:* names): a job left by a process that died is continued by another, from
// where its last chunk ended, every body moved exactly once; the rate cap holds.
import { pyJsonBytes, type Backend } from "@fleet/backend";
import { createMemoryBackend } from "@fleet/backend/memory";
import { createRedisBackend } from "@fleet/backend/redis";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";
import type { BulkJobDoc } from "@fleet/schema";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { BULK_LOCK_PREFIX, BulkRunner } from "./runner";

let server: PrivateRedis;
beforeAll(async () => {
  server = await startPrivateRedis();
});
afterAll(async () => {
  await server?.stop();
});

const task = (i: number) => pyJsonBytes({ id: `t${i}`, payload: { n: i, even: i % 2 === 0 }, attempts: 3 });
const doc = (over: Partial<BulkJobDoc> = {}): Buffer =>
  pyJsonBytes({
    queue: "q",
    action: "requeue-dead",
    q: null,
    where: "payload.even = true",
    rate: 10_000,
    expected: 0,
    created_at: 1,
    created_by: "vera",
    role: "operator",
    ...over,
  });

for (const kind of ["memory", "redis"] as const) {
  describe(`bulk runner: ${kind}`, () => {
    let backend: Backend;
    const runners: BulkRunner[] = [];
    const make = async () => {
      if (kind === "memory") return createMemoryBackend();
      const r = new Redis(server.url(), { maxRetriesPerRequest: 1 });
      await r.flushdb();
      r.disconnect();
      return createRedisBackend(server.url());
    };
    afterEach(async () => {
      await Promise.all(runners.splice(0).map((r) => r.stop()));
      await backend?.close();
    });

    it("continues a job whose process died, from its cursor, moving every match exactly once", async () => {
      backend = await make();
      for (let i = 0; i < 3000; i += 500) await Promise.all(Array.from({ length: 500 }, (_, j) => backend.queueDead("q", task(i + j))));
      await backend.bulkJobCreate("j", doc());
      // a process took it, did one chunk of 100 entries, and died holding the lock for 1 s
      const token = (await backend.lockAcquire(`${BULK_LOCK_PREFIX}j`, 1, 0))!;
      await backend.bulkJobSet("j", { owner: token });
      const first = await backend.queueScan("q", "dead", 0, 100);
      const items = first.entries.filter((e) => (JSON.parse(e.body.toString()) as { payload: { even: boolean } }).payload.even);
      const r1 = await backend.queueTakeMatches("q", {
        jobId: "j",
        owner: token,
        action: "requeue",
        part: "dead",
        start: 0,
        read: 100,
        partIndex: 0,
        partDone: false,
        items: items.map((e) => ({ index: e.index, body: e.body, replacement: e.body })),
      });
      expect(r1).toMatchObject({ ok: true, taken: 50, cursor: 50 });

      const runner = new BulkRunner({ getBackend: async () => backend, holdSeconds: 1, pollMs: 100 });
      runners.push(runner);
      // while the dead process's lock lasts, nobody else takes the job
      expect(await runner.claim("j")).toBe(false);
      await new Promise((r) => setTimeout(r, 1100));
      await runner.pollOnce();
      await runner.settle("j");
      const [rec] = await backend.bulkJobGet(["j"]);
      expect(rec).toMatchObject({ state: "done", done: 1500, missing: 0 });
      expect(rec!.owner).not.toBe(token);
      const pending = (await backend.queuePeek("q", 5000)).map((b) => (JSON.parse(b.toString()) as { id: string }).id);
      expect(pending).toHaveLength(1500);
      expect(new Set(pending).size).toBe(1500);
      const dead = (await backend.dlqPeek("q", 5000)).map((b) => JSON.parse(b.toString()) as { payload: { even: boolean } });
      expect(dead).toHaveLength(1500);
      expect(dead.every((t) => !t.payload.even)).toBe(true);
    });

    it("reports progress after its chunks, and its end once, whichever process sees the end", async () => {
      backend = await make();
      for (let i = 0; i < 1200; i += 400) await Promise.all(Array.from({ length: 400 }, (_, j) => backend.queueDead("q", task(i + j))));
      await backend.bulkJobCreate("p", doc({ action: "delete-dead", where: null, q: "t" }));
      const ended: string[] = [];
      const progress: number[] = [];
      const make2 = () =>
        new BulkRunner({
          getBackend: async () => backend,
          progressEveryMs: 0,
          onProgress: async (job) => {
            progress.push(job.done);
          },
          onFinished: async (job, audit) => {
            ended.push(`${job.state}:${job.done}:${audit === null}`);
          },
        });
      const a = make2();
      const b = make2();
      runners.push(a, b);
      expect(await a.claim("p")).toBe(true);
      await a.settle("p");
      // another console that also saw it end (a cancel there, its poll) records nothing more
      await Promise.all([b.finishIfIdle("p"), a.finishIfIdle("p"), b.claim("p")]);
      expect(ended).toEqual(["done:1200:true"]);
      expect(progress).toEqual([500, 1000, 1200]);
    });

    it("keeps the rate cap", async () => {
      backend = await make();
      for (let i = 0; i < 40; i++) await backend.queueDead("q", task(i * 2));
      await backend.bulkJobCreate("slow", doc({ action: "delete-dead", where: null, q: "t", rate: 20 }));
      const runner = new BulkRunner({ getBackend: async () => backend });
      runners.push(runner);
      const t0 = Date.now();
      expect(await runner.claim("slow")).toBe(true);
      await runner.settle("slow");
      // 40 tasks at 20 a second: the last chunk of 20 may go at once, the wait before it may not
      expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
      expect((await backend.bulkJobGet(["slow"]))[0]).toMatchObject({ state: "done", done: 40 });
      expect(await backend.dlqLength("q")).toBe(0);
    });
  });
}
