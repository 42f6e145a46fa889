// The Backend contract on pools: put and prune as Python does, claims, summaries, removal. A
// part of describeBackendContract (./contract.ts), run on both implementations by contract-
// memory.test.ts and contract-redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import { keys } from "../src/keys";
import type { Backend } from "../src/types";
import { b, NOT_UTF8, now, sleep, type ContractState, type RawPlanter } from "./contract-support";
import { poolPruneCases } from "./pool-prune-cases";

export function poolsContract(state: ContractState): void {
  describe("pools", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("stores items as Python's JSON {p, t, x}", async () => {
      await be.poolPut("p", "i1", "hello", { a: 1, b: "x", c: "é" }, null);
      expect((await raw.hgetall("fleet:pool:p")).i1?.toString()).toBe('{"p": "aGVsbG8=", "t": {"a": 1, "b": "x", "c": "\\u00e9"}, "x": null}');
      const t0 = now();
      await be.poolPut("p", "i2", NOT_UTF8, {}, 60);
      const t1 = now();
      const stored = (await raw.hgetall("fleet:pool:p")).i2!.toString();
      const m = /^\{"p": "\/\/6AQQ==", "t": \{\}, "x": (\d+\.\d+)\}$/.exec(stored);
      expect(m).not.toBeNull();
      // 60 s after the write, which happened between t0 and t1
      expect(Number(m![1])).toBeGreaterThanOrEqual(t0 + 60 - 0.01);
      expect(Number(m![1])).toBeLessThanOrEqual(t1 + 60 + 0.01);
      expect(await be.poolSize("p")).toBe(2);
    });

    it("lists live items with their claim state, skipping expired and undecodable ones", async () => {
      await be.poolPut("p", "live", "pl", { k: "v" }, null);
      const put0 = now();
      await be.poolPut("p", "ttl", "pt", {}, 100);
      const put1 = now();
      await raw.hset("fleet:pool:p", "old", '{"p": "", "t": {}, "x": 1000.5}');
      await raw.hset("fleet:pool:p", "bad", "not json");
      await raw.hset("fleet:pool:p", "bad2", NOT_UTF8);
      const items = (await be.poolList("p")).sort((x, y) => x.id.localeCompare(y.id));
      expect(items.map((i) => i.id)).toEqual(["live", "ttl"]);
      expect(items[0]).toEqual({ id: "live", payload: b("pl"), tags: { k: "v" }, expiresAt: null, inUseUntil: null });
      expect(items[1]!.expiresAt).toBeGreaterThanOrEqual(put0 + 100 - 0.01);
      expect(items[1]!.expiresAt).toBeLessThanOrEqual(put1 + 100 + 0.01);
      expect(await be.poolSize("p")).toBe(5);
      const claim0 = now();
      const claimed = await be.poolClaimAny("p", { k: "v" }, 30);
      const claim1 = now();
      expect(claimed?.id).toBe("live");
      const after = await be.poolList("p");
      const live = after.find((i) => i.id === "live")!;
      // held 30 s from the claim, which happened between claim0 and claim1 (the claim's TTL is whole milliseconds)
      expect(live.inUseUntil).toBeGreaterThanOrEqual(claim0 + 30 - 0.01);
      expect(live.inUseUntil).toBeLessThanOrEqual(claim1 + 30 + 0.01);
      expect(after.find((i) => i.id === "ttl")!.inUseUntil).toBeNull();
      expect(await be.poolList("nope")).toEqual([]);
    });

    it("prunes expired and undecodable items on put, as Python does", async () => {
      await raw.hset("fleet:pool:p", "old", '{"p": "", "t": {}, "x": 1000.5}');
      await raw.hset("fleet:pool:p", "bad", "{");
      await raw.hset("fleet:pool:q", "bad", "{");
      await be.poolPut("p", "new", "x", {}, null);
      expect(Object.keys(await raw.hgetall("fleet:pool:p"))).toEqual(["new"]);
      expect(await be.poolSize("q")).toBe(1);
    });

    it("prunes on put only what Python's pool_put prunes", async () => {
      const cases = poolPruneCases(now() - 3600, now() + 3600);
      for (const pc of cases) await raw.hset("fleet:pool:p", pc.id, pc.raw);
      await be.poolPut("p", "new", "x", {}, null);
      const left = Object.keys(await raw.hgetall("fleet:pool:p")).sort();
      expect(left).toEqual(["new", ...cases.filter((pc) => !pc.pruned).map((pc) => pc.id)].sort());
      // what stays is kept byte for byte
      const stored = await raw.hgetall("fleet:pool:p");
      for (const pc of cases.filter((x) => !x.pruned)) expect(stored[pc.id], pc.id).toEqual(pc.raw);
      expect((await be.poolItems("p")).find((i) => i.id === "b64-newline")?.payload).toEqual(b("hello"));
    });

    it("prunes nothing when an item's x is not a number: Python's prune stops with a TypeError first", async () => {
      await raw.hset("fleet:pool:p", "old", '{"p": "", "t": {}, "x": 1000}');
      await raw.hset("fleet:pool:p", "bad", "{");
      await raw.hset("fleet:pool:p", "x-text", '{"p": "", "t": {}, "x": "2020-01-01"}');
      await be.poolPut("p", "new", "x", {}, null);
      expect(Object.keys(await raw.hgetall("fleet:pool:p")).sort()).toEqual(["bad", "new", "old", "x-text"]);
    });

    it('claims exclusively, with a claim key holding "1" for hold seconds', async () => {
      await be.poolPut("p", "a", "1", {}, null);
      await be.poolPut("p", "b", "2", {}, null);
      const first = await be.poolClaimAny("p", {}, 30);
      const second = await be.poolClaimAny("p", {}, 30);
      expect(first).not.toBeNull();
      expect(second).not.toBeNull();
      expect(new Set([first!.id, second!.id])).toEqual(new Set(["a", "b"]));
      expect(await be.poolClaimAny("p", {}, 30)).toBeNull();
      expect(await raw.get(keys.poolClaim("p", "a"))).toEqual(b("1"));
      const pttl = await raw.pttl(keys.poolClaim("p", "a"));
      expect(pttl).toBeGreaterThan(25_000);
      expect(pttl).toBeLessThanOrEqual(30_000);
      expect(await be.poolClaimAny("empty", {}, 30)).toBeNull();
    });

    it("claims in parallel without handing one item out twice", async () => {
      for (let i = 0; i < 5; i++) await be.poolPut("p", `i${i}`, "x", {}, null);
      const got = await Promise.all(Array.from({ length: 8 }, () => be.poolClaimAny("p", {}, 30)));
      const ids = got.filter((g) => g !== null).map((g) => g!.id);
      expect(ids.length).toBe(5);
      expect(new Set(ids).size).toBe(5);
    });

    it("filters claims by tags with JSON equality", async () => {
      await be.poolPut("p", "eu1", "x", { region: "eu", tier: 1, meta: { a: [1, 2] } }, null);
      await be.poolPut("p", "us", "x", { region: "us", tier: 2 }, null);
      expect(await be.poolClaimAny("p", { region: "asia" }, 30)).toBeNull();
      expect(await be.poolClaimAny("p", { region: "eu", tier: "1" }, 30)).toBeNull();
      expect((await be.poolClaimAny("p", { region: "us" }, 30))?.id).toBe("us");
      expect(await be.poolClaimAny("p", { region: "us" }, 30)).toBeNull();
      expect(await be.poolClaimAny("p", { meta: { a: [2, 1] } }, 30)).toBeNull();
      const eu = await be.poolClaimAny("p", { region: "eu", meta: { a: [1, 2] } }, 30);
      expect(eu?.id).toBe("eu1");
      expect(eu?.payload).toEqual(b("x"));
      expect(eu?.tags).toEqual({ region: "eu", tier: 1, meta: { a: [1, 2] } });
    });

    it("matches a null in `where` against a missing tag, as Python's tags.get does", async () => {
      await be.poolPut("p", "tagged", "x", { owner: "bob" }, null);
      await be.poolPut("p", "free", "x", { other: 1 }, null);
      expect((await be.poolClaimAny("p", { owner: null }, 30))?.id).toBe("free");
      expect(await be.poolClaimAny("p", { owner: null }, 30)).toBeNull();
    });

    it("claims the latest-expiring item first and never-expiring ones last", async () => {
      await be.poolPut("p", "never", "x", {}, null);
      await be.poolPut("p", "soon", "x", {}, 100);
      await be.poolPut("p", "later", "x", {}, 1000);
      const order: string[] = [];
      for (let i = 0; i < 3; i++) order.push((await be.poolClaimAny("p", {}, 30))!.id);
      expect(order).toEqual(["later", "soon", "never"]);
    });

    it("releases claims and removes items with their claim", async () => {
      await be.poolPut("p", "a", "x", {}, null);
      await be.poolClaimAny("p", {}, 30);
      expect(await be.poolRelease("p", "a")).toBe(true);
      expect(await be.poolRelease("p", "a")).toBe(false);
      expect((await be.poolClaimAny("p", {}, 30))?.id).toBe("a");
      expect(await be.poolRemove("p", "a")).toBe(true);
      expect(await raw.type(keys.poolClaim("p", "a"))).toBe("none");
      expect(await raw.type("fleet:pool:p")).toBe("none");
      expect(await be.poolRemove("p", "a")).toBe(false);
      expect(await be.poolSize("p")).toBe(0);
    });

    it("lets a claim lapse after its hold time", async () => {
      await be.poolPut("p", "a", "x", {}, null);
      expect(await be.poolClaimAny("p", {}, 1)).not.toBeNull();
      expect(await be.poolClaimAny("p", {}, 1)).toBeNull();
      await sleep(1150);
      expect((await be.poolList("p"))[0]!.inUseUntil).toBeNull();
      expect((await be.poolClaimAny("p", {}, 1))?.id).toBe("a");
    });

    it("names pools (not claim keys), sorted, and summarizes them", async () => {
      await be.poolPut("p:1", "a", "x", {}, null);
      await be.poolPut("p*", "a", "x", {}, null);
      await be.poolPut("p[", "a", "x", {}, null);
      await be.poolPut("z", "live", "x", {}, null);
      await be.poolPut("z", "live2", "x", {}, 100);
      await be.poolClaimAny("z", {}, 30);
      await raw.hset("fleet:pool:z", "old", '{"p": "", "t": {}, "x": 1000.5}');
      await raw.hset("fleet:pool:z", "bad", "nope");
      await raw.set(keys.poolClaim("ghost", "a"), "1", { ttlSeconds: 30 });
      expect(await be.poolNames()).toEqual(["p*", "p:1", "p[", "z"]);
      expect(await be.poolSummaries(["z", "none"])).toEqual([
        { name: "z", size: 4, live: 2, expired: 1, claimed: 1, free: 1 },
        { name: "none", size: 0, live: 0, expired: 0, claimed: 0, free: 0 },
      ]);
    });

    it("estimates a pool bigger than exactUpTo from a sample, exact size; a claim on an expired item is not free", async () => {
      for (let i = 0; i < 40; i++) await raw.hset("fleet:pool:big", `i${i}`, '{"p": "", "t": {}, "x": null}');
      await raw.hset("fleet:pool:small", "gone", '{"p": "", "t": {}, "x": 1000.5}');
      await raw.set(keys.poolClaim("small", "gone"), "1", { ttlSeconds: 30 });
      const [big, small] = await be.poolSummaries(["big", "small"], { exactUpTo: 10 });
      // every item free: the estimate is exact whatever the sample
      expect(big).toEqual({ name: "big", size: 40, live: 40, expired: 0, claimed: 0, free: 40, estimated: { sampled: 40 } });
      expect(small).toEqual({ name: "small", size: 1, live: 0, expired: 1, claimed: 1, free: 0 });
      for (let i = 0; i < 40; i++) await raw.set(keys.poolClaim("big", `i${i}`), "1", { ttlSeconds: 30 });
      expect((await be.poolSummaries(["big"], { exactUpTo: 10 }))[0]).toMatchObject({ size: 40, claimed: 40, free: 0, estimated: { sampled: 40 } });
    });

    it("lists every stored item, corrupt and expired ones included", async () => {
      await be.poolPut("p", "a", "pay", { t: 1 }, null);
      await be.poolClaimAny("p", {}, 30);
      await raw.hset("fleet:pool:p", "old", '{"p": "aGk=", "t": {}, "x": 1000.5}');
      await raw.hset("fleet:pool:p", "bad", NOT_UTF8);
      const items = (await be.poolItems("p")).sort((x, y) => x.id.localeCompare(y.id));
      expect(items.map((i) => i.id)).toEqual(["a", "bad", "old"]);
      const [a, bad, old] = items;
      expect(a).toMatchObject({ payload: b("pay"), tags: { t: 1 }, expiresAt: null, expired: false, corrupt: false });
      expect(a!.raw.toString()).toBe('{"p": "cGF5", "t": {"t": 1}, "x": null}');
      expect(a!.inUseUntil).toBeGreaterThan(now() + 25);
      expect(bad).toMatchObject({ raw: NOT_UTF8, payload: null, tags: null, corrupt: true, inUseUntil: null });
      expect(old).toMatchObject({ payload: b("hi"), expiresAt: 1000.5, expired: true, corrupt: false });
      expect(await be.poolItems("none")).toEqual([]);
    });

    it("deletes a pool with its claim keys, leaving pools with longer names alone", async () => {
      await be.poolPut("a", "x", "1", {}, null);
      await be.poolPut("a", "y", "1", {}, null);
      await be.poolPut("a:b", "x", "1", {}, null);
      await be.poolPut("a*", "x", "1", {}, null);
      await be.poolClaimAny("a", {}, 30);
      await be.poolClaimAny("a", {}, 30);
      await be.poolClaimAny("a:b", {}, 30);
      await be.poolClaimAny("a*", {}, 30);
      expect(await be.poolDelete("a")).toEqual({ deleted: true, items: 2 });
      expect(await raw.keys()).toEqual(["fleet:pool:a*", "fleet:pool:a*:claim:x", "fleet:pool:a:b", "fleet:pool:a:b:claim:x"]);
      expect(await be.poolDelete("a")).toEqual({ deleted: false, items: 0 });
    });
  });
}
