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

    // A second connection for the worker (Redis), so that its commands really interleave with the job's.
    const workerBackend = async () => (kind === "memory" ? backend : createRedisBackend(server.url()));

    /** A worker of the fleet: reserves, then fails (into the dead letters) or acks; pushes new tasks on the side. */
    function startWorker(w: Backend, opts: { fail: (id: string) => boolean; sideTask: (k: number) => { dead?: Buffer; pending?: Buffer } | null }) {
      const acked: string[] = [];
      let stop = false;
      let k = 0;
      const loop = (async () => {
        while (!stop) {
          const side = opts.sideTask(k++);
          if (side?.dead) await w.queueDead("q", side.dead);
          if (side?.pending) await w.queuePush("q", side.pending);
          const t = await w.queueReserveLease("q", 0, 60);
          if (t) {
            const id = (JSON.parse(t.body.toString()) as { id: string }).id;
            if (opts.fail(id)) await w.queueFail("q", id, t.body, { lease: t.lease });
            else {
              await w.queueAck("q", id, { lease: t.lease });
              acked.push(id);
            }
          }
          // the memory backend shares this event loop: let the job go on
          await new Promise((r) => setImmediate(r));
        }
      })();
      return {
        acked,
        async stop() {
          stop = true;
          await loop;
        },
      };
    }

    /** Every body in the queue's lists and reservations, by task id: how many places hold it. */
    async function census(): Promise<Map<string, number>> {
      const out = new Map<string, number>();
      const add = (b: Buffer) => {
        const id = (JSON.parse(b.toString()) as { id: string }).id;
        out.set(id, (out.get(id) ?? 0) + 1);
      };
      for (const part of ["high", "normal", "low", "processing", "dead"] as const) {
        for (let start = 0; ; start += 2000) {
          const c = await backend.queueScan("q", part, start, 2000);
          for (const e of c.entries) add(e.body);
          if (start + 2000 >= c.total) break;
        }
      }
      return out;
    }

    it("a redrive while a worker pops, fails back into the dead letters and new ones come: every body once, none requeued twice", async () => {
      backend = await make();
      const w = await workerBackend();
      const original = Array.from({ length: 3000 }, (_, i) => pyJsonBytes({ id: `d${i}`, payload: { grp: i % 3 === 0 ? "b" : "a" }, attempts: 3 }));
      for (let i = 0; i < original.length; i += 500) await Promise.all(original.slice(i, i + 500).map((b) => backend.queueDead("q", b)));
      await backend.bulkJobCreate("r", doc({ where: 'payload.grp = "a"', rate: 2000 }));
      const fresh: string[] = [];
      // what comes after the job began reading (its first chunk taken) is not the job's
      let begun = false;
      // every other requeued task fails again; new dead letters of the very same group keep coming
      const worker = startWorker(w, {
        fail: (id) => Number(id.slice(1)) % 2 === 0,
        sideTask: (k) => {
          if (!begun || k % 4 !== 0 || fresh.length >= 400) return null;
          fresh.push(`n${fresh.length}`);
          return { dead: pyJsonBytes({ id: fresh.at(-1), payload: { grp: "a" }, attempts: 3 }) };
        },
      });
      const runner = new BulkRunner({
        getBackend: async () => backend,
        progressEveryMs: 0,
        onProgress: async () => {
          begun = true;
        },
      });
      runners.push(runner);
      expect(await runner.claim("r")).toBe(true);
      await runner.settle("r");
      // let the worker drain what was requeued
      await expect.poll(async () => (await backend.queueDepths(["q"]))[0]!.pending.total + (await backend.queueDepths(["q"]))[0]!.processing, { timeout: 30_000 }).toBe(0);
      await worker.stop();
      if (w !== backend) await w.close();
      const [rec] = await backend.bulkJobGet(["r"]);
      // each of the 2000 matching dead letters requeued exactly once, none of those that failed again, none that came later
      expect(rec).toMatchObject({ state: "done", done: 2000, missing: 0 });
      const places = await census();
      const acked = new Set(worker.acked);
      expect(worker.acked.length).toBe(acked.size);
      for (const id of [...original.map((_, i) => `d${i}`), ...fresh]) {
        const n = (places.get(id) ?? 0) + (acked.has(id) ? 1 : 0);
        expect(n, `task ${id} is in ${n} places`).toBe(1);
      }
      expect(places.size).toBe(3000 + fresh.length - acked.size);
      // the ones that came later are all still dead letters, and so are those that failed again
      expect(fresh.every((id) => places.get(id) === 1)).toBe(true);
      expect(fresh.length).toBeGreaterThan(10);
      expect(acked.size).toBe(1000);
    }, 60_000);

    it("deleting matching pending tasks while workers pop them and producers push: no match left behind, every body accounted for", async () => {
      backend = await make();
      const w = await workerBackend();
      const original = Array.from({ length: 5000 }, (_, i) => ({ body: pyJsonBytes({ id: `p${i}`, payload: { grp: i % 3 === 0 ? "b" : "a" } }) }));
      for (let i = 0; i < original.length; i += 1000) await backend.queuePushMany("q", original.slice(i, i + 1000));
      const matching = new Set(original.map((_, i) => `p${i}`).filter((_, i) => i % 3 !== 0));
      await backend.bulkJobCreate("x", doc({ action: "delete-pending", where: 'payload.grp = "a"', rate: 2000 }));
      const pushed: string[] = [];
      let begun = false;
      const worker = startWorker(w, {
        fail: () => false,
        sideTask: (k) => {
          if (!begun || k % 3 !== 0 || pushed.length >= 500) return null;
          pushed.push(`q${pushed.length}`);
          return { pending: pyJsonBytes({ id: pushed.at(-1), payload: { grp: "a" } }) };
        },
      });
      const runner = new BulkRunner({
        getBackend: async () => backend,
        progressEveryMs: 0,
        onProgress: async () => {
          begun = true;
        },
      });
      runners.push(runner);
      expect(await runner.claim("x")).toBe(true);
      await runner.settle("x");
      await worker.stop();
      if (w !== backend) await w.close();
      const [rec] = await backend.bulkJobGet(["x"]);
      expect(rec?.state).toBe("done");
      const places = await census();
      const acked = new Set(worker.acked);
      // not one matching task left pending: none was skipped while the list moved
      expect([...matching].filter((id) => places.has(id))).toEqual([]);
      // each matching task was deleted by the job or taken by a worker, never both; `missing` counts
      // those a worker took between the job's read and its take
      const takenByWorker = [...matching].filter((id) => acked.has(id)).length;
      expect(rec!.done + takenByWorker).toBe(matching.size);
      expect(rec!.missing).toBeLessThanOrEqual(takenByWorker);
      expect(worker.acked.length).toBe(acked.size);
      // the others, and the tasks pushed meanwhile, are all still there or were taken by the worker, once
      for (const id of [...original.map((_, i) => `p${i}`).filter((id) => !matching.has(id)), ...pushed]) {
        expect((places.get(id) ?? 0) + (acked.has(id) ? 1 : 0), `task ${id}`).toBe(1);
      }
      expect(acked.size).toBeGreaterThan(50);
    }, 60_000);

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
