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
  });
}
