// Bodies a mixed fleet produces (issue 13), through the worker runtime on both backends: every
// task with a usable id runs and is acknowledged once; one without is dead-lettered once and
// never left in :processing; a retry changes only `attempts` and `last_error`.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { keys, type Backend } from "@fleet/backend";
import { createMemoryBackend } from "@fleet/backend/memory";
import { createRedisBackend } from "@fleet/backend/redis";
import { TASK_ID_CASES } from "@fleet/backend/testing";
import { defineAutomation, runtimeConfigShape, startWorker, type WorkerHandle } from "../src/index";
import { testRedisUrl } from "@fleet/backend/testing/redis-dbs";
import { uniqueName } from "./helpers";

const config = z.object(runtimeConfigShape);

for (const [name, make] of [
  ["memory", () => createMemoryBackend("memory://mixed-bodies")],
  ["redis", () => createRedisBackend(testRedisUrl("packages/worker/test/mixed-bodies.test.ts"))],
] as const) {
  describe(`mixed-fleet task bodies on ${name}`, () => {
    const backend: Backend = make();
    const workers: WorkerHandle[] = [];
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.kill()));
    });
    afterAll(async () => {
      await backend.close();
    });

    it("runs and acks every body with a usable id once, and dead-letters the others once, leaving nothing in :processing", async () => {
      const ran: string[] = [];
      const a = defineAutomation({
        type: uniqueName("ids"),
        kind: "batch",
        config,
        run: async (_ctx, task) => {
          ran.push(task.id);
        },
      });
      for (const c of TASK_ID_CASES) await backend.queuePush(a.type, c.body);
      const w = await startWorker({ backend, automation: a, workerId: uniqueName("w"), heartbeatMs: 60_000, configPollMs: 60_000, idlePollMs: { min: 5, max: 20 } });
      workers.push(w);
      const usable = TASK_ID_CASES.filter((c) => c.id !== null);
      const unusable = TASK_ID_CASES.filter((c) => c.id === null);
      await w.waitFor((s) => s.tasksDone + s.tasksDead === TASK_ID_CASES.length, 10_000);
      expect(ran).toEqual(usable.map((c) => c.id));
      expect(w.snapshot()).toMatchObject({ tasksDone: usable.length, tasksDead: unusable.length, tasksRetried: 0 });
      const [d] = await backend.queueDepths([a.type]);
      expect(d).toMatchObject({ pending: { total: 0 }, processing: 0, scheduled: 0, dead: unusable.length });
      expect(await backend.dlqPeek(a.type, 100)).toEqual(unusable.map((c) => c.body));
      // a sweep far in the future finds nothing left behind to put back
      expect(await backend.queueSweepExpired(a.type, Date.now() / 1000 + 86_400)).toEqual({ requeued: 0, orphaned: [] });
    });

    it("a retry changes only attempts and last_error, and the dead letter keeps every other byte", async () => {
      const a = defineAutomation({
        type: uniqueName("retry"),
        kind: "batch",
        config,
        run: async () => {
          throw new Error("no ☃");
        },
      });
      const body = '{"id": 12345678901234567890, "payload": {"big": 98765432109876543210, "f": 1.0, "2": "b", "1": "a", "s": "\\u00e9", "nan": NaN}}';
      await backend.queuePush(a.type, body);
      const w = await startWorker({ backend, automation: a, workerId: uniqueName("w"), heartbeatMs: 60_000, configPollMs: 60_000, idlePollMs: { min: 5, max: 20 } });
      workers.push(w);
      w.pushConfig({ max_attempts: 2, retry_base_ms: 10, retry_max_ms: 20 }, 1);
      await w.waitFor((s) => s.tasksDead === 1, 10_000);
      const [dead] = await backend.dlqPeek(a.type, 10);
      expect(dead!.toString()).toBe(`${body.slice(0, -1)}, "attempts": 2, "last_error": "Error: no \\u2603"}`);
      expect(await backend.queueDepths([a.type])).toMatchObject([{ processing: 0, scheduled: 0, dead: 1 }]);
    });

    it("refreshes its config when the stored config and gen are empty, reading them as {} and 0", async () => {
      const a = defineAutomation({ type: uniqueName("cfg"), kind: "batch", config, run: async () => undefined });
      const workerId = uniqueName("w");
      await backend.workerRegister(a.type, workerId, {});
      const w = await startWorker({ backend, automation: a, workerId, heartbeatMs: 60_000, configPollMs: 60_000 });
      workers.push(w);
      await plantEmpty(backend, a.type, workerId);
      expect(await w.refreshConfig()).toBe(false);
      expect(w.snapshot().configGen).toBe(0);
    });
  });
}

/** Empty strings where config and gen live, as a foreign writer may leave them. */
async function plantEmpty(backend: Backend, type: string, id: string): Promise<void> {
  if (backend.kind === "memory") {
    const raw = (backend as unknown as { raw: { set(k: string, v: string): void } }).raw;
    raw.set(keys.worker(type, id, "config"), "");
    raw.set(keys.worker(type, id, "gen"), "");
  } else {
    await (backend as unknown as { client: { mset(...kv: string[]): Promise<unknown> } }).client.mset(keys.worker(type, id, "config"), "", keys.worker(type, id, "gen"), "");
  }
}
