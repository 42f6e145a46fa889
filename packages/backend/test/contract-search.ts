// queueScan (issue 14, search inside a queue): chunked reads of every part of a queue.
// Run on both implementations by contract-memory.test.ts and contract-redis.test.ts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keys } from "../src/keys";
import { pyJsonBytes } from "../src/pyjson";
import { QUEUE_SCAN_MAX, type Backend, type QueueScanPart } from "../src/types";
import type { BackendFixture, RawPlanter } from "./contract";

const body = (id: string, payload: unknown = {}) => pyJsonBytes({ id, payload });
const texts = (entries: Array<{ body: Buffer }>) => entries.map((e) => e.body.toString("utf8"));

export function describeSearchContract(name: string, factory: () => Promise<BackendFixture>): void {
  describe(`Backend contract, queue scans: ${name}`, () => {
    let be: Backend;
    let raw: RawPlanter;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ backend: be, plantRaw: raw, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    it("reads nothing from a queue that does not exist", async () => {
      for (const part of ["high", "normal", "low", "processing", "scheduled", "dead"] as QueueScanPart[]) {
        expect(await be.queueScan("nope", part, 0, 100)).toEqual({ total: 0, entries: [] });
      }
    });

    it("reads a pending list chunk by chunk, with positions and the length", async () => {
      await be.queuePushMany("q", [
        ...Array.from({ length: 5 }, (_, i) => ({ body: body(`n${i}`) })),
        { body: body("h0"), priority: "high" as const },
        { body: body("l0"), priority: "low" as const },
      ]);
      const c = await be.queueScan("q", "normal", 1, 3);
      expect(c.total).toBe(5);
      expect(c.entries.map((e) => e.index)).toEqual([1, 2, 3]);
      expect(texts(c.entries)).toEqual([body("n1"), body("n2"), body("n3")].map(String));
      expect((await be.queueScan("q", "normal", 4, 3)).entries.map((e) => e.index)).toEqual([4]);
      expect((await be.queueScan("q", "normal", 9, 3)).entries).toEqual([]);
      expect(texts((await be.queueScan("q", "high", 0, 10)).entries)).toEqual([String(body("h0"))]);
      expect(texts((await be.queueScan("q", "low", 0, 10)).entries)).toEqual([String(body("l0"))]);
      expect(await be.queueScan("q", "normal", 0, 0)).toEqual({ total: 5, entries: [] });
    });

    it("reads reservations with their id and deadline, leaving out those without a body", async () => {
      await be.queuePushMany("q", [{ body: body("a") }, { body: body("b") }]);
      await be.queueReserve("q", 0, 100);
      await be.queueReserve("q", 0, 200);
      await raw.zadd(keys.queueProcessing("q"), Date.now() / 1000 + 300, "ghost");
      const c = await be.queueScan("q", "processing", 0, 10);
      expect(c.total).toBe(3);
      expect(c.entries.map((e) => [e.index, e.id, String(e.body)])).toEqual([
        [0, "a", String(body("a"))],
        [1, "b", String(body("b"))],
      ]);
      expect(c.entries[0]!.score! < c.entries[1]!.score!).toBe(true);
      expect((await be.queueScan("q", "processing", 1, 1)).entries.map((e) => e.id)).toEqual(["b"]);
    });

    it("reads scheduled retries with their ready time, and dead letters", async () => {
      await raw.zadd(keys.queueScheduled("q"), 2000, body("late"));
      await raw.zadd(keys.queueScheduled("q"), 1000, body("soon"));
      const s = await be.queueScan("q", "scheduled", 0, 10);
      expect(s.entries.map((e) => [e.index, String(e.body), e.score])).toEqual([
        [0, String(body("soon")), 1000],
        [1, String(body("late")), 2000],
      ]);
      await be.queueDead("q", body("d0"));
      await be.queueDead("q", Buffer.from([0xff, 0x00]));
      const d = await be.queueScan("q", "dead", 0, 10);
      expect(d.total).toBe(2);
      expect(d.entries[1]!.body.equals(Buffer.from([0xff, 0x00]))).toBe(true);
    });

    it("reads a part whose key holds another type as empty and corrupt, and never more than QUEUE_SCAN_MAX at once", async () => {
      await raw.set(keys.queueDead("q"), "x");
      await raw.set(keys.queueScheduled("q"), "x");
      expect(await be.queueScan("q", "dead", 0, 10)).toEqual({ total: 0, entries: [], corrupt: true });
      expect(await be.queueScan("q", "scheduled", 0, 10)).toEqual({ total: 0, entries: [], corrupt: true });
      await raw.rpush(keys.queue("big"), ...Array.from({ length: QUEUE_SCAN_MAX + 5 }, (_, i) => body(`b${i}`)));
      expect((await be.queueScan("big", "normal", 0, QUEUE_SCAN_MAX * 2)).entries).toHaveLength(QUEUE_SCAN_MAX);
    });

    describe("bulk jobs", () => {
      const job = async (id: string, owner = "tok") => {
        await be.bulkJobCreate(id, JSON.stringify({ queue: "q" }), 1000);
        expect(await be.bulkJobSet(id, { owner }, { ifState: "running" })).toBe(true);
      };
      const listOf = async (key: string) => texts((await raw.lrange(key)).map((x) => ({ body: x })));

      it("creates, lists newest first, reads and changes job records only in the expected state", async () => {
        await be.bulkJobCreate("a", '{"n": 1}', 1000);
        await be.bulkJobCreate("b", '{"n": 2}', 2000);
        expect(await be.bulkJobIds(10)).toEqual(["b", "a"]);
        expect(await be.bulkJobIds(1)).toEqual(["b"]);
        const [a, missing] = await be.bulkJobGet(["a", "zz"]);
        expect(missing).toBeNull();
        expect(a).toEqual({ id: "a", doc: Buffer.from('{"n": 1}'), state: "running", owner: "", part: 0, cursor: 0, scanned: 0, done: 0, missing: 0, note: "", scan: "" });
        expect(await be.bulkJobSet("a", { state: "cancelled", note: "by vera" }, { ifState: "running", keepSeconds: 60 })).toBe(true);
        expect(await be.bulkJobSet("a", { state: "done" }, { ifState: "running" })).toBe(false);
        expect(await be.bulkJobSet("zz", { state: "done" })).toBe(false);
        expect((await be.bulkJobGet(["a"]))[0]).toMatchObject({ state: "cancelled", note: "by vera" });
        expect(await raw.pttl("fleet:console:bulk:job:a")).toBeGreaterThan(0);
      });

      it("requeues matched dead letters exactly once, re-checking each body, and advances the job in the same step", async () => {
        const dead = Array.from({ length: 10 }, (_, i) => body(`d${i}`));
        await raw.rpush(keys.queueDead("q"), ...dead, dead[5]!);
        await job("j1");
        const res = await be.queueTakeMatches("q", {
          jobId: "j1",
          owner: "tok",
          action: "requeue",
          part: "dead",
          start: 0,
          read: 11,
          partIndex: 0,
          partDone: false,
          items: [
            { index: 2, body: dead[2]!, replacement: Buffer.from("r2") },
            { index: 5, body: dead[5]!, replacement: Buffer.from("r5") },
            { index: 10, body: dead[5]!, replacement: Buffer.from("r5") },
            // not what is there any more (looked for down to the head): left alone, counted missing
            { index: 7, body: body("changed"), replacement: Buffer.from("rx") },
          ],
          scan: "state-1",
        });
        expect(res).toEqual({ ok: true, taken: 3, missing: 1, cursor: 8, unknown: [] });
        expect(await listOf(keys.queueDead("q"))).toEqual([0, 1, 3, 4, 6, 7, 8, 9].map((i) => String(dead[i])));
        expect(await listOf(keys.queue("q"))).toEqual(["r2", "r5", "r5"]);
        expect((await be.bulkJobGet(["j1"]))[0]).toMatchObject({ part: 0, cursor: 8, scanned: 11, done: 3, missing: 1, scan: "state-1" });
        // the same chunk again (a process that died before it learned the answer): nothing twice
        const again = await be.queueTakeMatches("q", {
          jobId: "j1",
          owner: "tok",
          action: "requeue",
          part: "dead",
          start: 0,
          read: 11,
          partIndex: 0,
          partDone: true,
          items: [{ index: 2, body: dead[2]!, replacement: Buffer.from("r2") }],
        });
        expect(again).toMatchObject({ ok: true, taken: 0, missing: 1, cursor: 0 });
        expect(await listOf(keys.queue("q"))).toEqual(["r2", "r5", "r5"]);
        // no scan state given: the one kept stays
        expect((await be.bulkJobGet(["j1"]))[0]).toMatchObject({ part: 1, cursor: 0, scan: "state-1" });
      });

      it("finds bodies that moved toward the head (workers popped) and deletes them from a pending list", async () => {
        const pending = Array.from({ length: 20 }, (_, i) => body(`p${i}`));
        await raw.rpush(keys.queue("q"), ...pending);
        await job("j2");
        // read at 10..19, then a worker takes three from the head
        for (let i = 0; i < 3; i++) await be.queueReserve("q", 0, 60);
        const res = await be.queueTakeMatches("q", {
          jobId: "j2",
          owner: "tok",
          action: "delete",
          part: "normal",
          start: 10,
          read: 10,
          partIndex: 1,
          partDone: false,
          items: [12, 15, 19].map((i) => ({ index: i, body: pending[i]!, replacement: pending[i]! })),
        });
        expect(res).toEqual({ ok: true, taken: 3, missing: 0, cursor: 14, unknown: [] });
        expect(await listOf(keys.queue("q"))).toEqual(
          pending
            .slice(3)
            .filter((_, i) => ![9, 12, 16].includes(i))
            .map(String),
        );
      });

      it("says which bodies it could not place (not found, the look did not reach the head) and leaves them", async () => {
        const dead = Array.from({ length: 1600 }, (_, i) => body(`e${i}`));
        await raw.rpush(keys.queueDead("q"), ...dead);
        await job("j4");
        // 18 bodies read at 1500..1517 that moved (another action put new bytes there): 16 looks, then no more
        const moved = Array.from({ length: 18 }, (_, i) => ({ index: 1500 + i, body: body(`elsewhere-${i}`), replacement: body("x") }));
        const res = await be.queueTakeMatches("q", {
          jobId: "j4",
          owner: "tok",
          action: "delete",
          part: "dead",
          start: 1500,
          read: 100,
          partIndex: 0,
          partDone: false,
          items: [{ index: 3, body: body("gone"), replacement: body("x") }, ...moved, { index: 1590, body: dead[1590]!, replacement: dead[1590]! }],
        });
        // the one near the head is known gone; the others' fate is unknown; the last one was where it was read
        expect(res).toMatchObject({ ok: true, taken: 1, missing: 1 });
        expect(res.unknown).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
        expect(await raw.lrange(keys.queueDead("q"))).toHaveLength(1599);
        expect((await be.bulkJobGet(["j4"]))[0]).toMatchObject({ done: 1, missing: 1 });
      });

      it("changes nothing for a job that is not running or not this owner's", async () => {
        await raw.rpush(keys.queueDead("q"), body("d0"));
        await job("j3", "someone-else");
        const chunk = {
          jobId: "j3",
          owner: "tok",
          action: "delete" as const,
          part: "dead" as const,
          start: 0,
          read: 1,
          partIndex: 0,
          partDone: true,
          items: [{ index: 0, body: body("d0"), replacement: body("d0") }],
        };
        expect((await be.queueTakeMatches("q", chunk)).ok).toBe(false);
        await be.bulkJobSet("j3", { owner: "tok", state: "cancelled" });
        expect((await be.queueTakeMatches("q", chunk)).ok).toBe(false);
        expect((await be.queueTakeMatches("q", { ...chunk, jobId: "nope" })).ok).toBe(false);
        expect(await raw.lrange(keys.queueDead("q"))).toHaveLength(1);
        expect((await be.bulkJobGet(["j3"]))[0]).toMatchObject({ done: 0, scanned: 0 });
      });
    });
  });
}
