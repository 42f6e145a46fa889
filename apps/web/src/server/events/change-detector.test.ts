import { createMemoryBackend } from "@fleet/backend/memory";
import type { Backend } from "@fleet/backend";
import { describe, expect, it } from "vitest";

import { ChangeDetector, WORKERS_PER_READ, WorkerReads, readSnapshot } from "./change-detector";

/** Counts calls per method; every call goes to the real backend. */
function countingCalls(backend: Backend) {
  const calls = new Map<string, number>();
  const wrapped = new Proxy(backend, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        calls.set(String(prop), (calls.get(String(prop)) ?? 0) + 1);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { backend: wrapped, calls };
}

const NO_NAMES = { queues: [], pools: [], streams: [] };

describe("readSnapshot", () => {
  it("reads a large fleet in a bounded number of batched calls, every worker exactly once", async () => {
    const memory = createMemoryBackend("memory://snapshot-test");
    const n = WORKERS_PER_READ * 2 + 17;
    const now = Date.now() / 1000;
    for (let i = 0; i < n; i++) {
      const id = `w${String(i).padStart(4, "0")}`;
      await memory.workerRegister(i % 2 ? "a" : "b", id, {});
      await memory.workerSetState(i % 2 ? "a" : "b", id, "IDLE", null, now);
    }
    for (let q = 0; q < 30; q++) await memory.queuePush(`q${q}`, "{}");
    const { backend, calls } = countingCalls(memory);
    const names = { queues: Array.from({ length: 30 }, (_, q) => `q${q}`), pools: [], streams: [] };
    const snapshot = await readSnapshot(backend, now, 60, names);
    expect(snapshot.workers).toHaveLength(n);
    expect(new Set(snapshot.workers.map((w) => `${w.worker.automation_type}/${w.worker.worker_id}`)).size).toBe(n);
    expect(snapshot.queues).toHaveLength(30);
    expect(calls.get("workersRows")).toBe(3);
    expect(calls.get("workerList")).toBe(1);
    expect(calls.get("queueDepths")).toBe(1);
    expect(calls.get("workerGet")).toBeUndefined();
    // only the names it was given: never a walk of the key space
    for (const walk of ["queueNames", "poolNames", "streamNames", "keyScan", "kvNamespaces", "lockList", "counterList"]) {
      expect(calls.get(walk), walk).toBeUndefined();
    }
  });

  it("leaves out a named queue, pool or stream with no key left, so the next frame reports it removed", async () => {
    const memory = createMemoryBackend("memory://snapshot-absent");
    const now = Date.now() / 1000;
    await memory.queuePush("live", "{}");
    await memory.raw.hset("fleet:queue:stray:processing:body", { id: "x" });
    await memory.poolPut("p", "i", "x", {});
    await memory.streamPush("s", "e", { score: now, maxLen: 10, ttlSeconds: 60 });
    const names = { queues: ["gone", "live", "stray"], pools: ["p", "gone"], streams: ["gone", "s"] };
    const snapshot = await readSnapshot(memory, now, 60, names);
    expect(snapshot.queues.map((q) => q.name)).toEqual(["live", "stray"]);
    expect(snapshot.pools.map((p) => p.name)).toEqual(["p"]);
    expect(snapshot.streams.map((s) => s.name)).toEqual(["s"]);
  });
});

describe("ChangeDetector", () => {
  it("reports a change of any worker and nothing when only last_seen moved", async () => {
    const memory = createMemoryBackend("memory://detector-test");
    const now = Date.now() / 1000;
    const n = 255;
    for (let i = 0; i < n; i++) {
      await memory.workerRegister("t", `w${String(i).padStart(4, "0")}`, {});
      await memory.workerSetState("t", `w${String(i).padStart(4, "0")}`, "IDLE", null, now);
    }
    const detector = new ChangeDetector();
    expect(detector.apply(await readSnapshot(memory, now, 60, NO_NAMES))).toEqual([]);
    for (let i = 0; i < n; i++) await memory.workerSetState("t", `w${String(i).padStart(4, "0")}`, "IDLE", null, now + 1);
    expect(detector.apply(await readSnapshot(memory, now + 1, 60, NO_NAMES))).toEqual([]);
    await memory.workerSetState("t", `w${String(n - 1).padStart(4, "0")}`, "RUNNING", null, now + 2);
    const changes = detector.apply(await readSnapshot(memory, now + 2, 60, NO_NAMES));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.event).toBe("workers");
    const data = changes[0]!.data as { changed: Array<{ worker_id: string; status: string }> };
    expect(data.changed.map((w) => [w.worker_id, w.status])).toEqual([[`w${String(n - 1).padStart(4, "0")}`, "running"]]);
  });
});

describe("WorkerReads (the rotation that keeps a big fleet cheap)", () => {
  async function fleet(n: number, now: number) {
    const memory = createMemoryBackend("memory://rotation");
    for (let i = 0; i < n; i++) {
      await memory.workerRegister("t", `w${i}`, {});
      await memory.workerSetState("t", `w${i}`, "IDLE", null, now);
    }
    return memory;
  }
  /** Workers read by workersRows while `fn` runs. */
  function counting(backend: Backend) {
    let read = 0;
    const wrapped = new Proxy(backend, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== "function") return v;
        if (prop === "workersRows") {
          return (refs: unknown[]) => {
            read += refs.length;
            return (v as (r: unknown[]) => unknown).call(target, refs);
          };
        }
        return (v as (...a: unknown[]) => unknown).bind(target);
      },
    });
    return { backend: wrapped, read: () => read };
  }

  it("reads every worker once, then only its share per tick; a change shows within workers/perTick ticks", async () => {
    const now = Date.now() / 1000;
    const memory = await fleet(5, now);
    const { backend, read } = counting(memory);
    const reads = new WorkerReads(2);
    const detector = new ChangeDetector();
    expect(detector.apply(await readSnapshot(backend, now, 60, NO_NAMES, reads))).toEqual([]);
    expect(read()).toBe(5);
    await memory.workerSetState("t", "w4", "RUNNING", null, now);
    let ticks = 0;
    let seen: unknown[] = [];
    while (seen.length === 0 && ticks < 10) {
      const before = read();
      seen = detector.apply(await readSnapshot(backend, now, 60, NO_NAMES, reads));
      expect(read() - before).toBe(2);
      ticks++;
    }
    expect(ticks).toBeLessThanOrEqual(3);
    expect((seen[0] as { data: { changed: Array<{ worker_id: string; state: string }> } }).data.changed.map((w) => [w.worker_id, w.state])).toEqual([["w4", "RUNNING"]]);
  });

  it("sees a worker go offline on the tick the clock passes the threshold, without reading it again", async () => {
    const now = Date.now() / 1000;
    const memory = await fleet(4, now);
    const { backend, read } = counting(memory);
    const reads = new WorkerReads(0);
    const detector = new ChangeDetector();
    detector.apply(await readSnapshot(backend, now, 60, NO_NAMES, reads));
    expect(detector.apply(await readSnapshot(backend, now + 30, 60, NO_NAMES, reads))).toEqual([]);
    const changes = detector.apply(await readSnapshot(backend, now + 61, 60, NO_NAMES, reads));
    expect(read()).toBe(4);
    const data = changes[0]!.data as { changed: Array<{ worker_id: string; status: string }> };
    expect(data.changed.map((w) => w.status)).toEqual(["offline", "offline", "offline", "offline"]);
  });

  it("reads a new worker at once, reports a removed one at once, and a swap of one for another within the list period", async () => {
    const now = Date.now() / 1000;
    const memory = await fleet(3, now);
    const reads = new WorkerReads(0, 4);
    const detector = new ChangeDetector();
    type Frame = { changed: Array<{ worker_id: string }>; removed: Array<{ worker_id: string }> };
    const tick = async () => (detector.apply(await readSnapshot(memory, now, 60, NO_NAMES, reads))[0]?.data ?? null) as Frame | null;
    await tick();
    await memory.workerRegister("t", "new", {});
    await memory.workerSetState("t", "new", "RUNNING", null, now);
    expect((await tick())?.changed.map((w) => w.worker_id)).toEqual(["new"]);
    await memory.workerRemove("t", "w0");
    expect((await tick())?.removed.map((w) => w.worker_id)).toEqual(["w0"]);
    // one removed and one added between two ticks: the index size did not move
    await memory.workerRemove("t", "w1");
    await memory.workerRegister("t", "other", {});
    let frame: Frame | null = null;
    let ticks = 0;
    while (frame === null && ticks < 10) {
      frame = await tick();
      ticks++;
    }
    expect(ticks).toBeLessThanOrEqual(4);
    expect(frame?.changed.map((w) => w.worker_id)).toEqual(["other"]);
    expect(frame?.removed.map((w) => w.worker_id)).toEqual(["w1"]);
  });
});
