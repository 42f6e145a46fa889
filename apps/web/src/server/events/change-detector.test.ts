import { createMemoryBackend } from "@fleet/backend/memory";
import type { Backend } from "@fleet/backend";
import { describe, expect, it } from "vitest";

import { ChangeDetector, WORKER_SLICE, readSnapshot } from "./change-detector";

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

describe("readSnapshot", () => {
  it("reads a large fleet in a bounded number of batched calls, every worker exactly once", async () => {
    const memory = createMemoryBackend("memory://snapshot-test");
    const n = WORKER_SLICE * 2 + 17;
    const now = Date.now() / 1000;
    for (let i = 0; i < n; i++) {
      const id = `w${String(i).padStart(4, "0")}`;
      await memory.workerRegister(i % 2 ? "a" : "b", id, {});
      await memory.workerSetState(i % 2 ? "a" : "b", id, "IDLE", null, now);
    }
    for (let q = 0; q < 30; q++) await memory.queuePush(`q${q}`, "{}");
    const { backend, calls } = countingCalls(memory);
    const snapshot = await readSnapshot(backend, now, 60);
    expect(snapshot.workers).toHaveLength(n);
    expect(new Set(snapshot.workers.map((w) => `${w.worker.automation_type}/${w.worker.worker_id}`)).size).toBe(n);
    expect(snapshot.queues).toHaveLength(30);
    expect(calls.get("workersGet")).toBe(3);
    expect(calls.get("workerList")).toBe(1);
    expect(calls.get("queueDepths")).toBe(1);
    expect(calls.get("workerGet")).toBeUndefined();
  });
});

describe("ChangeDetector", () => {
  it("reports a change in any slice and nothing when only last_seen moved", async () => {
    const memory = createMemoryBackend("memory://detector-test");
    const now = Date.now() / 1000;
    const n = WORKER_SLICE + 5;
    for (let i = 0; i < n; i++) {
      await memory.workerRegister("t", `w${String(i).padStart(4, "0")}`, {});
      await memory.workerSetState("t", `w${String(i).padStart(4, "0")}`, "IDLE", null, now);
    }
    const detector = new ChangeDetector();
    expect(detector.apply(await readSnapshot(memory, now, 60))).toEqual([]);
    for (let i = 0; i < n; i++) await memory.workerSetState("t", `w${String(i).padStart(4, "0")}`, "IDLE", null, now + 1);
    expect(detector.apply(await readSnapshot(memory, now + 1, 60))).toEqual([]);
    await memory.workerSetState("t", `w${String(n - 1).padStart(4, "0")}`, "RUNNING", null, now + 2);
    const changes = detector.apply(await readSnapshot(memory, now + 2, 60));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.event).toBe("workers");
    const data = changes[0]!.data as { changed: Array<{ worker_id: string; status: string }> };
    expect(data.changed.map((w) => [w.worker_id, w.status])).toEqual([[`w${String(n - 1).padStart(4, "0")}`, "running"]]);
  });
});
