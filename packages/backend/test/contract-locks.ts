// The Backend contract on locks: acquire, release and extend by token, list. A part of
// describeBackendContract (./contract.ts), run on both implementations by contract-
// memory.test.ts and contract-redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import type { Backend } from "../src/types";
import { b, sleep, type ContractState, type RawPlanter } from "./contract-support";

export function locksContract(state: ContractState): void {
  describe("locks", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("acquires with a random token and releases only with that token", async () => {
      const t = await be.lockAcquire("l", 30, 0);
      expect(t).toMatch(/^[0-9a-f]{32}$/);
      expect(await raw.get("fleet:lock:l")).toEqual(b(t!));
      const pttl = await raw.pttl("fleet:lock:l");
      expect(pttl).toBeGreaterThan(25_000);
      expect(pttl).toBeLessThanOrEqual(30_000);
      expect(await be.lockAcquire("l", 30, 0)).toBeNull();
      expect(await be.lockRelease("l", "f".repeat(32))).toBe(false);
      expect(await raw.get("fleet:lock:l")).toEqual(b(t!));
      expect(await be.lockRelease("l", t!)).toBe(true);
      expect(await be.lockRelease("l", t!)).toBe(false);
      const t2 = await be.lockAcquire("l", 30, 0);
      expect(t2).not.toBe(t);
    });

    it("waits up to waitSeconds, and gets the lock once the holder's TTL ends", async () => {
      await be.lockAcquire("l", 1, 0);
      const start = Date.now();
      expect(await be.lockAcquire("l", 30, 0.3)).toBeNull();
      expect(Date.now() - start).toBeGreaterThanOrEqual(250);
      // got within its wait (after it, the answer is null): the holder's 1 s TTL ended first
      const t = await be.lockAcquire("l", 30, 10);
      expect(t).not.toBeNull();
      expect(await raw.get("fleet:lock:l")).toEqual(b(t!));
    });

    it("lists locks sorted with their TTL and force-releases them", async () => {
      await be.lockAcquire("b:1", 30, 0);
      await be.lockAcquire("a*", 60, 0);
      await be.lockAcquire("short", 1, 0);
      await raw.set("fleet:lock:forever", "tok");
      const locks = await be.lockList();
      expect(locks.map((l) => l.name)).toEqual(["a*", "b:1", "forever", "short"]);
      expect(locks[0]!.ttlMs).toBeGreaterThan(55_000);
      expect(locks[2]!.ttlMs).toBeNull();
      await sleep(1150);
      expect((await be.lockList()).map((l) => l.name)).toEqual(["a*", "b:1", "forever"]);
      expect(await be.lockForceRelease("a*")).toBe(true);
      expect(await be.lockForceRelease("a*")).toBe(false);
      expect((await be.lockList()).map((l) => l.name)).toEqual(["b:1", "forever"]);
    });
  });
}
