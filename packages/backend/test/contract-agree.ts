// The Backend contract on where the two implementations used to differ (issue 13), each compared
// with backend.py. A part of describeBackendContract (./contract.ts), run on both
// implementations by contract-memory.test.ts and contract-redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import { sha1Hex } from "../src/codec";
import { keys } from "../src/keys";
import type { Backend } from "../src/types";
import { b, type ContractState, type RawPlanter } from "./contract-support";

export function agreeContract(state: ContractState): void {
  // Where the two implementations used to differ; each compared with backend.py.
  describe("both implementations agree (issue 13)", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("refuses a claim hold of zero or less, claiming nothing (Python's SET ... EX 0 fails)", async () => {
      await be.poolPut("p", "a", "x", {}, null);
      for (const hold of [0, -5, Number.NaN]) await expect(be.poolClaimAny("p", {}, hold)).rejects.toBeInstanceOf(RangeError);
      expect(await raw.type(keys.poolClaim("p", "a"))).toBe("none");
      const got = await be.poolClaimAny("p", {}, 0.5);
      expect(got?.id).toBe("a");
      expect(await raw.pttl(keys.poolClaim("p", "a"))).toBeGreaterThan(0);
      expect(await raw.pttl(keys.poolClaim("p", "a"))).toBeLessThanOrEqual(500);
    });

    it("lists pool items by id and claims equal expiries in id order, numeric ids included", async () => {
      // insertion order differs from id order; Python's tie order is Redis's hash order
      for (const id of ["b", "10", "a", "9", "1.0", "01"]) await be.poolPut("p", id, id, {}, null);
      await be.poolPut("p", "soon", "s", {}, 100);
      await be.poolPut("p", "later", "l", {}, 1000);
      const ids = ["01", "1.0", "10", "9", "a", "b", "later", "soon"];
      expect((await be.poolList("p")).map((i) => i.id)).toEqual(ids);
      expect((await be.poolItems("p")).map((i) => i.id)).toEqual(ids);
      const claimed: string[] = [];
      for (let i = 0; i < 8; i++) claimed.push((await be.poolClaimAny("p", {}, 30))!.id);
      expect(claimed).toEqual(["later", "soon", "01", "1.0", "10", "9", "a", "b"]);
      expect(await be.poolClaimAny("p", {}, 30)).toBeNull();
    });

    it("refuses a counter value that is not an integer, writing nothing", async () => {
      await be.counterSet("c", 5);
      for (const v of [1.5, Number.NaN, Infinity, 2 ** 53, -0.5]) await expect(be.counterSet("c", v)).rejects.toBeInstanceOf(RangeError);
      expect(await raw.get("fleet:counter:c")).toEqual(b("5"));
      await be.counterSet("c", -(2 ** 53 - 1));
      expect(await be.counterGet("c")).toBe(-(2 ** 53 - 1));
    });

    it("reports missing dead-letter refs in lower case, once each, whatever case they were given in", async () => {
      await be.queueDead("q", "a");
      const missing = sha1Hex("gone");
      expect(await be.dlqDelete("q", { refs: [sha1Hex("a").toUpperCase(), missing.toUpperCase(), missing] })).toEqual({ deleted: 1, missing: [missing] });
      await be.queueDead("q", "b");
      expect(await be.dlqRequeue("q", { refs: [missing.toUpperCase(), sha1Hex("b").toUpperCase()] })).toEqual({ requeued: 1, missing: [missing] });
    });

    it("lists the catalog sorted by type", async () => {
      for (const t of ["b", "a:1", "10", "9"]) await be.catalogSet(t, "{}");
      expect([...(await be.catalogAll()).keys()]).toEqual(["10", "9", "a:1", "b"]);
    });

    it("reads the NaN and Infinity Python writes in hardware, stats, frames and bodies, not as corrupt, and writes them back as Python does", async () => {
      await be.workerRegister("t", "w", {});
      await raw.set("wkr:t:w:hardware", '{"host": "h", "temp": NaN}');
      await raw.set("wkr:t:w:stats", '{"rate": NaN, "peak": Infinity, "low": -Infinity}');
      await raw.zadd("wkr:t:w:stats:history", 5, '{"rate": NaN}');
      const rec = (await be.workerGet("t", "w"))!;
      expect(rec.corrupt).toEqual([]);
      expect(rec.hardware).toEqual({ host: "h", temp: NaN });
      expect(rec.stats).toEqual({ rate: NaN, peak: Infinity, low: -Infinity });
      expect((await be.workerStatsFrames("t", "w", { limit: 5 })).map((f) => f.frame)).toEqual([{ rate: NaN }]);
      expect(await be.workerStatsHistory("t", "w")).toEqual([{ rate: NaN }]);
      await be.workerSetStats("t", "w", rec.stats!);
      expect(await raw.get("wkr:t:w:stats")).toEqual(b('{"rate": NaN, "peak": Infinity, "low": -Infinity}'));
      await be.workerSetConfig("t", "w", { limit: NaN });
      expect(await be.workerGetConfig("t", "w")).toEqual({ config: { limit: NaN }, gen: 1 });
    });

    it("acks, nacks and fails numeric task ids by the text the reserve registered", async () => {
      for (const id of ["10", "9", "1.0", "12345678901234567890"]) await be.queuePush("q", `{"id": ${id}}`);
      const bodies = [];
      for (let i = 0; i < 4; i++) bodies.push((await be.queueReserve("q", 0, 30))!);
      expect((await raw.zrange(keys.queueProcessing("q"))).map((e) => String(e.member)).sort()).toEqual(["1.0", "10", "12345678901234567890", "9"]);
      expect(await be.queueAck("q", "10")).toBe(true);
      expect(await be.queueAck("q", "1")).toBe(false);
      expect(await be.queueAck("q", "1.0")).toBe(true);
      expect(await be.queueFail("q", "12345678901234567890", bodies[3]!)).toBe(true);
      expect(await be.queueNack("q", "9", bodies[1]!, { delaySeconds: 0 })).toBe(true);
      expect(await raw.type(keys.queueProcessing("q"))).toBe("none");
      expect(await raw.lrange(keys.queueDead("q"))).toEqual([b('{"id": 12345678901234567890}')]);
      expect(await raw.lrange(keys.queue("q"))).toEqual([b('{"id": 9}')]);
    });
  });
}
