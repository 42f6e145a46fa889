// The Backend contract on the console's sessions and sign-in throttling. A part of
// describeBackendContract (./contract.ts), run on both implementations by contract-
// memory.test.ts and contract-redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import type { Backend } from "../src/types";
import { sleep, texts, type ContractState, type RawPlanter } from "./contract-support";

export function sessionsContract(state: ContractState): void {
  describe("console sessions", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("live until deleted or expired, under their own prefix, with a TTL", async () => {
      await be.sessionPut("s1", "ada", '{"user": "ada"}', 3600);
      expect((await be.sessionGet("s1"))?.toString()).toBe('{"user": "ada"}');
      const ttl = await raw.pttl("fleet:console:session:s1");
      // an hour, less what this machine took since (generous)
      expect(ttl).toBeGreaterThan(3_300_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
      expect(await raw.type("fleet:console:user-sessions:ada")).toBe("zset");
      expect(await be.sessionDelete("s1")).toBe(true);
      expect(await be.sessionGet("s1")).toBeNull();
      expect(await be.sessionDelete("s1")).toBe(false);
      await be.sessionPut("short", "ada", "x", 0.05);
      const until = Date.now() + 20_000;
      while ((await be.sessionGet("short")) !== null && Date.now() < until) await sleep(10);
      expect(await be.sessionGet("short")).toBeNull();
    });

    it("end every session of one user, and only of that user", async () => {
      await be.sessionPut("a1", "ada", "r", 60);
      await be.sessionPut("a2", "ada", "r", 60);
      await be.sessionPut("v1", "vera", "r", 60);
      await be.sessionDelete("a2"); // already ended: not counted
      expect(await be.sessionDeleteForUser("ada")).toBe(1);
      expect(await be.sessionGet("a1")).toBeNull();
      expect((await be.sessionGet("v1"))?.toString()).toBe("r");
      expect(await raw.type("fleet:console:user-sessions:ada")).toBe("none");
      expect(await be.sessionDeleteForUser("nobody")).toBe(0);
    });

    it("write the audit entry in the same step, and store nothing when it cannot be written", async () => {
      await be.sessionPut("s1", "ada", "r", 60, { audit: { entry: "signed in", maxEntries: 10 } });
      expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["signed in"]);
      await raw.del("fleet:console:audit");
      await raw.set("fleet:console:audit", "not a list");
      await expect(be.sessionPut("s2", "ada", "r", 60, { audit: { entry: "signed in", maxEntries: 10 } })).rejects.toThrow();
      expect(await be.sessionGet("s2")).toBeNull();
    });
  });

  describe("sign-in throttling", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    const policy = { pairFree: 3, pairForgetMs: 60_000, addressFree: 5, addressWindowMs: 60_000, baseDelayMs: 1000, maxDelayMs: 8000 };
    const t0 = 1_700_000_000_000;

    it("counts each attempt before it is checked and makes further ones wait, doubling up to the longest wait", async () => {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await be.signInReserve("p", "a", policy, t0));
      expect(answers).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }, { allowed: false, waitMs: 1000 }, { allowed: false, waitMs: 1000 }]);
      expect(await be.signInReserve("p", "a", policy, t0 + 1000)).toEqual({ allowed: true });
      expect(await be.signInReserve("p", "a", policy, t0 + 1001)).toEqual({ allowed: false, waitMs: 1999 });
      // the pair's record forgets itself: it has a TTL
      expect(await raw.pttl("fleet:console:signin:pair:p")).toBeGreaterThan(0);
      expect(await raw.pttl("fleet:console:signin:addr:a")).toBeGreaterThan(0);
      // the address budget (5) holds across user names
      expect(await be.signInReserve("q", "a", policy, t0 + 3000)).toEqual({ allowed: true });
      expect(await be.signInReserve("r", "a", policy, t0 + 3000)).toEqual({ allowed: false, waitMs: 1000 });
      expect(await be.signInReserve("r", "elsewhere", policy, t0 + 3000)).toEqual({ allowed: true });
      // never beyond the longest wait
      let at = t0;
      let last = 0;
      for (let i = 0; i < 12; i++) {
        const r = await be.signInReserve("x", "b", policy, at);
        if (!r.allowed) {
          last = r.waitMs;
          at += r.waitMs;
        }
      }
      expect(last).toBe(8000);
    });

    it("a success clears the pair and refunds the address; a refund gives the attempt back", async () => {
      for (let i = 0; i < 3; i++) await be.signInReserve("p", "a", policy, t0);
      await be.signInSettle("p", "a", "success", policy);
      expect(await raw.type("fleet:console:signin:pair:p")).toBe("none");
      expect((await raw.hgetall("fleet:console:signin:addr:a")).n?.toString()).toBe("2");
      expect(await be.signInReserve("p", "a", policy, t0)).toEqual({ allowed: true });
      await be.signInSettle("p", "a", "refund", policy);
      expect((await raw.hgetall("fleet:console:signin:addr:a")).n?.toString()).toBe("2");
      for (let i = 0; i < 3; i++) await be.signInReserve("p", "a", policy, t0);
      expect(await be.signInReserve("p", "a", policy, t0)).toEqual({ allowed: false, waitMs: 1000 });
      await be.signInSettle("p", "a", "refund", policy);
      expect(await be.signInReserve("p", "a", policy, t0)).toEqual({ allowed: true });
    });
  });
}
