// The Backend contract, as one vitest suite that every implementation must pass
// (`describeBackendContract("redis", factory)`, `describeBackendContract("memory", factory)`).
// Upstream operations follow the Python reference (../shared/spec/backend.py) byte for byte;
// the additions follow the JSDoc in src/types.ts and the fixes in ../shared/spec/README.md.
//
// The factory gives each test a fresh, empty backend plus a RawPlanter: raw access to the
// same key space, so a test can plant what a broken or foreign writer would leave behind and
// check the exact bytes an operation stored.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha1Hex } from "../src/codec";
import { CorruptDataError, StaleGenerationError } from "../src/errors";
import { keys } from "../src/keys";
import { pyFloatRepr, pyJsonBytes } from "../src/pyjson";
import { taskIdOfBody } from "../src/task-body";
import { TASK_ID_CASES } from "./task-ids";
import { poolPruneCases } from "./pool-prune-cases";

export { TASK_ID_CASES, type TaskIdCase } from "./task-ids";
import type { Backend, BusMessage, BytesLike, WorkerRef } from "../src/types";

export type RawType = "none" | "string" | "hash" | "set" | "zset" | "list";

/** Raw writes and reads under Fleet's key names, bypassing the Backend. */
export interface RawPlanter {
  set(key: string, value: BytesLike, opts?: { ttlSeconds?: number }): Promise<void>;
  hset(key: string, field: string, value: BytesLike): Promise<void>;
  zadd(key: string, score: number, member: BytesLike): Promise<void>;
  rpush(key: string, ...values: BytesLike[]): Promise<void>;
  sadd(key: string, ...members: string[]): Promise<void>;
  del(key: string): Promise<void>;
  // companion reads
  type(key: string): Promise<RawType>;
  get(key: string): Promise<Buffer | null>;
  hgetall(key: string): Promise<Record<string, Buffer>>;
  /** Ascending by score. */
  zrange(key: string): Promise<Array<{ member: Buffer; score: number }>>;
  lrange(key: string): Promise<Buffer[]>;
  /** Sorted. */
  smembers(key: string): Promise<string[]>;
  /** Milliseconds; -1 without TTL, -2 when absent. */
  pttl(key: string): Promise<number>;
  /** Every key, sorted. */
  keys(): Promise<string[]>;
}

export interface BackendFixture {
  backend: Backend;
  plantRaw: RawPlanter;
  cleanup: () => Promise<void>;
}

const b = (s: string) => Buffer.from(s, "utf8");
const texts = (bufs: Array<Buffer | null>) => bufs.map((x) => (x === null ? null : x.toString("utf8")));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const now = () => Date.now() / 1000;
const NOT_UTF8 = Buffer.from([0xff, 0xfe, 0x80, 0x41]);
const body = (id: string | number, payload: unknown = {}) => pyJsonBytes({ id, payload });

async function waitFor<T>(read: () => T | undefined, ms = 3000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error("timed out waiting");
    await sleep(10);
  }
}

/** Content of every key (type, value, whether it has a TTL), for "nothing changed" checks. */
async function snapshot(raw: RawPlanter): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const k of await raw.keys()) {
    const type = await raw.type(k);
    let value: unknown;
    if (type === "string") value = (await raw.get(k))?.toString("base64");
    else if (type === "hash")
      value = Object.fromEntries(
        Object.entries(await raw.hgetall(k))
          .map(([f, v]) => [f, v.toString("base64")])
          .sort(),
      );
    else if (type === "zset") value = (await raw.zrange(k)).map((e) => [e.member.toString("base64"), e.score]);
    else if (type === "list") value = (await raw.lrange(k)).map((x) => x.toString("base64"));
    else if (type === "set") value = await raw.smembers(k);
    out[k] = { type, value, ttl: (await raw.pttl(k)) >= 0 };
  }
  return out;
}

export function describeBackendContract(name: string, factory: () => Promise<BackendFixture>): void {
  describe(`Backend contract: ${name}`, () => {
    let be: Backend;
    let raw: RawPlanter;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ backend: be, plantRaw: raw, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    describe("meta", () => {
      it("reports its kind and health", async () => {
        expect(["redis", "memory"]).toContain(be.kind);
        const h = await be.health();
        expect(h.latencyMs).toBeGreaterThanOrEqual(0);
        if (be.kind === "memory") {
          expect(h.version).toBe("memory");
          expect(h.aofEnabled).toBeNull();
        } else {
          expect(h.version).toMatch(/^\d+\.\d+/);
          expect(typeof h.aofEnabled).toBe("boolean");
        }
        expect(be.url).not.toMatch(/:[^:@/]+@/);
      });
    });

    describe("kv", () => {
      it("stores bytes as is under fleet:kv:<ns>:<key> and deletes them", async () => {
        await be.kvSet("ns", "k", NOT_UTF8);
        expect(await raw.get("fleet:kv:ns:k")).toEqual(NOT_UTF8);
        expect(await be.kvGet("ns", "k")).toEqual(NOT_UTF8);
        expect(await be.kvGet("ns", "other")).toBeNull();
        await be.kvSet("ns", "s", '"quoted é"');
        expect(await raw.get("fleet:kv:ns:s")).toEqual(Buffer.from([0x22, ...b("quoted "), 0xc3, 0xa9, 0x22]));
        expect(await be.kvDel("ns", "k")).toBe(true);
        expect(await be.kvDel("ns", "k")).toBe(false);
        expect(await be.kvGet("ns", "k")).toBeNull();
        expect(await raw.type("fleet:kv:ns:k")).toBe("none");
      });

      it("sets a TTL when asked and clears it on a plain overwrite", async () => {
        await be.kvSet("ns", "k", "v", 60);
        const e = await be.kvGetEntry("ns", "k");
        expect(e?.value).toEqual(b("v"));
        expect(e?.ttlMs).toBeGreaterThan(55_000);
        expect(e?.ttlMs).toBeLessThanOrEqual(60_000);
        await be.kvSet("ns", "k", "w");
        expect(await be.kvGetEntry("ns", "k")).toEqual({ value: b("w"), ttlMs: null });
        await be.kvSet("ns", "z", "x", 0);
        expect((await be.kvGetEntry("ns", "z"))?.ttlMs).toBeNull();
        expect(await be.kvGetEntry("ns", "missing")).toBeNull();
      });

      it("setnx writes only when absent", async () => {
        expect(await be.kvSetNx("ns", "k", "first")).toBe(true);
        expect(await be.kvSetNx("ns", "k", "second", 30)).toBe(false);
        expect(await be.kvGet("ns", "k")).toEqual(b("first"));
        expect((await be.kvGetEntry("ns", "k"))?.ttlMs).toBeNull();
        expect(await be.kvSetNx("ns", "t", "x", 30)).toBe(true);
        expect((await be.kvGetEntry("ns", "t"))?.ttlMs).toBeGreaterThan(25_000);
      });

      it("expires keys after their TTL", async () => {
        await be.kvSet("ns", "short", "v", 1);
        await be.kvSetNx("ns", "short-nx", "v", 1);
        await be.kvSet("ns", "long", "v");
        await sleep(1150);
        expect(await be.kvGet("ns", "short")).toBeNull();
        expect(await be.kvGetEntry("ns", "short-nx")).toBeNull();
        expect((await be.kvKeys("ns")).map((k) => k.key)).toEqual(["long"]);
        expect(await be.kvSetNx("ns", "short", "again")).toBe(true);
      });

      it("lists namespaces and keys, sorted, matching names literally", async () => {
        await be.kvSet("a", "x:y", "12345");
        await be.kvSet("a", "*", "1", 100);
        await be.kvSet("a", "[z", "");
        await be.kvSet("ab", "k", "1");
        await be.kvSet("a*", "k", "1");
        expect(await be.kvNamespaces()).toEqual([
          { ns: "a", keys: 3 },
          { ns: "a*", keys: 1 },
          { ns: "ab", keys: 1 },
        ]);
        const ks = await be.kvKeys("a");
        expect(ks.map((k) => k.key)).toEqual(["*", "[z", "x:y"]);
        expect(ks.find((k) => k.key === "x:y")).toEqual({ key: "x:y", ttlMs: null, bytes: 5 });
        expect(ks.find((k) => k.key === "*")?.ttlMs).toBeGreaterThan(90_000);
        expect(ks.find((k) => k.key === "[z")?.bytes).toBe(0);
        expect((await be.kvKeys("a*")).map((k) => k.key)).toEqual(["k"]);
        expect(await be.kvKeys("nope")).toEqual([]);
      });
    });

    describe("pools", () => {
      it("stores items as Python's JSON {p, t, x}", async () => {
        await be.poolPut("p", "i1", "hello", { a: 1, b: "x", c: "é" }, null);
        expect((await raw.hgetall("fleet:pool:p")).i1?.toString()).toBe('{"p": "aGVsbG8=", "t": {"a": 1, "b": "x", "c": "\\u00e9"}, "x": null}');
        const t0 = now();
        await be.poolPut("p", "i2", NOT_UTF8, {}, 60);
        const stored = (await raw.hgetall("fleet:pool:p")).i2!.toString();
        const m = /^\{"p": "\/\/6AQQ==", "t": \{\}, "x": (\d+\.\d+)\}$/.exec(stored);
        expect(m).not.toBeNull();
        expect(Number(m![1])).toBeGreaterThan(t0 + 59);
        expect(Number(m![1])).toBeLessThan(t0 + 62);
        expect(await be.poolSize("p")).toBe(2);
      });

      it("lists live items with their claim state, skipping expired and undecodable ones", async () => {
        await be.poolPut("p", "live", "pl", { k: "v" }, null);
        await be.poolPut("p", "ttl", "pt", {}, 100);
        await raw.hset("fleet:pool:p", "old", '{"p": "", "t": {}, "x": 1000.5}');
        await raw.hset("fleet:pool:p", "bad", "not json");
        await raw.hset("fleet:pool:p", "bad2", NOT_UTF8);
        const items = (await be.poolList("p")).sort((x, y) => x.id.localeCompare(y.id));
        expect(items.map((i) => i.id)).toEqual(["live", "ttl"]);
        expect(items[0]).toEqual({ id: "live", payload: b("pl"), tags: { k: "v" }, expiresAt: null, inUseUntil: null });
        expect(items[1]!.expiresAt).toBeGreaterThan(now() + 98);
        expect(await be.poolSize("p")).toBe(5);
        const claimed = await be.poolClaimAny("p", { k: "v" }, 30);
        expect(claimed?.id).toBe("live");
        const after = await be.poolList("p");
        const live = after.find((i) => i.id === "live")!;
        expect(live.inUseUntil).toBeGreaterThan(now() + 25);
        expect(live.inUseUntil).toBeLessThan(now() + 31);
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

    describe("locks", () => {
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

    describe("counters", () => {
      it("increments, reads, sets and deletes", async () => {
        expect(await be.counterGet("c")).toBe(0);
        expect(await be.counterIncr("c", 5)).toBe(5);
        expect(await be.counterIncr("c", -7)).toBe(-2);
        expect(await be.counterGet("c")).toBe(-2);
        expect(await raw.get("fleet:counter:c")).toEqual(b("-2"));
        await be.counterSet("c", 42);
        expect(await raw.get("fleet:counter:c")).toEqual(b("42"));
        expect(await be.counterIncr("c", 1)).toBe(43);
        expect(await be.counterDel("c")).toBe(true);
        expect(await be.counterDel("c")).toBe(false);
        expect(await be.counterGet("c")).toBe(0);
      });

      it("lists counters sorted, a non-integer one with value null and its raw bytes", async () => {
        await be.counterSet("b:x", 7);
        await be.counterIncr("a*", 3);
        await raw.set("fleet:counter:bad", "12abc");
        await raw.set("fleet:counter:worse", NOT_UTF8);
        expect(await be.counterList()).toEqual([
          { name: "a*", value: 3, raw: b("3") },
          { name: "b:x", value: 7, raw: b("7") },
          { name: "bad", value: null, raw: b("12abc") },
          { name: "worse", value: null, raw: NOT_UTF8 },
        ]);
      });

      it("refuses arithmetic on a non-integer counter with CorruptDataError, changing nothing", async () => {
        await raw.set("fleet:counter:bad", "12abc");
        await expect(be.counterIncr("bad", 1)).rejects.toBeInstanceOf(CorruptDataError);
        await expect(be.counterGet("bad")).rejects.toBeInstanceOf(CorruptDataError);
        expect(await raw.get("fleet:counter:bad")).toEqual(b("12abc"));
      });
    });

    describe("queues", () => {
      it("pushes by priority (int or name) onto the high, normal and low lists", async () => {
        await be.queuePush("q", "n1");
        await be.queuePush("q", "h1", { priority: 5 });
        await be.queuePush("q", "l1", { priority: -1 });
        await be.queuePush("q", "h2", { priority: "high" });
        await be.queuePush("q", "n2", { priority: 0 });
        await be.queuePush("q", "l2", { priority: "low" });
        await be.queuePush("q", NOT_UTF8, { priority: "normal" });
        expect(texts(await raw.lrange("fleet:queue:q:high"))).toEqual(["h1", "h2"]);
        expect((await raw.lrange("fleet:queue:q")).slice(0, 2).map(String)).toEqual(["n1", "n2"]);
        expect((await raw.lrange("fleet:queue:q"))[2]).toEqual(NOT_UTF8);
        expect(texts(await raw.lrange("fleet:queue:q:low"))).toEqual(["l1", "l2"]);
        expect(await be.queueSize("q")).toBe(7);
        expect(texts(await be.queuePeek("q", 3))).toEqual(["h1", "h2", "n1"]);
        expect((await be.queuePeek("q", 10)).length).toBe(7);
        expect(await be.queuePeek("q", 0)).toEqual([]);
        expect(await be.queueSize("q")).toBe(7);
      });

      it("pushes many at once, in order, each to its priority list", async () => {
        await be.queuePushMany("q", [{ body: "a" }, { body: "b", priority: "high" }, { body: "c", priority: "low" }, { body: "d", priority: "normal" }]);
        expect(texts(await raw.lrange("fleet:queue:q"))).toEqual(["a", "d"]);
        expect(texts(await raw.lrange("fleet:queue:q:high"))).toEqual(["b"]);
        expect(texts(await raw.lrange("fleet:queue:q:low"))).toEqual(["c"]);
        await be.queuePushMany("q", []);
        expect(await be.queueSize("q")).toBe(4);
      });

      it("reserves high, then normal, then low, FIFO within each", async () => {
        await be.queuePush("q", body("l"), { priority: -1 });
        await be.queuePush("q", body("n1"));
        await be.queuePush("q", body("h1"), { priority: 1 });
        await be.queuePush("q", body("n2"));
        await be.queuePush("q", body("h2"), { priority: 1 });
        const got: string[] = [];
        for (let i = 0; i < 5; i++) got.push(JSON.parse(String(await be.queueReserve("q", 0, 30))).id as string);
        expect(got).toEqual(["h1", "h2", "n1", "n2", "l"]);
        expect(await be.queueReserve("q", 0, 30)).toBeNull();
      });

      it("registers a reserved body in :processing with its deadline and in :processing:body", async () => {
        const bd = body("t1", { x: 1 });
        await be.queuePush("q", bd);
        const t0 = now();
        expect(await be.queueReserve("q", 0, 30)).toEqual(bd);
        const proc = await raw.zrange("fleet:queue:q:processing");
        expect(proc.map((e) => e.member.toString())).toEqual(["t1"]);
        expect(proc[0]!.score).toBeGreaterThanOrEqual(t0 + 29.9);
        expect(proc[0]!.score).toBeLessThan(t0 + 32);
        expect(await raw.hgetall("fleet:queue:q:processing:body")).toEqual({ t1: bd });
        expect(await raw.type("fleet:queue:q")).toBe("none");
        await be.queuePush("q", '{"id": true}');
        await be.queuePush("q", '{"id": 1.5}');
        await be.queueReserve("q", 0, 30);
        await be.queueReserve("q", 0, 30);
        // str(envelope["id"]) as Python writes it
        expect(Object.keys(await raw.hgetall("fleet:queue:q:processing:body")).sort()).toEqual(["1.5", "True", "t1"]);
        await be.queueAck("q", "True");
        await be.queueAck("q", "1.5");
        await be.queuePush("q", '{"id": 7, "payload": null}');
        await be.queueReserve("q", 0, 0);
        const p2 = await raw.zrange("fleet:queue:q:processing");
        expect(p2.map((e) => e.member.toString()).sort()).toEqual(["7", "t1"]);
        // Python gives at least one second of visibility
        expect(p2.find((e) => e.member.toString() === "7")!.score).toBeGreaterThanOrEqual(t0 + 0.99);
      });

      it("delivers a body with no usable id once and leaves it unregistered", async () => {
        const bad = [b("not json"), b('{"payload": 1}'), b('{"id": "", "payload": 1}'), b('{"id": [1]}'), b("[1, 2]"), NOT_UTF8];
        for (const x of bad) await be.queuePush("q", x);
        for (const x of bad) expect(await be.queueReserve("q", 0, 30)).toEqual(x);
        expect(await be.queueReserve("q", 0, 30)).toBeNull();
        expect(await raw.keys()).toEqual([]);
        expect((await be.queueDepths(["q"]))[0]!.processing).toBe(0);
      });

      it("registers the one task id of src/task-body.ts for every body of the shared table", async () => {
        // one queue per case: several cases share an id ("inf", "-0.0")
        const q = (i: number) => `ids:${i}`;
        for (const [i, c] of TASK_ID_CASES.entries()) await be.queuePush(q(i), c.body);
        for (const [i, c] of TASK_ID_CASES.entries()) {
          expect(await be.queueReserve(q(i), 0, 30), c.name).toEqual(c.body);
          const registered = await raw.hgetall(keys.queueProcessingBody(q(i)));
          expect(registered, c.name).toEqual(c.id === null ? {} : { [c.id]: c.body });
          expect(taskIdOfBody(c.body), c.name).toBe(c.id);
        }
      });

      it("registers float ids as Python's repr of the float, for any double", async () => {
        const xs = Array.from({ length: 300 }, (_, i) => (i % 2 ? -1 : 1) * Math.random() * 10 ** Math.floor(Math.random() * 60 - 30));
        xs.push(0.1, 0.2 + 0.1, 1 / 3, 2 ** 53, 2 ** 53 + 2, 1e15 + 0.3, 123456789.125, 5e-324, 2.2250738585072014e-308, Number.MAX_VALUE);
        const literal = (x: number) => (/[.e]/.test(String(x)) ? String(x) : `${x}.0`);
        for (const x of xs) await be.queuePush("f", `{"id": ${literal(x)}}`);
        for (let i = 0; i < xs.length; i++) await be.queueReserve("f", 0, 30);
        const ids = Object.keys(await raw.hgetall(keys.queueProcessingBody("f"))).sort();
        expect(ids).toEqual([...new Set(xs.map((x) => pyFloatRepr(x)))].sort());
      });

      it("waits up to the timeout for a body, and wakes for a push", async () => {
        // timeout 0 does not wait: it answers long before the 10 s this guards against (no latency claim)
        let start = Date.now();
        expect(await be.queueReserve("q", 0, 30)).toBeNull();
        expect(Date.now() - start).toBeLessThan(10_000);
        // a timeout is waited out in full: timers never fire early, so this bound holds under any load
        start = Date.now();
        expect(await be.queueReserve("q", 0.4, 30)).toBeNull();
        expect(Date.now() - start).toBeGreaterThanOrEqual(350);
        // the push wakes it: the reserve is still waiting when the body is pushed, and answers
        // the body, which it could not after its 30 s timeout (then it answers null)
        let settled = false;
        const reserving = be.queueReserve("q", 30, 30).finally(() => (settled = true));
        await sleep(200); // shapes the race (the reserver is waiting by now); proves nothing
        expect(settled).toBe(false);
        await be.queuePush("q", body("w"));
        expect(await reserving).toEqual(body("w"));
        expect((await raw.zrange("fleet:queue:q:processing")).map((e) => String(e.member))).toEqual(["w"]);
      });

      it("hands each body to exactly one of many concurrent reservers", async () => {
        for (let i = 0; i < 20; i++) await be.queuePush("q", body(`t${i}`));
        const got = await Promise.all(Array.from({ length: 25 }, () => be.queueReserve("q", 0, 30)));
        const ids = got.filter((g) => g !== null).map((g) => String(JSON.parse(String(g)).id));
        expect(ids.length).toBe(20);
        expect(new Set(ids).size).toBe(20);
        expect((await raw.zrange("fleet:queue:q:processing")).length).toBe(20);
      });

      it("drains due :scheduled bodies onto the normal list on reserve, keeping future ones", async () => {
        await raw.zadd("fleet:queue:q:scheduled", now() - 10, body("due1"));
        await raw.zadd("fleet:queue:q:scheduled", now() - 5, body("due2"));
        await raw.zadd("fleet:queue:q:scheduled", now() + 100, body("future"));
        await be.queuePush("q", body("n"));
        await be.queuePush("q", body("h"), { priority: "high" });
        expect(await be.queueReserve("q", 0, 30)).toEqual(body("h"));
        expect(texts(await raw.lrange("fleet:queue:q"))).toEqual([body("n"), body("due1"), body("due2")].map(String));
        expect((await raw.zrange("fleet:queue:q:scheduled")).map((e) => e.member)).toEqual([body("future")]);
        expect(await be.queueReserve("q", 0, 30)).toEqual(body("n"));
        expect(await be.queueReserve("q", 0, 30)).toEqual(body("due1"));
        expect(await be.queueReserve("q", 0, 30)).toEqual(body("due2"));
        expect(await be.queueReserve("q", 0, 30)).toBeNull();
      });

      it("acks: ends the reservation once", async () => {
        await be.queuePush("q", body("a"));
        await be.queueReserve("q", 0, 30);
        expect(await be.queueAck("q", "a")).toBe(true);
        expect(await be.queueAck("q", "a")).toBe(false);
        expect(await raw.keys()).toEqual([]);
      });

      it("nacks: straight back to the tail of the normal list, or into :scheduled with a delay", async () => {
        await be.queuePush("q", body("a"));
        await be.queuePush("q", body("b"));
        await be.queuePush("q", body("c"));
        const a = (await be.queueReserve("q", 0, 30))!;
        expect(await be.queueNack("q", "a", a, { delaySeconds: 0 })).toBe(true);
        expect(texts(await raw.lrange("fleet:queue:q"))).toEqual([body("b"), body("c"), body("a")].map(String));
        expect(await raw.type("fleet:queue:q:processing")).toBe("none");
        const bb = (await be.queueReserve("q", 0, 30))!;
        const t0 = now();
        expect(await be.queueNack("q", "b", bb, { delaySeconds: 30 })).toBe(true);
        const sched = await raw.zrange("fleet:queue:q:scheduled");
        expect(sched.map((e) => e.member)).toEqual([body("b")]);
        expect(sched[0]!.score).toBeGreaterThanOrEqual(t0 + 29.9);
        expect(sched[0]!.score).toBeLessThan(t0 + 32);
        expect(await raw.type("fleet:queue:q:processing:body")).toBe("none");
        // not due yet: the reserve takes c and leaves b scheduled
        expect(await be.queueReserve("q", 0, 30)).toEqual(body("c"));
        expect(await be.queueReserve("q", 0, 30)).toEqual(body("a"));
        expect(await be.queueReserve("q", 0, 30)).toBeNull();
      });

      it("fails a reservation: ended and dead-lettered together", async () => {
        await be.queuePush("q", body("a"));
        const a = (await be.queueReserve("q", 0, 30))!;
        expect(await be.queueFail("q", "a", a)).toBe(true);
        expect(await raw.keys()).toEqual(["fleet:queue:q:dead"]);
        expect(await raw.lrange("fleet:queue:q:dead")).toEqual([a]);
      });

      it("sweeps expired reservations back, dropping and reporting orphans", async () => {
        for (const id of ["a", "b", "c"]) await be.queuePush("q", body(id));
        await be.queuePush("q", body("n"));
        for (let i = 0; i < 3; i++) await be.queueReserve("q", 0, 30);
        await raw.zadd("fleet:queue:q:processing", 1000, "ghost");
        const t = now();
        expect(await be.queueSweepExpired("q", t)).toEqual({ requeued: 0, orphaned: ["ghost"] });
        expect((await raw.zrange("fleet:queue:q:processing")).map((e) => String(e.member))).toEqual(["a", "b", "c"]);
        const r = await be.queueSweepExpired("q", t + 100);
        expect(r).toEqual({ requeued: 3, orphaned: [] });
        const normal = texts(await raw.lrange("fleet:queue:q"));
        expect(normal[0]).toBe(String(body("n")));
        expect(normal.slice(1).sort()).toEqual([body("a"), body("b"), body("c")].map(String).sort());
        expect(await raw.type("fleet:queue:q:processing")).toBe("none");
        expect(await raw.type("fleet:queue:q:processing:body")).toBe("none");
        expect(await be.queueSweepExpired("q")).toEqual({ requeued: 0, orphaned: [] });
      });

      it("sweeps with the current time by default", async () => {
        await be.queuePush("q", body("a"));
        await be.queueReserve("q", 0, 30);
        await raw.zadd("fleet:queue:q:processing", now() - 1, "a");
        expect(await be.queueSweepExpired("q")).toEqual({ requeued: 1, orphaned: [] });
        expect(await raw.lrange("fleet:queue:q")).toEqual([body("a")]);
      });

      it("keeps dead letters: push, peek, range, pop, length, clear", async () => {
        for (const x of ["a", "b", "c", "d"]) await be.queueDead("q", x);
        expect(texts(await raw.lrange("fleet:queue:q:dead"))).toEqual(["a", "b", "c", "d"]);
        expect(await be.dlqLength("q")).toBe(4);
        expect(texts(await be.dlqPeek("q", 2))).toEqual(["a", "b"]);
        expect(await be.dlqRange("q", 1, 2)).toEqual({ total: 4, items: [b("b"), b("c")] });
        expect(await be.dlqRange("q", 3, 10)).toEqual({ total: 4, items: [b("d")] });
        expect(await be.dlqRange("q", 9, 10)).toEqual({ total: 4, items: [] });
        expect(texts(await be.dlqPop("q", 3))).toEqual(["a", "b", "c"]);
        expect(texts(await be.dlqPop("q", 3))).toEqual(["d"]);
        expect(await be.dlqPop("q", 3)).toEqual([]);
        await be.queueDead("q", "x");
        await be.queueDead("q", "y");
        expect(await be.dlqClear("q")).toBe(2);
        expect(await be.dlqClear("q")).toBe(0);
        expect(await be.dlqLength("q")).toBe(0);
        expect(await raw.keys()).toEqual([]);
      });

      it("requeues dead letters by content ref, every copy, onto the normal list tail", async () => {
        const [A, B, C] = [body("a"), body("b"), NOT_UTF8];
        for (const x of [A, B, A, C]) await be.queueDead("q", x);
        await be.queuePush("q", body("pending"));
        await be.queuePush("q", body("hi"), { priority: "high" });
        const missingRef = sha1Hex("gone");
        const r = await be.dlqRequeue("q", { refs: [sha1Hex(A), missingRef, sha1Hex(C)] });
        expect(r.requeued).toBe(3);
        expect(r.missing).toEqual([missingRef]);
        expect(await raw.lrange("fleet:queue:q:dead")).toEqual([B]);
        const normal = await raw.lrange("fleet:queue:q");
        expect(normal[0]).toEqual(body("pending"));
        expect(
          normal
            .slice(1)
            .map((x) => x.toString("base64"))
            .sort(),
        ).toEqual([A, A, C].map((x) => x.toString("base64")).sort());
        expect(await raw.lrange("fleet:queue:q:high")).toEqual([body("hi")]);
        expect(await be.dlqRequeue("q", { refs: [sha1Hex(A)] })).toEqual({ requeued: 0, missing: [sha1Hex(A)] });
        expect(await be.dlqRequeue("q", { all: true })).toEqual({ requeued: 1, missing: [] });
        expect(await raw.type("fleet:queue:q:dead")).toBe("none");
        expect((await raw.lrange("fleet:queue:q")).at(-1)).toEqual(B);
        expect(await be.dlqRequeue("q", { all: true })).toEqual({ requeued: 0, missing: [] });
      });

      it("requeues all dead letters in order", async () => {
        for (const x of ["a", "b", "a"]) await be.queueDead("q", x);
        expect(await be.dlqRequeue("q", { all: true })).toEqual({ requeued: 3, missing: [] });
        expect(texts(await raw.lrange("fleet:queue:q"))).toEqual(["a", "b", "a"]);
      });

      it("deletes dead letters by content ref, every copy, or all", async () => {
        for (const x of ["a", "b", "a", "c"]) await be.queueDead("q", x);
        // a ref named twice is still one selection, reported missing once
        const r = await be.dlqDelete("q", { refs: [sha1Hex("a"), sha1Hex("zz"), sha1Hex("a"), sha1Hex("zz")] });
        expect(r).toEqual({ deleted: 2, missing: [sha1Hex("zz")] });
        expect(texts(await raw.lrange("fleet:queue:q:dead"))).toEqual(["b", "c"]);
        expect(await raw.type("fleet:queue:q")).toBe("none");
        expect(await be.dlqDelete("q", { all: true })).toEqual({ deleted: 2, missing: [] });
        expect(await raw.keys()).toEqual([]);
        expect(await be.dlqDelete("q", { refs: [sha1Hex("b")] })).toEqual({ deleted: 0, missing: [sha1Hex("b")] });
      });

      it("names every queue that has any key, sorted, names with ':' and glob characters included", async () => {
        await be.queuePush("n1", "x");
        await be.queuePush("q:2", "x", { priority: "high" });
        await be.queuePush("low", "x", { priority: "low" });
        await be.queueDead("q*", "x");
        await raw.zadd("fleet:queue:q[x:scheduled", now() + 100, "x");
        await raw.zadd("fleet:queue:proc:processing", now() + 100, "id");
        await raw.hset("fleet:queue:pb:processing:body", "id", "x");
        expect(await be.queueNames()).toEqual(["low", "n1", "pb", "proc", "q*", "q:2", "q[x"]);
        await be.dlqClear("q*");
        await be.queueReserve("n1", 0, 30);
        expect(await be.queueNames()).toEqual(["low", "pb", "proc", "q:2", "q[x"]);
      });

      it("reports depths: pending by priority, processing and overdue, scheduled and due, dead", async () => {
        const t = now();
        await be.queuePush("q", body("h"), { priority: "high" });
        await be.queuePush("q", body("n1"));
        await be.queuePush("q", body("n2"));
        await be.queuePush("q", body("l"), { priority: "low" });
        await raw.zadd("fleet:queue:q:processing", t - 50, "over");
        await raw.zadd("fleet:queue:q:processing", t + 50, "ok");
        await raw.zadd("fleet:queue:q:scheduled", t - 50, "due");
        await raw.zadd("fleet:queue:q:scheduled", t + 50, "later1");
        await raw.zadd("fleet:queue:q:scheduled", t + 60, "later2");
        await be.queueDead("q", "d");
        const [d, empty] = await be.queueDepths(["q", "none"], t);
        expect(d).toEqual({
          name: "q",
          pending: { high: 1, normal: 2, low: 1, total: 4 },
          processing: 2,
          overdue: 1,
          scheduled: 3,
          due: 1,
          dead: 1,
        });
        expect(empty).toEqual({
          name: "none",
          pending: { high: 0, normal: 0, low: 0, total: 0 },
          processing: 0,
          overdue: 0,
          scheduled: 0,
          due: 0,
          dead: 0,
        });
        const [later] = await be.queueDepths(["q"], t + 55);
        expect(later!.overdue).toBe(2);
        expect(later!.due).toBe(2);
        expect(await be.queueDepths([])).toEqual([]);
      });

      it("details a queue without changing it", async () => {
        const t = now();
        await be.queuePush("q", "l1", { priority: "low" });
        for (const x of ["n1", "n2", "n3"]) await be.queuePush("q", x);
        await be.queuePush("q", body("r1"), { priority: "high" });
        await be.queuePush("q", body("r2"), { priority: "high" });
        await be.queueReserve("q", 0, 30);
        await be.queueReserve("q", 0, 60);
        await raw.zadd("fleet:queue:q:processing", t - 5, "orphan");
        await raw.zadd("fleet:queue:q:scheduled", t + 20, "s2");
        await raw.zadd("fleet:queue:q:scheduled", t + 10, "s1");
        const before = await snapshot(raw);
        const d = await be.queueDetail("q", 3, t);
        expect(d.depths).toEqual((await be.queueDepths(["q"], t))[0]);
        expect(d.depths.pending).toEqual({ high: 0, normal: 3, low: 1, total: 4 });
        expect(d.depths.overdue).toBe(1);
        expect(d.pending.map((p) => [p.priority, String(p.body)])).toEqual([
          ["normal", "n1"],
          ["normal", "n2"],
          ["normal", "n3"],
        ]);
        expect(d.processing.map((p) => [p.id, p.body === null ? null : String(p.body)])).toEqual([
          ["orphan", null],
          ["r1", String(body("r1"))],
          ["r2", String(body("r2"))],
        ]);
        expect(d.processing[0]!.deadline).toBe(t - 5);
        expect(d.processing[1]!.deadline).toBeGreaterThan(t + 29);
        expect(d.scheduled).toEqual([
          { readyAt: t + 10, body: b("s1") },
          { readyAt: t + 20, body: b("s2") },
        ]);
        const all = await be.queueDetail("q", 100, t);
        expect(all.pending.map((p) => [p.priority, String(p.body)])).toEqual([
          ["normal", "n1"],
          ["normal", "n2"],
          ["normal", "n3"],
          ["low", "l1"],
        ]);
        expect(await snapshot(raw)).toEqual(before);
      });
    });

    describe("streams", () => {
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

    describe("events", () => {
      it("delivers published messages and stream-push scores to a subscriber until it closes", async () => {
        const topic = `t-${Math.random().toString(36).slice(2)}`;
        const got: BusMessage[] = [];
        const sub = await be.subscribeEvents((m) => {
          if (m.topic.startsWith(topic)) got.push(m);
        });
        await be.eventPublish(topic, NOT_UTF8);
        await be.eventPublish(`${topic}:x.y`, '{"a": 1}');
        await be.streamPush(topic, "env", { score: 1700000000, maxLen: 0, ttlSeconds: 0 });
        await be.streamPush(topic, "env2", { score: 1700000000.25, maxLen: 0, ttlSeconds: 0 });
        await waitFor(() => (got.length >= 4 ? true : undefined));
        expect(got).toEqual([
          { topic, payload: NOT_UTF8 },
          { topic: `${topic}:x.y`, payload: b('{"a": 1}') },
          { topic: `${topic}.emit`, payload: b("1700000000.0") },
          { topic: `${topic}.emit`, payload: b("1700000000.25") },
        ]);
        await sub.close();
        // nothing after close: a subscription still open sees "after close" and then a marker
        // published after it; the closed one, had it still listened, would have had "after close" by then
        const later: string[] = [];
        const witness = await be.subscribeEvents((m) => m.topic === topic && later.push(String(m.payload)));
        try {
          await be.eventPublish(topic, "after close");
          await be.eventPublish(topic, "marker");
          await waitFor(() => (later.includes("marker") ? true : undefined));
          expect(later).toEqual(["after close", "marker"]);
          expect(got.length).toBe(4);
        } finally {
          await witness.close();
        }
      });

      it("fans out to every subscription", async () => {
        const topic = `t-${Math.random().toString(36).slice(2)}`;
        const a: string[] = [];
        const c: string[] = [];
        const s1 = await be.subscribeEvents((m) => m.topic === topic && a.push(String(m.payload)));
        const s2 = await be.subscribeEvents((m) => m.topic === topic && c.push(String(m.payload)));
        await be.eventPublish(topic, "hello");
        await waitFor(() => (a.length && c.length ? true : undefined));
        expect([a, c]).toEqual([["hello"], ["hello"]]);
        await s1.close();
        await s2.close();
      });
    });

    describe("workers", () => {
      it("registers: hardware as Python JSON, both indexes, gen 0 and config {} only when absent", async () => {
        await be.workerRegister("scraper", "h1", { host: "h1", cpus: 4, name: "café", load: 0.5 });
        expect(await raw.get("wkr:scraper:h1:hardware")).toEqual(b('{"host": "h1", "cpus": 4, "name": "caf\\u00e9", "load": 0.5}'));
        expect(await raw.get("wkr:scraper:h1:gen")).toEqual(b("0"));
        expect(await raw.get("wkr:scraper:h1:config")).toEqual(b("{}"));
        expect(await raw.smembers("wkrs:scraper")).toEqual(["h1"]);
        expect(await raw.smembers("wkrs:all")).toEqual(["scraper|h1"]);
        await be.workerSetConfig("scraper", "h1", { slots: 2 });
        await be.workerRegister("scraper", "h1", { host: "h1b" });
        expect(await raw.get("wkr:scraper:h1:hardware")).toEqual(b('{"host": "h1b"}'));
        expect(await raw.get("wkr:scraper:h1:gen")).toEqual(b("1"));
        expect(await raw.get("wkr:scraper:h1:config")).toEqual(b('{"slots": 2}'));
        expect(await raw.smembers("wkrs:all")).toEqual(["scraper|h1"]);
      });

      it("reads config and gen, with Python's defaults for an unknown worker", async () => {
        expect(await be.workerGetConfig("t", "nobody")).toEqual({ config: {}, gen: 0 });
        await be.workerRegister("t", "w", {});
        expect(await be.workerGetConfig("t", "w")).toEqual({ config: {}, gen: 0 });
        await be.workerSetConfig("t", "w", { a: { b: [1, "x"] } });
        expect(await be.workerGetConfig("t", "w")).toEqual({ config: { a: { b: [1, "x"] } }, gen: 1 });
      });

      it("writes config as Python JSON and bumps gen, honouring expectedGen", async () => {
        await be.workerRegister("t", "w", {});
        expect(await be.workerSetConfig("t", "w", { slots: 4, name: "ü", r: 1.5 })).toEqual({ config: { slots: 4, name: "ü", r: 1.5 }, gen: 1 });
        expect(await raw.get("wkr:t:w:config")).toEqual(b('{"slots": 4, "name": "\\u00fc", "r": 1.5}'));
        expect(await raw.get("wkr:t:w:gen")).toEqual(b("1"));
        expect((await be.workerSetConfig("t", "w", { slots: 5 }, { expectedGen: 1 })).gen).toBe(2);
        const before = await snapshot(raw);
        const err = await be.workerSetConfig("t", "w", { slots: 9 }, { expectedGen: 1 }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StaleGenerationError);
        expect((err as StaleGenerationError).expectedGen).toBe(1);
        expect((err as StaleGenerationError).currentGen).toBe(2);
        expect(await snapshot(raw)).toEqual(before);
        // an unregistered worker starts from gen 0, as INCR does
        expect((await be.workerSetConfig("t", "new", {}, { expectedGen: 0 })).gen).toBe(1);
      });

      it("reads empty config and gen values as {} and 0, as Python does, and writes over them", async () => {
        await be.workerRegister("t", "w", { host: "h" });
        await raw.set("wkr:t:w:config", "");
        await raw.set("wkr:t:w:gen", "");
        expect(await be.workerGetConfig("t", "w")).toEqual({ config: {}, gen: 0 });
        expect(await be.workerGet("t", "w")).toMatchObject({ config: {}, configGen: 0, corrupt: [] });
        await raw.set("wkr:t:w:hardware", "");
        await raw.set("wkr:t:w:stats", "");
        expect(await be.workerGet("t", "w")).toMatchObject({ hardware: {}, stats: {}, corrupt: [] });
        const [entry] = await be.workersIndex([{ automationType: "t", workerId: "w" }], { hostname: true });
        expect(entry).toMatchObject({ hostname: null, corrupt: [] });
        // INCR refuses "", so the write stores the 1 it would have made from 0
        expect(await be.workerSetConfig("t", "w", { a: 1 }, { expectedGen: 0 })).toEqual({ config: { a: 1 }, gen: 1 });
        expect(await raw.get("wkr:t:w:gen")).toEqual(b("1"));
        await raw.set("wkr:t:w:gen", "");
        await expect(be.workerSetConfig("t", "w", { a: 2 }, { expectedGen: 3 })).rejects.toMatchObject({ currentGen: 0 });
        await raw.set("wkr:t:x:gen", "");
        expect(
          await be.workerSetConfigMany([
            { automationType: "t", workerId: "w", config: { a: 3 } },
            { automationType: "t", workerId: "x", config: {}, expectedGen: 0 },
          ]),
        ).toEqual([
          { automationType: "t", workerId: "w", gen: 1 },
          { automationType: "t", workerId: "x", gen: 1 },
        ]);
        expect(await raw.get("wkr:t:w:config")).toEqual(b('{"a": 3}'));
      });

      it("refuses a config write over a non-integer gen, writing nothing", async () => {
        await be.workerRegister("t", "w", {});
        await raw.set("wkr:t:w:gen", "abc");
        const before = await snapshot(raw);
        await expect(be.workerSetConfig("t", "w", { slots: 1 })).rejects.toThrow();
        await expect(be.workerSetConfig("t", "w", { slots: 1 }, { expectedGen: 0 })).rejects.toBeInstanceOf(StaleGenerationError);
        expect(await snapshot(raw)).toEqual(before);
      });

      it("rolls config out to many workers all-or-nothing", async () => {
        for (const id of ["a", "b", "c"]) await be.workerRegister("t", id, {});
        await be.workerSetConfig("t", "b", { v: 0 });
        const out = await be.workerSetConfigMany([
          { automationType: "t", workerId: "c", config: { v: 1 }, expectedGen: 0 },
          { automationType: "t", workerId: "a", config: { v: 1 } },
          { automationType: "t", workerId: "b", config: { v: 1 }, expectedGen: 1 },
        ]);
        expect(out).toEqual([
          { automationType: "t", workerId: "c", gen: 1 },
          { automationType: "t", workerId: "a", gen: 1 },
          { automationType: "t", workerId: "b", gen: 2 },
        ]);
        expect(await raw.get("wkr:t:a:config")).toEqual(b('{"v": 1}'));
        const before = await snapshot(raw);
        await expect(
          be.workerSetConfigMany([
            { automationType: "t", workerId: "a", config: { v: 2 }, expectedGen: 1 },
            { automationType: "t", workerId: "b", config: { v: 2 }, expectedGen: 1 },
            { automationType: "t", workerId: "c", config: { v: 2 } },
          ]),
        ).rejects.toBeInstanceOf(StaleGenerationError);
        expect(await snapshot(raw)).toEqual(before);
        expect(await be.workerSetConfigMany([])).toEqual([]);
      });

      it("writes state as the hash Python writes", async () => {
        await be.workerSetState("t", "w", "RUNNING", null, 1700000000);
        expect(await raw.hgetall("wkr:t:w:state")).toEqual({ state: b("RUNNING"), last_seen: b("1700000000.0"), last_error: b("") });
        await be.workerSetState("t", "w", "ERROR", "boom ü", 1700000000.25);
        expect(await raw.hgetall("wkr:t:w:state")).toEqual({ state: b("ERROR"), last_seen: b("1700000000.25"), last_error: b("boom ü") });
        expect(await raw.type("wkrs:t")).toBe("none");
      });

      it("writes stats as Python JSON", async () => {
        await be.workerSetStats("t", "w", { done: 3, rate: 0.25, tags: ["a"] });
        expect(await raw.get("wkr:t:w:stats")).toEqual(b('{"done": 3, "rate": 0.25, "tags": ["a"]}'));
      });

      it("pushes stats frames into a capped history", async () => {
        await be.workerStatsPush("t", "w", 100.5, { n: 1 });
        expect(await raw.zrange("wkr:t:w:stats:history")).toEqual([{ member: b('{"n": 1}'), score: 100.5 }]);
        for (let i = 2; i <= 6; i++) await be.workerStatsPush("t", "w", 100 + i, { n: i }, { maxEntries: 3 });
        expect((await raw.zrange("wkr:t:w:stats:history")).map((e) => e.score)).toEqual([104, 105, 106]);
        const many = Array.from({ length: 245 }, (_, i) => be.workerStatsPush("t", "cap", i, { i }));
        await Promise.all(many);
        const hist = await raw.zrange("wkr:t:cap:stats:history");
        expect(hist.length).toBe(240);
        expect(hist[0]!.score).toBe(5);
      });

      it("reads history as Python does: oldest `limit` frames from `since`, corrupt ones skipped", async () => {
        for (let i = 1; i <= 5; i++) await be.workerStatsPush("t", "w", 10 * i, { n: i });
        await raw.zadd("wkr:t:w:stats:history", 25, "not json");
        await raw.zadd("wkr:t:w:stats:history", 26, NOT_UTF8);
        expect(await be.workerStatsHistory("t", "w")).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
        // the limit applies before parsing, as Python's ZRANGEBYSCORE ... LIMIT does
        expect(await be.workerStatsHistory("t", "w", { since: 20, limit: 3 })).toEqual([{ n: 2 }]);
        expect(await be.workerStatsHistory("t", "w", { since: 30 })).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }]);
        expect(await be.workerStatsHistory("t", "none")).toEqual([]);
      });

      it("reads frames: newest `limit` after `since`, oldest first, corrupt ones included", async () => {
        for (let i = 1; i <= 5; i++) await be.workerStatsPush("t", "w", 10 * i, { n: i });
        await raw.zadd("wkr:t:w:stats:history", 45, NOT_UTF8);
        const f = await be.workerStatsFrames("t", "w", { limit: 3 });
        expect(f).toEqual([
          { ts: 40, frame: { n: 4 }, raw: b('{"n": 4}') },
          { ts: 45, frame: null, raw: NOT_UTF8 },
          { ts: 50, frame: { n: 5 }, raw: b('{"n": 5}') },
        ]);
        expect((await be.workerStatsFrames("t", "w", { since: 30, limit: 10 })).map((x) => x.ts)).toEqual([40, 45, 50]);
        expect((await be.workerStatsFrames("t", "w", { since: 10, limit: 2 })).map((x) => x.ts)).toEqual([45, 50]);
      });

      it("gets a worker as stored", async () => {
        expect(await be.workerGet("t", "w")).toBeNull();
        await be.workerSetState("t", "w", "IDLE", null, 1);
        expect(await be.workerGet("t", "w")).toBeNull();
        await be.workerRegister("t", "w", { host: "x" });
        await be.workerSetConfig("t", "w", { slots: 2 });
        await be.workerSetState("t", "w", "RUNNING", "warn", 1700000000.5);
        await be.workerSetStats("t", "w", { done: 1 });
        await be.workerStatsPush("t", "w", 1, { a: 1 });
        await be.workerStatsPush("t", "w", 2, { a: 2 });
        expect(await be.workerGet("t", "w")).toEqual({
          automationType: "t",
          workerId: "w",
          registered: true,
          hardware: { host: "x" },
          config: { slots: 2 },
          configGen: 1,
          state: "RUNNING",
          lastSeen: 1700000000.5,
          lastError: "warn",
          stats: { done: 1 },
          historyLen: 2,
          corrupt: [],
        });
        await be.workerSetState("t", "w", "IDLE", null, 2);
        expect(await be.workerGet("t", "w")).toMatchObject({ state: "IDLE", lastSeen: 2, lastError: null });
      });

      it("reports what a fresh registration leaves unset as null, not corrupt", async () => {
        await be.workerRegister("t", "w", {});
        expect(await be.workerGet("t", "w")).toEqual({
          automationType: "t",
          workerId: "w",
          registered: true,
          hardware: {},
          config: {},
          configGen: 0,
          state: null,
          lastSeen: null,
          lastError: null,
          stats: null,
          historyLen: 0,
          corrupt: [],
        });
      });

      it("reports corrupt values as null with their field named, never throwing", async () => {
        await be.workerRegister("t", "w", {});
        await raw.set("wkr:t:w:hardware", "not json");
        await raw.set("wkr:t:w:config", NOT_UTF8);
        await raw.set("wkr:t:w:gen", "12x");
        await raw.set("wkr:t:w:stats", "[1, 2]");
        await raw.hset("wkr:t:w:state", "state", "SLEEPING");
        await raw.hset("wkr:t:w:state", "last_seen", "soon");
        await raw.hset("wkr:t:w:state", "last_error", NOT_UTF8);
        const w = await be.workerGet("t", "w");
        expect(w).toMatchObject({ hardware: null, config: null, configGen: null, stats: null, state: null, lastSeen: null, lastError: null });
        expect([...w!.corrupt].sort()).toEqual(["config", "config_gen", "hardware", "last_error", "last_seen", "state", "stats"]);
        const [many] = await be.workersGet([{ automationType: "t", workerId: "w" }]);
        expect(many).toEqual(w);
      });

      it("reports a worker key of the wrong Redis type as corrupt, never throwing", async () => {
        await be.workerRegister("t", "w", {});
        await raw.del("wkr:t:w:hardware");
        await raw.hset("wkr:t:w:hardware", "f", "v");
        await raw.rpush("wkr:t:w:stats", "x");
        await raw.set("wkr:t:w:stats:history", "nope");
        await raw.set("wkr:t:w:state", "IDLE");
        const w = await be.workerGet("t", "w");
        expect(w).toMatchObject({ hardware: null, stats: null, config: {}, configGen: 0, historyLen: 0, state: null, lastSeen: null });
        // the key exists but cannot be read as what Fleet writes there: corrupt, not absent
        expect([...w!.corrupt].sort()).toEqual(["hardware", "state", "stats"]);
        expect((await be.workersGet([{ automationType: "t", workerId: "w" }]))[0]).toEqual(w);
      });

      it("names missing state fields as corrupt and keeps the rest", async () => {
        await be.workerRegister("t", "w", { a: 1 });
        await raw.hset("wkr:t:w:state", "state", "ERROR");
        const w = await be.workerGet("t", "w");
        expect(w).toMatchObject({ hardware: { a: 1 }, state: "ERROR", lastSeen: null, lastError: null });
        expect([...w!.corrupt].sort()).toEqual(["last_error", "last_seen"]);
        await raw.hset("wkr:t:w:state", "last_seen", "1700000000");
        await raw.hset("wkr:t:w:state", "last_error", "");
        const w2 = await be.workerGet("t", "w");
        expect(w2).toMatchObject({ state: "ERROR", lastSeen: 1700000000, lastError: null, corrupt: [] });
      });

      it("lists workers of one type or of all types", async () => {
        await be.workerRegister("a", "1", {});
        await be.workerRegister("a", "x:y", {});
        await be.workerRegister("b", "1", {});
        await raw.sadd("wkrs:all", "junk-without-bar");
        const sortRefs = (r: WorkerRef[]) => r.map((x) => `${x.automationType}|${x.workerId}`).sort();
        expect(sortRefs(await be.workerList())).toEqual(["a|1", "a|x:y", "b|1"]);
        expect(sortRefs(await be.workerList("a"))).toEqual(["a|1", "a|x:y"]);
        expect(await be.workerList("none")).toEqual([]);
      });

      it("gets many workers in the order asked, unregistered ones included", async () => {
        const refs: WorkerRef[] = [];
        for (let i = 0; i < 500; i++) refs.push({ automationType: i % 2 ? "odd" : "even", workerId: `w${i}` });
        await Promise.all(refs.map((r, i) => be.workerRegister(r.automationType, r.workerId, { i })));
        await Promise.all(refs.map((r, i) => be.workerSetState(r.automationType, r.workerId, "IDLE", null, 1000 + i)));
        const shuffled = [...refs].sort((x, y) => (x.workerId.length % 3) - (y.workerId.length % 3) || y.workerId.localeCompare(x.workerId));
        shuffled.splice(250, 0, { automationType: "even", workerId: "ghost" });
        const got = await be.workersGet(shuffled);
        expect(got.map((w) => `${w.automationType}|${w.workerId}`)).toEqual(shuffled.map((r) => `${r.automationType}|${r.workerId}`));
        for (const w of got) {
          if (w.workerId === "ghost") continue;
          const i = Number(w.workerId.slice(1));
          expect(w).toMatchObject({ registered: true, hardware: { i }, lastSeen: 1000 + i, state: "IDLE", corrupt: [] });
        }
        expect(got[250]).toEqual({
          automationType: "even",
          workerId: "ghost",
          registered: false,
          hardware: null,
          config: null,
          configGen: null,
          state: null,
          lastSeen: null,
          lastError: null,
          stats: null,
          historyLen: 0,
          corrupt: [],
        });
        expect(await be.workersGet([])).toEqual([]);
      });

      it("indexes workers: membership, state, last_seen and hostname, in the order asked", async () => {
        await be.workerRegister("b", "w2", { hostname: "host-two", cpus: 2 });
        await be.workerRegister("a", "w1", { hostname: "host-ü", extra: [1] });
        await be.workerSetState("a", "w1", "RUNNING", "boom", 1700000000.5);
        await be.workerSetState("b", "w2", "IDLE", null, 3);
        await be.workerSetConfig("a", "w1", { slots: 9 });
        await be.workerSetStats("a", "w1", { done: 1 });
        const refs: WorkerRef[] = [
          { automationType: "b", workerId: "w2" },
          { automationType: "a", workerId: "ghost" },
          { automationType: "a", workerId: "w1" },
        ];
        expect(await be.workersIndex(refs, { hostname: true })).toEqual([
          { automationType: "b", workerId: "w2", registered: true, state: "IDLE", lastSeen: 3, hostname: "host-two", corrupt: [] },
          { automationType: "a", workerId: "ghost", registered: false, state: null, lastSeen: null, hostname: null, corrupt: [] },
          { automationType: "a", workerId: "w1", registered: true, state: "RUNNING", lastSeen: 1700000000.5, hostname: "host-ü", corrupt: [] },
        ]);
        // without hostname: the hardware is not read at all
        expect((await be.workersIndex(refs)).map((e) => e.hostname)).toEqual([null, null, null]);
        expect(await be.workersIndex([])).toEqual([]);
        expect(await be.workersIndex([], { hostname: true })).toEqual([]);
      });

      it("reads workers whose type and id are not ASCII (multi-byte and astral characters)", async () => {
        const refs: WorkerRef[] = [
          { automationType: "tÿpe-ü", workerId: "wörker-😀" },
          { automationType: "tÿpe-ü", workerId: "plain" },
          { automationType: "ascii", workerId: "日本語:id" },
        ];
        for (const [i, r] of refs.entries()) {
          await be.workerRegister(r.automationType, r.workerId, { hostname: `h-${r.workerId}` });
          await be.workerSetState(r.automationType, r.workerId, "IDLE", null, 10 + i);
          await be.workerSetStats(r.automationType, r.workerId, { i });
        }
        expect(await raw.get("wkr:tÿpe-ü:wörker-😀:stats")).toEqual(b('{"i": 0}'));
        const got = await be.workersGet(refs);
        expect(got.map((w) => [w.workerId, w.registered, w.lastSeen, w.stats, w.hardware?.hostname])).toEqual(
          refs.map((r, i) => [r.workerId, true, 10 + i, { i }, `h-${r.workerId}`]),
        );
        const index = await be.workersIndex(refs, { hostname: true });
        expect(index.map((w) => [w.workerId, w.registered, w.state, w.lastSeen, w.hostname])).toEqual(refs.map((r, i) => [r.workerId, true, "IDLE", 10 + i, `h-${r.workerId}`]));
      });

      it("indexes corrupt and wrong-typed workers exactly as workersGet reads them", async () => {
        const cases: Array<[string, (id: string) => Promise<void>]> = [
          ["fine", async () => undefined],
          ["bad-state", async (id) => raw.hset(`wkr:t:${id}:state`, "state", "SLEEPING")],
          ["bad-seen", async (id) => raw.hset(`wkr:t:${id}:state`, "last_seen", "soon")],
          ["not-utf8-seen", async (id) => raw.hset(`wkr:t:${id}:state`, "last_seen", NOT_UTF8)],
          [
            "only-error",
            async (id) => {
              await raw.del(`wkr:t:${id}:state`);
              await raw.hset(`wkr:t:${id}:state`, "last_error", "x");
            },
          ],
          [
            "no-error-field",
            async (id) => {
              await raw.del(`wkr:t:${id}:state`);
              await raw.hset(`wkr:t:${id}:state`, "state", "ERROR");
              await raw.hset(`wkr:t:${id}:state`, "last_seen", "7");
            },
          ],
          [
            "state-string",
            async (id) => {
              await raw.del(`wkr:t:${id}:state`);
              await raw.set(`wkr:t:${id}:state`, "IDLE");
            },
          ],
          [
            "hardware-hash",
            async (id) => {
              await raw.del(`wkr:t:${id}:hardware`);
              await raw.hset(`wkr:t:${id}:hardware`, "hostname", "h");
            },
          ],
          ["hardware-not-json", async (id) => raw.set(`wkr:t:${id}:hardware`, '{"hostname": "h"')],
          ["hardware-not-utf8", async (id) => raw.set(`wkr:t:${id}:hardware`, Buffer.concat([b('{"hostname": "'), NOT_UTF8, b('"}')]))],
          ["hardware-array", async (id) => raw.set(`wkr:t:${id}:hardware`, '[{"hostname": "h"}]')],
          ["hostname-number", async (id) => raw.set(`wkr:t:${id}:hardware`, '{"hostname": 7}')],
          ["hostname-escaped", async (id) => raw.set(`wkr:t:${id}:hardware`, '{"host\\u006eame": "caf\\u00e9", "hostname ": 1}')],
          ["hardware-bom", async (id) => raw.set(`wkr:t:${id}:hardware`, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b('{"hostname": "bom"}')]))],
          ["hardware-absent", async (id) => raw.del(`wkr:t:${id}:hardware`)],
          [
            "unlisted",
            async (id) => {
              await be.workerRemove("t", id);
              await be.workerSetState("t", id, "IDLE", null, 5);
            },
          ],
        ];
        for (const [id, spoil] of cases) {
          await be.workerRegister("t", id, { hostname: `host-${id}` });
          await be.workerSetState("t", id, "RUNNING", null, 100);
          await spoil(id);
        }
        const refs = cases.map(([id]) => ({ automationType: "t", workerId: id }));
        const records = await be.workersGet(refs);
        for (const hostname of [false, true]) {
          const index = await be.workersIndex(refs, { hostname });
          const expected = records.map((r) => {
            const h = r.hardware?.hostname;
            return {
              automationType: r.automationType,
              workerId: r.workerId,
              registered: r.registered,
              state: r.state,
              lastSeen: r.lastSeen,
              hostname: hostname && typeof h === "string" ? h : null,
              corrupt: r.corrupt.filter((f) => f === "state" || f === "last_seen" || (hostname && f === "hardware")).sort(),
            };
          });
          expect(index.map((e) => ({ ...e, corrupt: [...e.corrupt].sort() }))).toEqual(expected);
        }
        // spot checks, so that the comparison above cannot pass by both reads being wrong alike
        const byId = new Map((await be.workersIndex(refs, { hostname: true })).map((e) => [e.workerId, e]));
        expect(byId.get("fine")).toMatchObject({ state: "RUNNING", lastSeen: 100, hostname: "host-fine", corrupt: [] });
        expect(byId.get("bad-state")).toMatchObject({ state: null, lastSeen: 100, corrupt: ["state"] });
        expect(byId.get("not-utf8-seen")).toMatchObject({ state: "RUNNING", lastSeen: null, corrupt: ["last_seen"] });
        expect(byId.get("only-error")!.corrupt.sort()).toEqual(["last_seen", "state"]);
        expect(byId.get("no-error-field")).toMatchObject({ state: "ERROR", lastSeen: 7, corrupt: [] });
        expect(byId.get("state-string")).toMatchObject({ state: null, lastSeen: null, corrupt: ["state"] });
        expect(byId.get("hardware-hash")).toMatchObject({ hostname: null, corrupt: ["hardware"] });
        expect(byId.get("hardware-not-utf8")).toMatchObject({ hostname: null, corrupt: ["hardware"] });
        expect(byId.get("hostname-number")).toMatchObject({ hostname: null, corrupt: [] });
        expect(byId.get("hostname-escaped")).toMatchObject({ hostname: "café", corrupt: [] });
        expect(byId.get("hardware-bom")).toMatchObject({ hostname: "bom", corrupt: [] });
        expect(byId.get("hardware-absent")).toMatchObject({ hostname: null, corrupt: [] });
        expect(byId.get("unlisted")).toMatchObject({ registered: false, state: "IDLE", lastSeen: 5, hostname: null });
      });

      it("removes every key of one worker, never a worker whose id extends it", async () => {
        for (const id of ["a", "a:b", "a*", "a[1]", "ab"]) {
          await be.workerRegister("t", id, { id });
          await be.workerSetState("t", id, "IDLE", null, 1);
          await be.workerSetStats("t", id, {});
          await be.workerStatsPush("t", id, 1, {});
        }
        const others = (await snapshot(raw)) as Record<string, { value: unknown }>;
        expect(await be.workerRemove("t", "a")).toBe(true);
        const after = (await snapshot(raw)) as Record<string, { value: unknown }>;
        expect(Object.keys(after).filter((k) => k.startsWith("wkr:t:a:") && !k.startsWith("wkr:t:a:b:"))).toEqual([]);
        for (const [k, v] of Object.entries(others)) {
          if (k.startsWith("wkr:t:a:") && !k.startsWith("wkr:t:a:b:")) continue;
          if (k.startsWith("wkrs:")) continue;
          expect(after[k], k).toEqual(v);
        }
        expect(await raw.smembers("wkrs:t")).toEqual(["a*", "a:b", "a[1]", "ab"]);
        expect(await raw.smembers("wkrs:all")).toEqual(["t|a*", "t|a:b", "t|a[1]", "t|ab"]);
        expect(await be.workerGet("t", "a")).toBeNull();
        expect((await be.workerGet("t", "a:b"))?.hardware).toEqual({ id: "a:b" });
        expect(await be.workerRemove("t", "a")).toBe(false);
        expect(await be.workerRemove("t", "a*")).toBe(true);
        expect((await be.workerGet("t", "a[1]"))?.historyLen).toBe(1);
      });

      it("removes what a half-registered worker left behind", async () => {
        await be.workerSetState("t", "half", "IDLE", null, 1);
        await be.workerStatsPush("t", "half", 1, {});
        await raw.sadd("wkrs:all", "t|half");
        await raw.sadd("wkrs:all", "t|other");
        expect(await be.workerRemove("t", "half")).toBe(true);
        expect(await raw.keys()).toEqual(["wkrs:all"]);
        expect(await raw.smembers("wkrs:all")).toEqual(["t|other"]);
        expect(await be.workerRemove("t", "half")).toBe(false);
      });
    });

    describe("catalog", () => {
      it("sets, gets, lists and deletes documents", async () => {
        expect(await be.catalogGet("t")).toBeNull();
        await be.catalogSet("t", '{"config": {}}');
        await be.catalogSet("u:v", NOT_UTF8);
        expect(await raw.hgetall("fleet:catalog")).toEqual({ t: b('{"config": {}}'), "u:v": NOT_UTF8 });
        expect(await be.catalogGet("t")).toEqual(b('{"config": {}}'));
        const all = await be.catalogAll();
        expect([...all.entries()].sort(([x], [y]) => x.localeCompare(y))).toEqual([
          ["t", b('{"config": {}}')],
          ["u:v", NOT_UTF8],
        ]);
        expect(await be.catalogDelete("t")).toBe(true);
        expect(await be.catalogDelete("t")).toBe(false);
        expect([...(await be.catalogAll()).keys()]).toEqual(["u:v"]);
      });
    });

    // Where the two implementations used to differ; each compared with backend.py.
    describe("both implementations agree (issue 13)", () => {
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

    describe("audit", () => {
      it("keeps the newest entries first, capped", async () => {
        for (let i = 0; i < 5; i++) await be.auditAppend(`e${i}`, 3);
        expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["e4", "e3", "e2"]);
        expect(await be.auditRange(0, 10)).toEqual({ total: 3, items: [b("e4"), b("e3"), b("e2")] });
        expect(await be.auditRange(1, 1)).toEqual({ total: 3, items: [b("e3")] });
        expect(await be.auditRange(5, 1)).toEqual({ total: 3, items: [] });
      });

      it("replaces an entry in place, removes it, or appends the replacement when it is gone", async () => {
        for (const e of ["a", "pending-1", "b"]) await be.auditAppend(e, 10);
        expect(await be.auditReplace("pending-1", "done-1", 10)).toBe(true);
        expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["b", "done-1", "a"]);
        expect(await be.auditReplace("done-1", null, 10)).toBe(true);
        expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["b", "a"]);
        // trimmed away meanwhile: the outcome is appended, never lost; a removal of it is a no-op
        expect(await be.auditReplace("gone", "late", 2)).toBe(false);
        expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["late", "b"]);
        expect(await be.auditReplace("gone", null, 2)).toBe(false);
        expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["late", "b"]);
      });

      it("counts refusals per actor and window: records the first ones, then one marker, then nothing; the next window reports the rest", async () => {
        const t0 = 1_700_000_000_000;
        const decisions = [];
        for (let i = 0; i < 6; i++) decisions.push((await be.auditRefusalSlot("addr:192.0.2.1", 3, 60, t0 + i)).decision);
        expect(decisions).toEqual(["record", "record", "record", "marker", "suppress", "suppress"]);
        // another actor has its own budget
        expect((await be.auditRefusalSlot("user:ada", 3, 60, t0 + 10)).decision).toBe("record");
        // a minute later: recorded again, with the count of those not listed (marker included)
        expect(await be.auditRefusalSlot("addr:192.0.2.1", 3, 60, t0 + 60_000)).toEqual({ decision: "record", suppressedBefore: 3, windowStartMs: t0 });
        expect(await be.auditRefusalSlot("addr:192.0.2.1", 3, 60, t0 + 60_001)).toEqual({ decision: "record", suppressedBefore: 0, windowStartMs: t0 + 60_000 });
        const ttl = await raw.pttl("fleet:console:audit:refusals:addr:192.0.2.1");
        expect(ttl).toBeGreaterThan(3600_000);
      });
    });

    describe("worker error history", () => {
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

    describe("console sessions", () => {
      it("live until deleted or expired, under their own prefix, with a TTL", async () => {
        await be.sessionPut("s1", "ada", '{"user": "ada"}', 60);
        expect((await be.sessionGet("s1"))?.toString()).toBe('{"user": "ada"}');
        const ttl = await raw.pttl("fleet:console:session:s1");
        expect(ttl).toBeGreaterThan(55_000);
        expect(ttl).toBeLessThanOrEqual(60_000);
        expect(await raw.type("fleet:console:user-sessions:ada")).toBe("zset");
        expect(await be.sessionDelete("s1")).toBe(true);
        expect(await be.sessionGet("s1")).toBeNull();
        expect(await be.sessionDelete("s1")).toBe(false);
        await be.sessionPut("short", "ada", "x", 0.05);
        const until = Date.now() + 3000;
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
  });
}
