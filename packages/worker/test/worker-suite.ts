// The runtime's behaviour, run against every Backend implementation (memory and real Redis).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Backend, BusMessage } from "@fleet/backend";
import { isJsonObject, parseJsonBytes, pyJsonBytes } from "@fleet/backend";
import {
  defineAutomation,
  encodeTaskBody,
  runtimeConfigShape,
  sharedBus,
  startHousekeeping,
  startWorker,
  type Automation,
  type WorkerHandle,
  type WorkerOptions,
} from "../src/index";
import { countingBackend, uniqueName, waitUntil, type BackendFactory } from "./helpers";

const baseConfig = z.object({ ...runtimeConfigShape, timeout_ms: z.number().int().min(0).default(0) });

function json(buf: Buffer | null | undefined): Record<string, unknown> {
  if (!buf) throw new Error("no value");
  const p = parseJsonBytes(buf);
  if (!p.ok || !isJsonObject(p.value)) throw new Error(`not a JSON object: ${buf.toString()}`);
  return p.value;
}

export function describeWorkerSuite(name: string, factory: BackendFactory): void {
  describe(`worker runtime on ${name}`, () => {
    let backend: Backend;
    const workers: WorkerHandle[] = [];
    const cleanups: Array<() => Promise<void>> = [];

    beforeAll(async () => {
      backend = await factory();
    });
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.kill()));
      for (const c of cleanups.splice(0)) await c();
    });
    afterAll(async () => {
      await backend.close();
    });

    const start = async (automation: Automation, opts: Partial<WorkerOptions> = {}) => {
      const w = await startWorker({
        backend,
        automation,
        workerId: opts.workerId ?? uniqueName("w"),
        heartbeatMs: 60_000,
        configPollMs: 60_000,
        idlePollMs: { min: 10, max: 50 },
        ...opts,
      });
      workers.push(w);
      return w;
    };

    const batch = (run: (payload: Record<string, unknown>, attempts: number) => Promise<unknown>, extra: { taskPayload?: z.ZodType } = {}) =>
      defineAutomation({
        type: uniqueName("batch"),
        kind: "batch",
        config: baseConfig,
        ...(extra.taskPayload ? { taskPayload: extra.taskPayload } : {}),
        run: async (_ctx, task) => run(task.payload as Record<string, unknown>, task.attempts),
      });

    const submit = async (queue: string, payloads: unknown[]) => {
      const ids: string[] = [];
      for (const p of payloads) {
        const { id, body } = encodeTaskBody(p);
        ids.push(id);
        await backend.queuePush(queue, body);
      }
      return ids;
    };

    it("registers with its hardware, simulated fields overriding detected ones", async () => {
      const a = batch(async () => undefined);
      const w = await start(a, { hostname: "sim-host-7", hardware: { cpus: 96, region: "eu-west" } });
      const rec = await backend.workerGet(a.type, w.workerId);
      expect(rec?.registered).toBe(true);
      expect(rec?.hardware).toMatchObject({ hostname: "sim-host-7", cpus: 96, region: "eu-west" });
      expect(String(rec?.hardware?.runtime)).toMatch(/^node v\d+/);
      expect(typeof rec?.hardware?.memory).toBe("number");
      expect(typeof rec?.hardware?.os).toBe("string");
      const refs = await backend.workerList(a.type);
      expect(refs.map((r) => r.workerId)).toEqual([w.workerId]);
      expect(rec?.configGen).toBe(0);
      expect(rec?.state).toMatch(/^(IDLE|RUNNING)$/);
    });

    it("heartbeats state and last_seen from its clock", async () => {
      let t = 1_700_000_000.25;
      const a = defineAutomation({
        type: uniqueName("cont"),
        kind: "continuous",
        config: baseConfig,
        run: async (ctx) => ctx.sleep(20),
      });
      const w = await start(a, { heartbeatMs: 40, clock: { now: () => t } });
      const first = await backend.workerGet(a.type, w.workerId);
      expect(first?.lastSeen).toBe(1_700_000_000.25);
      expect(first?.state).toBe("RUNNING");
      expect(first?.lastError).toBeNull();
      t += 5;
      const beats = w.snapshot().heartbeats;
      await w.waitFor((s) => s.heartbeats >= beats + 2, 20_000);
      expect((await backend.workerGet(a.type, w.workerId))?.lastSeen).toBe(1_700_000_005.25);
      const history = await backend.workerStatsHistory(a.type, w.workerId);
      expect(history.length).toBeGreaterThanOrEqual(3);
    });

    it("pushes stats frames and a capped stats history", async () => {
      const a = batch(async () => undefined);
      const w = await start(a, { heartbeatMs: 30, statsHistoryMax: 4 });
      await submit(a.type, [{ n: 1 }, { n: 2 }]);
      await w.waitFor((s) => s.tasksDone === 2, 20_000);
      await waitUntil(
        async () => {
          const rec = await backend.workerGet(a.type, w.workerId);
          return rec?.stats?.tasks_done === 2 && rec.historyLen === 4 ? rec : null;
        },
        20_000,
        "stats with tasks_done 2 and 4 history frames",
      );
      const rec = await backend.workerGet(a.type, w.workerId);
      for (const k of ["slots_running", "slots_target", "tasks_done", "tasks_failed", "latency_ms", "memory_mb", "cpu_pct"]) expect(rec?.stats).toHaveProperty(k);
      expect(rec?.stats?.slots_target).toBe(1);
      const history = await backend.workerStatsHistory(a.type, w.workerId);
      expect(history).toHaveLength(4);
      const ts = history.map((f) => Number(f.ts));
      expect([...ts].sort((x, y) => x - y)).toEqual(ts);
    });

    it("applies a newer config generation and ignores stale ones (pushed, stored or announced)", async () => {
      const a = batch(async () => undefined);
      const w = await start(a);
      expect(w.snapshot().configGen).toBe(0);
      expect(w.snapshot().slotsTarget).toBe(1);

      const { gen } = await backend.workerSetConfig(a.type, w.workerId, { slots: 2 });
      expect(gen).toBe(1);
      expect(await w.refreshConfig()).toBe(true);
      expect(w.snapshot()).toMatchObject({ configGen: 1, slotsTarget: 2 });

      // equal and older generations are refused
      expect(w.pushConfig({ slots: 5 }, 1)).toBe(false);
      expect(w.pushConfig({ slots: 5 }, 0)).toBe(false);
      expect(w.snapshot()).toMatchObject({ configGen: 1, slotsTarget: 2 });
      expect(w.pushConfig({ slots: 3 }, 7)).toBe(true);
      expect(w.snapshot()).toMatchObject({ configGen: 7, slotsTarget: 3 });

      // the stored generation regresses (keys lost, re-registered at gen 0): ignored
      await backend.workerRemove(a.type, w.workerId);
      await backend.workerRegister(a.type, w.workerId, {});
      await backend.workerSetConfig(a.type, w.workerId, { slots: 9 });
      const ignoredBefore = w.snapshot().configsIgnored;
      expect(await w.refreshConfig()).toBe(false);
      expect(w.snapshot()).toMatchObject({ configGen: 7, slotsTarget: 3 });
      expect(w.snapshot().configsIgnored).toBe(ignoredBefore + 1);

      // an invalid config spends its generation but keeps the last good config
      expect(w.pushConfig({ slots: 1000 }, 8)).toBe(false);
      expect(w.snapshot()).toMatchObject({ configGen: 8, slotsTarget: 3, configsRejected: 1 });
      expect(w.snapshot().lastError).toMatch(/config gen 8 rejected/);
    });

    it("reacts to event:fleet.config at once, without waiting for the poll", async () => {
      const a = batch(async () => undefined);
      const w = await start(a, { configPollMs: 3_600_000 });
      const other = await start(a, { configPollMs: 3_600_000 });
      await backend.workerSetConfig(a.type, w.workerId, { slots: 4 });
      // the poll is an hour away: only the announcement can bring the change in (no latency claim)
      await backend.eventPublish("fleet.config", pyJsonBytes({ automation_type: a.type, worker_id: w.workerId, config_gen: 1 }));
      await w.waitFor((s) => s.configGen === 1 && s.slotsTarget === 4, 20_000);
      expect(other.snapshot().configGen).toBe(0);

      // an announcement of a generation it already has is ignored without a read
      const ignored = w.snapshot().configsIgnored;
      await backend.eventPublish("fleet.config", pyJsonBytes({ automation_type: a.type, worker_id: w.workerId, config_gen: 1 }));
      await w.waitFor((s) => s.configsIgnored === ignored + 1, 20_000);
      expect(w.snapshot().configGen).toBe(1);
    });

    it("shares one bus subscription between all workers of a process", async () => {
      const counted = countingBackend(backend);
      const a = batch(async () => undefined);
      const ws = await Promise.all([1, 2, 3].map(() => start(a, { backend: counted.backend })));
      expect(counted.calls.get("subscribeEvents")).toBe(1);
      expect(sharedBus(counted.backend).listenerCount).toBe(3);
      await Promise.all(ws.map((w) => w.stop({ graceMs: 100 })));
      expect(sharedBus(counted.backend).listenerCount).toBe(0);
    });

    it("reconciles running slots to config.slots", async () => {
      const running = new Set<number>();
      const a = defineAutomation({
        type: uniqueName("cont"),
        kind: "continuous",
        config: baseConfig,
        run: async (ctx) => {
          running.add(ctx.slot);
          try {
            await ctx.sleep(10_000);
          } finally {
            running.delete(ctx.slot);
          }
        },
      });
      const w = await start(a);
      await waitUntil(() => running.size === 1, 20_000, "1 slot");
      w.pushConfig({ slots: 4 }, 1);
      await waitUntil(() => running.size === 4, 20_000, "4 slots");
      expect(w.snapshot().slotsRunning).toBe(4);
      expect([...running].sort()).toEqual([0, 1, 2, 3]);
      w.pushConfig({ slots: 2 }, 2);
      await waitUntil(() => running.size === 2 && w.snapshot().slotsRunning === 2, 20_000, "2 slots");
      expect([...running].sort()).toEqual([0, 1]);
      w.pushConfig({ slots: 0 }, 3);
      await w.waitFor((s) => s.slotsRunning === 0 && s.state === "IDLE", 20_000);
      await waitUntil(async () => (await backend.workerGet(a.type, w.workerId))?.state === "IDLE", 20_000, "IDLE written");
    });

    it("reserves, runs and acks every task, high priority first", async () => {
      const seen: number[] = [];
      const a = batch(async (p) => {
        seen.push(Number(p.n));
      });
      // queue first, then start: the one slot must take high before normal before low
      await backend.queuePush(a.type, encodeTaskBody({ n: 3 }).body, { priority: "low" });
      await backend.queuePush(a.type, encodeTaskBody({ n: 2 }).body, { priority: "normal" });
      await backend.queuePush(a.type, encodeTaskBody({ n: 1 }).body, { priority: "high" });
      const w = await start(a);
      await w.waitFor((s) => s.tasksDone === 3, 20_000);
      expect(seen).toEqual([1, 2, 3]);
      const [d] = await backend.queueDepths([a.type]);
      expect(d).toMatchObject({ processing: 0, scheduled: 0, dead: 0 });
      expect(d?.pending.total).toBe(0);
    });

    it("retries with exponential backoff, recording attempts and error in the body, then dead-letters", async () => {
      const times: number[] = [];
      const a = batch(async () => {
        times.push(Date.now());
        throw new Error("upstream said 503");
      });
      const w = await start(a, { random: () => 0.5 });
      w.pushConfig({ max_attempts: 4, retry_base_ms: 150, retry_max_ms: 10_000 }, 1);
      const [id] = await submit(a.type, [{ url: "https://example.test/x" }]);
      await w.waitFor((s) => s.tasksDead === 1, 20_000);
      expect(times).toHaveLength(4);
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      // 150, 300, 600 ms (jitter pinned by random 0.5), plus reserve polling
      expect(gaps[0]).toBeGreaterThanOrEqual(140);
      expect(gaps[1]).toBeGreaterThanOrEqual(290);
      expect(gaps[2]).toBeGreaterThanOrEqual(590);
      expect(gaps[1]!).toBeGreaterThan(gaps[0]!);
      expect(gaps[2]!).toBeGreaterThan(gaps[1]!);
      const dead = await backend.dlqPeek(a.type, 10);
      expect(dead).toHaveLength(1);
      const doc = json(dead[0]);
      expect(doc).toMatchObject({ id, payload: { url: "https://example.test/x" }, attempts: 4 });
      expect(String(doc.last_error)).toContain("upstream said 503");
      expect(Object.keys(doc)).toEqual(["id", "payload", "attempts", "last_error"]);
      const [d] = await backend.queueDepths([a.type]);
      expect(d).toMatchObject({ processing: 0, scheduled: 0, dead: 1 });
      expect(w.snapshot()).toMatchObject({ tasksFailed: 4, tasksRetried: 3, tasksDead: 1, tasksDone: 0 });
    });

    it("a task that fails once succeeds on retry and sees its attempts and last error", async () => {
      const deliveries: Array<{ attempts: number; lastError: string | null }> = [];
      const a = defineAutomation({
        type: uniqueName("batch"),
        kind: "batch",
        config: baseConfig,
        run: async (_ctx, task) => {
          deliveries.push({ attempts: task.attempts, lastError: task.lastError });
          if (task.attempts === 0) throw new Error("first try fails");
        },
      });
      const w = await start(a);
      w.pushConfig({ retry_base_ms: 20 }, 1);
      await submit(a.type, [{ k: 1 }]);
      await w.waitFor((s) => s.tasksDone === 1, 20_000);
      expect(deliveries).toEqual([
        { attempts: 0, lastError: null },
        { attempts: 1, lastError: "Error: first try fails" },
      ]);
      expect(await backend.dlqLength(a.type)).toBe(0);
    });

    it("dead-letters at once a payload that fails the task_payload schema, and times out slow tasks", async () => {
      const a = batch(
        async (p) => {
          if (p.slow) await new Promise((r) => setTimeout(r, 2000));
        },
        { taskPayload: z.object({ n: z.number(), slow: z.boolean().optional() }) },
      );
      const w = await start(a);
      w.pushConfig({ max_attempts: 1, timeout_ms: 100 }, 1);
      await submit(a.type, [{ n: "not a number" }, { n: 1, slow: true }]);
      await w.waitFor((s) => s.tasksDead === 2, 20_000);
      const errors = (await backend.dlqPeek(a.type, 10)).map((b) => String(json(b).last_error));
      expect(errors[0]).toMatch(/invalid payload/);
      expect(errors[1]).toMatch(/TimeoutError: task timed out/);
    });

    it("continuous slots emit results to the automation's stream and announce them", async () => {
      let n = 0;
      const a = defineAutomation({
        type: uniqueName("cont"),
        kind: "continuous",
        config: baseConfig,
        output: z.object({ n: z.number() }),
        run: async (ctx) => {
          await ctx.sleep(10);
          return { n: ++n };
        },
      });
      const announced: BusMessage[] = [];
      const unlisten = await sharedBus(backend).listen(`${a.type}.emit`, (m) => announced.push(m));
      cleanups.push(unlisten);
      const w = await start(a);
      await waitUntil(async () => (await backend.streamLength(a.type)) >= 5, 20_000, "5 stream entries");
      const entries = await backend.streamRange(a.type, 3, "oldest");
      const env = json(entries[0]!.envelope);
      expect(env).toMatchObject({ automation_type: a.type, worker_id: w.workerId, data: { n: 1 } });
      expect(env.ts).toBeCloseTo(entries[0]!.score, 6);
      await waitUntil(() => announced.length >= 3, 20_000, "emit announcements");
      expect(Number(announced[0]!.payload.toString())).toBeGreaterThan(1_600_000_000);
    });

    it("turns ERROR with last_error when a slot crashes repeatedly, and RUNNING again once it recovers", async () => {
      let failing = true;
      const a = defineAutomation({
        type: uniqueName("cont"),
        kind: "continuous",
        config: baseConfig,
        run: async (ctx) => {
          await ctx.sleep(5);
          if (failing) throw new Error("browser crashed");
        },
      });
      const w = await start(a, { crashBackoffMs: { base: 10, max: 20 }, errorAfterCrashes: 3 });
      await w.waitFor((s) => s.state === "ERROR", 20_000);
      const rec = await waitUntil(
        async () => {
          const r = await backend.workerGet(a.type, w.workerId);
          return r?.state === "ERROR" ? r : null;
        },
        20_000,
        "ERROR written",
      );
      expect(rec.lastError).toMatch(/browser crashed/);
      failing = false;
      await w.waitFor((s) => s.state === "RUNNING", 20_000);
      await waitUntil(
        async () => {
          const r = await backend.workerGet(a.type, w.workerId);
          return r?.state === "RUNNING" && r.lastError === null;
        },
        20_000,
        "RUNNING written with last_error cleared",
      );
    });

    it("graceful stop finishes in-flight work and reports IDLE", async () => {
      // the task ends when the test says, after the stop began: only a stop that waits sees it done
      let finish!: () => void;
      const finished = new Promise<void>((r) => (finish = r));
      const a = batch(async () => finished);
      const w = await start(a);
      await submit(a.type, [{ n: 1 }]);
      await w.waitFor((s) => s.slotsBusy === 1, 20_000);
      const stopping = w.stop({ graceMs: 60_000 });
      await w.waitFor((s) => s.phase === "stopping", 20_000);
      expect(w.snapshot().tasksDone).toBe(0);
      finish();
      await stopping;
      expect(w.snapshot()).toMatchObject({ tasksDone: 1, tasksRequeued: 0, phase: "stopped", state: "IDLE", slotsRunning: 0 });
      const [d] = await backend.queueDepths([a.type]);
      expect(d).toMatchObject({ processing: 0 });
      expect(d?.pending.total).toBe(0);
      expect((await backend.workerGet(a.type, w.workerId))?.state).toBe("IDLE");
    });

    it("graceful stop nacks what outlasts the grace, untouched, and takes no new work", async () => {
      let sideEffects = 0;
      // the task ignores its signal on purpose and goes on only when the test says, after the
      // stop gave it up: the fenced ctx must refuse its late write
      let goOn!: () => void;
      const released = new Promise<void>((r) => (goOn = r));
      let lateWrite!: (outcome: string) => void;
      const triedLate = new Promise<string>((r) => (lateWrite = r));
      const a = defineAutomation({
        type: uniqueName("batch"),
        kind: "batch",
        config: baseConfig,
        run: async (ctx) => {
          await released;
          try {
            await ctx.counter(`${ctx.automationType}-late`).incr();
            sideEffects++;
            lateWrite("written");
          } catch (err) {
            lateWrite(`refused: ${String(err)}`);
            throw err;
          }
        },
      });
      const w = await start(a);
      const [id] = await submit(a.type, [{ n: 1 }]);
      await w.waitFor((s) => s.slotsBusy === 1, 20_000);
      await submit(a.type, [{ n: 2 }]);
      await w.stop({ graceMs: 100 });
      expect(w.snapshot()).toMatchObject({ tasksDone: 0, tasksRequeued: 1, state: "IDLE" });
      const [d] = await backend.queueDepths([a.type]);
      expect(d).toMatchObject({ processing: 0, scheduled: 0, dead: 0 });
      expect(d?.pending.total).toBe(2);
      const bodies = (await backend.queuePeek(a.type, 10)).map(json);
      const back = bodies.find((b) => b.id === id);
      expect(back).toEqual({ id, payload: { n: 1 } });
      expect((await backend.workerGet(a.type, w.workerId))?.state).toBe("IDLE");
      goOn();
      expect(await triedLate).toMatch(/^refused: /);
      expect(sideEffects).toBe(0);
      expect(await backend.counterGet(`${a.type}-late`)).toBe(0);
    });

    it("a killed slot abandons its reservation; the sweep re-queues it and a fresh slot finishes it", async () => {
      const runs = new Map<string, number>();
      const a = defineAutomation({
        type: uniqueName("batch"),
        kind: "batch",
        config: baseConfig,
        run: async (ctx, task) => {
          runs.set(task.id, (runs.get(task.id) ?? 0) + 1);
          if (runs.get(task.id) === 1) await ctx.sleep(60_000);
        },
      });
      // stored before the start: a reserve already waiting would still use the old visibility
      const workerId = uniqueName("w");
      await backend.workerSetConfig(a.type, workerId, { visibility_seconds: 1 });
      const w = await start(a, { workerId });
      expect(w.snapshot().config.visibility_seconds).toBe(1);
      const [id] = await submit(a.type, [{ n: 1 }]);
      await w.waitFor((s) => s.slotsBusy === 1, 20_000);
      expect(w.killBusySlots()).toEqual([id]);
      await w.waitFor((s) => s.slotsRunning === 1 && s.slotsBusy === 0, 20_000);
      const [d] = await backend.queueDepths([a.type]);
      expect(d?.processing).toBe(1);
      const hk = await startHousekeeping({ backend, automations: [], sweepIntervalMs: 100 });
      cleanups.push(() => hk.stop());
      await w.waitFor((s) => s.tasksDone === 1, 20_000);
      expect(runs.get(id!)).toBe(2);
    });

    it("idle slots pick up a pushed task at once, woken by the push, not by their poll", async () => {
      const a = batch(async () => undefined);
      const workerId = uniqueName("w");
      await backend.workerSetConfig(a.type, workerId, { slots: 4 });
      // up to 60 s between reserves: only the wake-up can start the task within the wait below
      const counting = countingBackend(backend);
      const w = await start(a, { workerId, backend: counting.backend, idlePollMs: { min: 60_000, max: 60_000 } });
      await w.waitFor((s) => s.slotsRunning === 4, 20_000);
      // every slot has found the queue empty and waits on the queue (not a guess of how long that takes)
      await waitUntil(() => (counting.calls.get("queueWait") ?? 0) >= 4, 20_000, "four waiting slots");
      await submit(a.type, [{ n: 1 }]);
      // well within the 60 s to the next reserve, generous for a loaded machine
      await w.waitFor((s) => s.tasksDone === 1, 30_000);
    });

    it("idle slots call the reserve about once a second each", async () => {
      const counting = countingBackend(backend);
      const a = batch(async () => undefined);
      const workerId = uniqueName("w");
      await backend.workerSetConfig(a.type, workerId, { slots: 4 });
      const w = await start(a, { workerId, backend: counting.backend, idlePollMs: { min: 100, max: 1000 } });
      await w.waitFor((s) => s.slotsRunning === 4, 20_000);
      const before = counting.calls.get("queueReserveLease") ?? 0;
      const t0 = Date.now();
      await new Promise((r) => setTimeout(r, 3000)); // a rate, measured over a while
      const reserves = (counting.calls.get("queueReserveLease") ?? 0) - before;
      const seconds = (Date.now() - t0) / 1000;
      // the backoff from 100 ms to 1 s costs a few extra calls per slot at the start
      expect(reserves).toBeLessThanOrEqual(4 * (Math.ceil(seconds) + 4));
      expect(reserves).toBeGreaterThan(0);
    });

    it("a task that runs past its visibility window keeps its lease: the sweep leaves it alone and it runs once", async () => {
      let runs = 0;
      const a = defineAutomation({
        type: uniqueName("batch"),
        kind: "batch",
        config: baseConfig,
        run: async (ctx) => {
          runs++;
          await ctx.sleep(2_500);
        },
      });
      const workerId = uniqueName("w");
      await backend.workerSetConfig(a.type, workerId, { slots: 2, visibility_seconds: 1 });
      const w = await start(a, { workerId });
      const hk = await startHousekeeping({ backend, automations: [], sweepIntervalMs: 100 });
      cleanups.push(() => hk.stop());
      await submit(a.type, [{ n: 1 }]);
      await w.waitFor((s) => s.tasksDone === 1, 20_000);
      expect(runs).toBe(1);
      expect(w.snapshot()).toMatchObject({ leasesLost: 0, tasksRequeued: 0 });
      const [d] = await backend.queueDepths([a.type]);
      expect(d).toMatchObject({ processing: 0, pending: { total: 0 } });
    });

    it("a slot whose lease was lost stops the task and leaves it to its new holder", async () => {
      const outcomes: string[] = [];
      const a = defineAutomation({
        type: uniqueName("batch"),
        kind: "batch",
        config: baseConfig,
        run: async (ctx) => ctx.sleep(60_000),
      });
      const workerId = uniqueName("w");
      await backend.workerSetConfig(a.type, workerId, { slots: 1, visibility_seconds: 3 });
      const w = await start(a, { workerId });
      w.events.on("task", (e: { outcome: string }) => outcomes.push(e.outcome));
      const [id] = await submit(a.type, [{ n: 1 }]);
      await w.waitFor((s) => s.slotsBusy === 1, 20_000);
      // as if this process had stalled past its deadline: a sweep re-queues the task and another holder takes it
      expect((await backend.queueSweepExpired(a.type, Date.now() / 1000 + 3600)).requeued).toBe(1);
      const other = await backend.queueReserveLease(a.type, 1, 30);
      expect(other?.lease).toBeTruthy();
      await w.waitFor((s) => s.leasesLost === 1 && s.slotsBusy === 0, 20_000);
      expect(outcomes).toEqual(["lease-lost"]);
      expect(w.snapshot()).toMatchObject({ tasksDone: 0, tasksFailed: 0, tasksRequeued: 0 });
      // the new holder's reservation is untouched and still its own
      const [d] = await backend.queueDepths([a.type]);
      expect(d).toMatchObject({ processing: 1, pending: { total: 0 }, scheduled: 0, dead: 0 });
      expect(await backend.queueAck(a.type, id!, { lease: other!.lease })).toBe(true);
    });

    it("ctx exposes pools, locks, counters, kv, submit and publish over the backend", async () => {
      const t = uniqueName("ctx");
      const published: BusMessage[] = [];
      cleanups.push(await sharedBus(backend).listen(`${t}.note`, (m) => published.push(m)));
      let result: Record<string, unknown> | null = null;
      const a = defineAutomation({
        type: t,
        kind: "batch",
        config: baseConfig,
        run: async (ctx) => {
          const pool = ctx.pool(`${t}-pool`);
          await pool.put("c1", "cookie-1", { tags: { site: "a" }, ttlSeconds: 60 });
          await pool.put("c2", "cookie-2", { tags: { site: "b" } });
          const claimed = await pool.claim({ where: { site: "b" }, holdSeconds: 30 });
          const second = await pool.claim({ where: { site: "b" } });
          await claimed?.release();
          const again = await pool.claim({ where: { site: "b" } });
          const lock = await ctx.lock(`${t}-lock`, { holdSeconds: 5 });
          const contended = await ctx.lock(`${t}-lock`, { holdSeconds: 5, waitSeconds: 0 });
          await lock?.release();
          const viaWith = await ctx.withLock(`${t}-lock`, {}, async () => 42);
          const c = await ctx.counter(`${t}-n`).incr(5);
          await ctx.kv(t).setJson("k", { é: 1 });
          const kv = await ctx.kv(t).getJson("k");
          const raw = (await ctx.kv(t).get("k"))?.toString();
          const sub = await ctx.submit(`${t}-other`, { x: 1 }, { priority: "high" });
          await ctx.publish(`${t}.note`, { hello: "world" });
          result = {
            claimed: claimed?.payload.toString(),
            second,
            again: again?.id,
            contended,
            viaWith,
            c,
            kv,
            raw,
            sub,
          };
        },
      });
      const w = await start(a);
      await submit(t, [{}]);
      await w.waitFor((s) => s.tasksDone === 1, 20_000);
      expect(result).toMatchObject({
        claimed: "cookie-2",
        second: null,
        again: "c2",
        contended: null,
        viaWith: { acquired: true, value: 42 },
        c: 5,
        kv: { é: 1 },
        raw: '{"\\u00e9": 1}',
      });
      const pushed = await backend.queuePeek(`${t}-other`, 5);
      expect(json(pushed[0])).toEqual({ id: (result as unknown as { sub: string }).sub, payload: { x: 1 } });
      expect((result as unknown as { sub: string }).sub).toMatch(/^[0-9a-f]{32}$/);
      await waitUntil(() => published.length === 1, 20_000, "published note");
      expect(published[0]!.payload.toString()).toBe('{"hello": "world"}');
    });

    it("housekeeping sweeps expired reservations of every queue and publishes the catalog", async () => {
      const q1 = uniqueName("hk");
      const q2 = uniqueName("hk");
      await submit(q1, [{ a: 1 }]);
      await submit(q2, [{ b: 1 }, { b: 2 }]);
      // reserve and abandon, as a crashed slot would
      expect(await backend.queueReserve(q1, 0, 1)).not.toBeNull();
      expect(await backend.queueReserve(q2, 0, 1)).not.toBeNull();
      const a = defineAutomation({
        type: uniqueName("cat"),
        kind: "batch",
        description: "A test automation",
        config: z.object({
          ...runtimeConfigShape,
          mode: z.enum(["fast", "thorough"]).default("fast").meta({ title: "Mode" }),
          headless: z.boolean().default(true),
        }),
        taskPayload: z.object({ url: z.url() }),
        output: z.object({ status: z.number().int() }),
        run: async () => undefined,
      });
      const hk = await startHousekeeping({ backend, automations: [a], sweepIntervalMs: 100 });
      cleanups.push(() => hk.stop());
      const doc = json(await backend.catalogGet(a.type));
      expect(Object.keys(doc)).toEqual(["config", "output", "task_payload"]);
      const config = doc.config as Record<string, any>;
      expect(config.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(config.properties.slots).toMatchObject({ type: "integer", minimum: 0, maximum: 64, default: 1, title: "Slots" });
      expect(config.properties.mode).toMatchObject({ enum: ["fast", "thorough"], title: "Mode" });
      expect(config.properties.headless).toMatchObject({ type: "boolean", default: true });
      // defaults make keys optional: `{}` is a valid config
      expect(config.required ?? []).toEqual([]);
      expect(config.description).toBe("A test automation");
      expect((doc.task_payload as Record<string, any>).required).toEqual(["url"]);
      expect((doc.output as Record<string, any>).properties.status.type).toBe("integer");
      // Python's json.dumps encoding
      expect((await backend.catalogGet(a.type))!.toString()).toContain('"config": {"$schema": ');

      // the timer's sweep finds both queues once their 1 s visibility passes
      await waitUntil(
        async () => {
          const ds = await backend.queueDepths([q1, q2]);
          return ds.every((d) => d.processing === 0) && ds[0]!.pending.total === 1 && ds[1]!.pending.total === 2;
        },
        20_000,
        "both reservations re-queued",
      );
      expect(hk.sweeps).toBeGreaterThan(1);
      // an explicit sweep at a future time with nothing reserved re-queues nothing
      expect((await hk.sweep()).requeued).toBe(0);
    });
  });
}
