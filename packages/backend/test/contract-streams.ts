// The Backend contract on streams: push with trimming and the emit event, pop, peek, ranges,
// summaries. A part of describeBackendContract (./contract.ts), run on both implementations by
// contract-memory.test.ts and contract-redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import type { Backend } from "../src/types";
import { b, NOT_UTF8, now, texts, type ContractState, type RawPlanter } from "./contract-support";

export function streamsContract(state: ContractState): void {
  describe("streams", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("pushes envelopes scored by time, trimming by TTL and length", async () => {
      await be.streamPush("s", NOT_UTF8, { score: 1000, maxLen: 0, ttlSeconds: 0 });
      expect(await raw.zrange("stream:s")).toEqual([{ member: NOT_UTF8, score: 1000 }]);
      await be.streamPush("s", "b", { score: 1500.5, maxLen: 0, ttlSeconds: 500 });
      // 1500.5 - 500 = 1000.5: the member at 1000 is out
      expect((await raw.zrange("stream:s")).map((e) => String(e.member))).toEqual(["b"]);
      await be.streamPush("s", "c", { score: 2000.5, maxLen: 0, ttlSeconds: 500 });
      expect(texts(await be.streamPeek("s", 10))).toEqual(["c"]);
      for (let i = 0; i < 5; i++) await be.streamPush("m", `e${i}`, { score: 100 + i, maxLen: 3, ttlSeconds: 3600 });
      expect(texts(await be.streamPeek("m", 10))).toEqual(["e2", "e3", "e4"]);
      expect(await be.streamLength("m")).toBe(3);
    });

    it("orders members with equal scores by their bytes, as Redis does", async () => {
      await be.streamPush("s", "b", { score: 5, maxLen: 0, ttlSeconds: 0 });
      await be.streamPush("s", "a", { score: 5, maxLen: 0, ttlSeconds: 0 });
      await be.streamPush("s", "c", { score: 4, maxLen: 0, ttlSeconds: 0 });
      await be.streamPush("s", "ab", { score: 5, maxLen: 0, ttlSeconds: 0 });
      expect(texts(await be.streamPeek("s", 10))).toEqual(["c", "a", "ab", "b"]);
      await be.streamPush("s", "a", { score: 1, maxLen: 0, ttlSeconds: 0 });
      expect(texts(await be.streamPeek("s", 10))).toEqual(["a", "c", "ab", "b"]);
    });

    it("peeks, pops oldest first and counts", async () => {
      for (let i = 0; i < 4; i++) await be.streamPush("s", `e${i}`, { score: 10 + i, maxLen: 0, ttlSeconds: 0 });
      expect(texts(await be.streamPeek("s", 2))).toEqual(["e0", "e1"]);
      expect(texts(await be.streamPop("s", 3))).toEqual(["e0", "e1", "e2"]);
      expect(await be.streamLength("s")).toBe(1);
      expect(texts(await be.streamPop("s", 3))).toEqual(["e3"]);
      expect(await be.streamPop("s", 3)).toEqual([]);
      expect(await be.streamLength("s")).toBe(0);
      expect(await raw.keys()).toEqual([]);
    });

    it("trims by age against the clock and by length", async () => {
      const t = now();
      await be.streamPush("s", "old", { score: t - 7200, maxLen: 0, ttlSeconds: 0 });
      await be.streamPush("s", "mid", { score: t - 10, maxLen: 0, ttlSeconds: 0 });
      await be.streamPush("s", "new", { score: t, maxLen: 0, ttlSeconds: 0 });
      await be.streamTrim("s", { maxLen: 0, ttlSeconds: 3600 });
      expect(texts(await be.streamPeek("s", 10))).toEqual(["mid", "new"]);
      await be.streamTrim("s", { maxLen: 1, ttlSeconds: 0 });
      expect(texts(await be.streamPeek("s", 10))).toEqual(["new"]);
    });

    it("names streams sorted and summarizes them", async () => {
      await be.streamPush("s:1", "a", { score: 1, maxLen: 0, ttlSeconds: 0 });
      await be.streamPush("s:1", "b", { score: 3.5, maxLen: 0, ttlSeconds: 0 });
      await be.streamPush("s*", "a", { score: 2, maxLen: 0, ttlSeconds: 0 });
      await be.streamPush("a", "a", { score: 2, maxLen: 0, ttlSeconds: 0 });
      expect(await be.streamNames()).toEqual(["a", "s*", "s:1"]);
      expect(await be.streamSummaries(["s:1", "none"])).toEqual([
        { name: "s:1", length: 2, oldest: 1, newest: 3.5 },
        { name: "none", length: 0, oldest: null, newest: null },
      ]);
    });

    it("ranges newest or oldest first without popping", async () => {
      for (let i = 0; i < 4; i++) await be.streamPush("s", `e${i}`, { score: 10 + i, maxLen: 0, ttlSeconds: 0 });
      expect(await be.streamRange("s", 2, "newest")).toEqual([
        { score: 13, envelope: b("e3") },
        { score: 12, envelope: b("e2") },
      ]);
      expect((await be.streamRange("s", 10, "oldest")).map((e) => String(e.envelope))).toEqual(["e0", "e1", "e2", "e3"]);
      expect(await be.streamLength("s")).toBe(4);
      expect(await be.streamRange("none", 5, "newest")).toEqual([]);
    });
  });
}
