// Contract of the worker list's bulk reads and writes (issue 14): Backend.workersState and
// Backend.workersRemoveOffline, run against both implementations.
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { Backend, WorkerRef } from "../src/types";
import type { BackendFixture, RawPlanter } from "./contract";

const NOT_UTF8 = Buffer.from([0xff, 0xfe, 0x80]);

export function describeWorkerBulkContract(name: string, factory: () => Promise<BackendFixture>): void {
  describe(`Worker bulk contract: ${name}`, () => {
    let be: Backend;
    let raw: RawPlanter;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ backend: be, plantRaw: raw, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    it("workersState reads state, last_seen and last_error of many workers, in order, corrupt fields named", async () => {
      await be.workerRegister("t", "a", {});
      await be.workerSetState("t", "a", "ERROR", "Timeout after 30s", 1000.5);
      await be.workerRegister("t", "b", {});
      await be.workerSetState("t", "b", "IDLE", null, 1001);
      await raw.hset("wkr:t:c:state", "state", "SLEEPY");
      await raw.hset("wkr:t:c:state", "last_seen", "soon");
      await raw.hset("wkr:t:c:state", "last_error", NOT_UTF8);
      await raw.set("wkr:u:d:state", "not a hash");
      const got = await be.workersState([
        { automationType: "t", workerId: "b" },
        { automationType: "t", workerId: "a" },
        { automationType: "t", workerId: "c" },
        { automationType: "u", workerId: "d" },
        { automationType: "t", workerId: "nobody" },
      ]);
      expect(got[0]).toEqual({ automationType: "t", workerId: "b", state: "IDLE", lastSeen: 1001, lastError: null, corrupt: [] });
      expect(got[1]).toEqual({ automationType: "t", workerId: "a", state: "ERROR", lastSeen: 1000.5, lastError: "Timeout after 30s", corrupt: [] });
      expect(got[2]).toMatchObject({ state: null, lastSeen: null, lastError: null });
      expect(got[2]!.corrupt.sort()).toEqual(["last_error", "last_seen", "state"]);
      expect(got[3]).toMatchObject({ workerId: "d", state: null, lastSeen: null, lastError: null, corrupt: ["state"] });
      expect(got[4]).toEqual({ automationType: "t", workerId: "nobody", state: null, lastSeen: null, lastError: null, corrupt: [] });
      expect(await be.workersState([])).toEqual([]);
    });

    it("workersState agrees with workersGet over more workers than one round trip holds", async () => {
      const refs: WorkerRef[] = [];
      for (let i = 0; i < 1203; i++) {
        const ref = { automationType: i % 2 ? "odd" : "even", workerId: `w${i}` };
        refs.push(ref);
        await be.workerSetState(ref.automationType, ref.workerId, i % 3 ? "RUNNING" : "ERROR", i % 3 ? null : `boom ${i}`, 5000 + i);
      }
      const [states, records] = await Promise.all([be.workersState(refs), be.workersGet(refs)]);
      expect(states).toHaveLength(1203);
      states.forEach((s, i) => {
        const r = records[i]!;
        expect({ id: s.workerId, state: s.state, lastSeen: s.lastSeen, lastError: s.lastError }).toEqual({
          id: r.workerId,
          state: r.state,
          lastSeen: r.lastSeen,
          lastError: r.lastError,
        });
      });
      expect(states[1200]!.lastError).toBe("boom 1200");
    });

    it("workersRemoveOffline removes only workers last seen before the cutoff, every key and both index entries", async () => {
      for (const [id, seen] of [
        ["old", 100],
        ["new", 300],
        ["edge", 200],
      ] as const) {
        await be.workerRegister("t", id, { host: id });
        await be.workerSetState("t", id, "IDLE", null, seen);
        await be.workerStatsPush("t", id, seen, { n: 1 });
        await be.workerSetStats("t", id, { n: 1 });
      }
      await be.workerRegister("t", "never", {}); // no state hash: offline
      await raw.hset("wkr:t:bad:state", "last_seen", "yesterday"); // unreadable: offline
      await raw.sadd("wkrs:t", "bad");
      await raw.sadd("wkrs:all", "t|bad");
      const refs = ["old", "new", "edge", "never", "bad", "ghost"].map((workerId) => ({ automationType: "t", workerId }));
      expect(await be.workersRemoveOffline(refs, 200)).toEqual(["removed", "online", "online", "removed", "removed", "absent"]);
      expect(await raw.smembers("wkrs:t")).toEqual(["edge", "new"]);
      expect(await raw.smembers("wkrs:all")).toEqual(["t|edge", "t|new"]);
      const left = (await raw.keys()).filter((k) => k.startsWith("wkr:"));
      expect(left.every((k) => k.startsWith("wkr:t:new:") || k.startsWith("wkr:t:edge:"))).toBe(true);
      expect(left).toContain("wkr:t:new:stats:history");
      expect(await be.workersRemoveOffline([], 200)).toEqual([]);
    });

    it("workersRemoveOffline handles many workers in batches and keys of the wrong type", async () => {
      const refs: WorkerRef[] = [];
      for (let i = 0; i < 250; i++) {
        refs.push({ automationType: "t", workerId: `w${i}` });
        await be.workerRegister("t", `w${i}`, {});
        await be.workerSetState("t", `w${i}`, "IDLE", null, i % 5 === 0 ? 10_000 : 10);
      }
      await raw.del("wkr:t:w1:config");
      await raw.rpush("wkr:t:w1:config", "a list");
      const res = await be.workersRemoveOffline(refs, 5000);
      expect(res.filter((x) => x === "online")).toHaveLength(50);
      expect(res.filter((x) => x === "removed")).toHaveLength(200);
      expect(res[0]).toBe("online");
      expect(await raw.type("wkr:t:w1:config")).toBe("none");
      expect((await be.workerList("t")).length).toBe(50);
      await expect(be.workersRemoveOffline(refs, Number.NaN)).rejects.toThrow(RangeError);
    });
  });
}
