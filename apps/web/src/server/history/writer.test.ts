// The history writer on both backends (Redis: a redis-server of its own): one queueWatch and
// one historyWrite per tick whatever the number of queues; exact throughput while a backlog
// lasts, the oldest wait growing on a stuck queue, the 5 min aggregate, the fleet series,
// a new term carrying the counter and the 5 min record on from Redis.
import { pyJsonBytes, type Backend } from "@fleet/backend";
import { createMemoryBackend } from "@fleet/backend/memory";
import { createRedisBackend } from "@fleet/backend/redis";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { decodeRecord, RECORD_BYTES, slotOffset, slotTime } from "./format";
import { HistoryWriter, parseLatest } from "./writer";

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const task = (id: string) => pyJsonBytes({ id, payload: {} });

for (const kind of ["redis", "memory"] as const) {
  describe(`[${kind}] history writer`, () => {
    let backend: Backend;
    let calls: Record<string, number>;
    beforeEach(async () => {
      if (kind === "redis") {
        const r = new Redis(redis.url(), { maxRetriesPerRequest: 1 });
        await r.flushdb();
        r.disconnect();
        backend = createRedisBackend(redis.url());
      } else backend = createMemoryBackend();
      calls = {};
      for (const m of ["queueWatch", "historyWrite", "queueDepths", "queueDetail"] as const) {
        const orig = (backend[m] as (...a: unknown[]) => Promise<unknown>).bind(backend);
        (backend as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => {
          calls[m] = (calls[m] ?? 0) + 1;
          return orig(...a);
        };
      }
    });
    afterEach(async () => {
      await backend.close();
    });

    async function record(series: string | null, tier: "10s" | "5m", t: number) {
      const [buf] = await backend.historyRead([{ series, tier, offset: slotOffset(tier, t), length: RECORD_BYTES }]);
      return decodeRecord(buf!);
    }

    it("one batched read and one write per tick, whatever the number of queues", async () => {
      const names = Array.from({ length: 25 }, (_, i) => `q${i}`);
      for (const n of names) await backend.queuePush(n, task(n));
      const w = new HistoryWriter();
      const t0 = 1_800_000_000;
      await w.tick(backend, names, t0);
      calls = {};
      await w.tick(backend, names, t0 + 10);
      expect(calls).toEqual({ queueWatch: 1, historyWrite: 1 });
    });

    it("counts reservations that ended exactly while a backlog lasts, and the fleet's sum", async () => {
      for (let i = 0; i < 50; i++) await backend.queuePush("jobs", task(`t${i}`));
      await backend.queuePush("other", task("o1"));
      const w = new HistoryWriter();
      const t0 = 1_800_000_000;
      await w.tick(backend, ["jobs", "other"], t0);
      // 20 reserved and acked, 3 reserved and still running, 5 more pushed
      for (let i = 0; i < 23; i++) {
        const body = await backend.queueReserve("jobs", 0, 600);
        if (i < 20) await backend.queueAck("jobs", JSON.parse(body!.toString()).id as string);
      }
      for (let i = 50; i < 55; i++) await backend.queuePush("jobs", task(`t${i}`));
      const tick = await w.tick(backend, ["jobs", "other"], t0 + 10);
      const jobs = tick.queues.find((q) => q.name === "jobs")!;
      expect(jobs.record).toMatchObject({ normal: 32, processing: 3, finished: 20, flags: 0 });
      expect(jobs.finishedTotal).toBe(20);
      const stored = await record("jobs", "10s", t0 + 10);
      expect(stored).toMatchObject({ ts: t0 + 10, normal: 32, processing: 3, finished: 20 });
      const fleet = await record(null, "10s", t0 + 10);
      expect(fleet).toMatchObject({ normal: 33, processing: 3, finished: 20 });
      const latest = parseLatest((await backend.historyLatest()).get("jobs")!);
      expect(latest).toMatchObject({ ts: t0 + 10, finished_total: 20 });
    });

    it("tasks flowing through empty pending lists are not seen: what is counted is flagged a lower bound", async () => {
      await backend.queuePush("fast", task("a"));
      await backend.queueReserve("fast", 0, 600); // in flight, nothing pending
      const w = new HistoryWriter();
      const t0 = 1_800_000_000;
      await w.tick(backend, ["fast"], t0);
      const t = await w.tick(backend, ["fast"], t0 + 10);
      expect(t.queues[0]!.record).toMatchObject({ processing: 1, finished: 0, flags: 1 });
      expect(t.queues[0]!.atLeast).toBe(true);
      // an idle queue (nothing pending, nothing in flight) is not flagged
      await backend.queuePush("idle", task("x"));
      await backend.queueDead("idle", task("y"));
      const idle = new HistoryWriter();
      await backend.queueReserve("idle", 0, 600);
      await backend.queueAck("idle", "x");
      await idle.tick(backend, ["idle"], t0);
      expect((await idle.tick(backend, ["idle"], t0 + 10)).queues[0]!.record.flags).toBe(0);
    });

    it("a stuck queue's oldest wait grows tick by tick; the 5 min record aggregates the ticks", async () => {
      await backend.queuePush("stuck", task("a"));
      await backend.queuePush("stuck", task("b"));
      const w = new HistoryWriter();
      const t0 = 1_800_000_100; // a 5 min bucket starts at 1_800_000_000
      const ages: Array<number | null> = [];
      for (let i = 0; i < 6; i++) ages.push((await w.tick(backend, ["stuck"], t0 + i * 10)).queues[0]!.oldestPendingAge);
      expect(ages).toEqual([null, 10, 20, 30, 40, 50]);
      const coarse = await record("stuck", "5m", t0);
      expect(coarse).toMatchObject({ ts: slotTime("5m", t0), normal: 2, samples: 6, oldest: 50 });
    });

    it("a new term (another leader) carries the counter and the 5 min record on from Redis", async () => {
      for (let i = 0; i < 10; i++) await backend.queuePush("jobs", task(`t${i}`));
      const t0 = 1_800_000_000;
      const first = new HistoryWriter();
      await first.tick(backend, ["jobs"], t0);
      for (let i = 0; i < 4; i++) {
        const body = await backend.queueReserve("jobs", 0, 600);
        await backend.queueAck("jobs", JSON.parse(body!.toString()).id as string);
      }
      await first.tick(backend, ["jobs"], t0 + 10);
      const second = new HistoryWriter();
      const t = await second.tick(backend, ["jobs"], t0 + 20);
      expect(t.queues[0]!.finishedTotal).toBe(4);
      const coarse = await record("jobs", "5m", t0);
      expect(coarse).toMatchObject({ samples: 3, finished: 4 });
    });
  });
}
