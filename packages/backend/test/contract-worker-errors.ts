// The Backend contract on the console's worker error history. A part of describeBackendContract
// (./contract.ts), run on both implementations by contract-memory.test.ts and contract-
// redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import { keys } from "../src/keys";
import type { Backend } from "../src/types";
import { texts, type ContractState, type RawPlanter } from "./contract-support";

export function workerErrorsContract(state: ContractState): void {
  describe("worker error history", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    const ada = { automationType: "scraper", workerId: "w:1" };
    const bob = { automationType: "scraper", workerId: "w2" };
    it("keeps the newest entries first per worker, capped, with a TTL, in one call for many workers", async () => {
      for (let i = 0; i < 4; i++)
        await be.workerErrorsPush(
          [
            { ...ada, entry: `a${i}` },
            { ...bob, entry: `b${i}` },
          ],
          { maxEntries: 3, ttlSeconds: 3600 },
        );
      expect(texts(await raw.lrange("fleet:console:worker-errors:scraper|w:1"))).toEqual(["a3", "a2", "a1"]);
      const ttl = await raw.pttl("fleet:console:worker-errors:scraper|w2");
      expect(ttl).toBeGreaterThan(3500_000);
      expect(ttl).toBeLessThanOrEqual(3600_000);
      const read = await be.workerErrorsRead([bob, ada, { automationType: "scraper", workerId: "none" }], 2);
      expect(read.map(texts)).toEqual([["b3", "b2"], ["a3", "a2"], []]);
      expect(await be.workerErrorsRead([], 5)).toEqual([]);
    });

    it("a history key of another type reads as empty and fails only its own write", async () => {
      await raw.set("fleet:console:worker-errors:scraper|w2", "not a list");
      await be.workerErrorsPush(
        [
          { ...bob, entry: "lost" },
          { ...ada, entry: "kept" },
        ],
        { maxEntries: 5, ttlSeconds: 60 },
      );
      expect((await be.workerErrorsRead([bob, ada], 5)).map(texts)).toEqual([[], ["kept"]]);
      expect((await raw.get("fleet:console:worker-errors:scraper|w2"))?.toString()).toBe("not a list");
    });

    it("reads last_error of many workers: empty, absent and unreadable are null", async () => {
      await raw.hset(keys.worker("scraper", "w:1", "state"), "last_error", "boom: 502 from upstream");
      await raw.hset(keys.worker("scraper", "w2", "state"), "last_error", "");
      await raw.set(keys.worker("scraper", "w3", "state"), "corrupt");
      const refs = [ada, bob, { automationType: "scraper", workerId: "w3" }, { automationType: "scraper", workerId: "w4" }];
      expect(await be.workersLastError(refs)).toEqual(["boom: 502 from upstream", null, null, null]);
    });
  });
}
