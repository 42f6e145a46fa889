import { describe, expect, it } from "vitest";

import * as counters from "@/app/api/v1/counters/route";
import * as counter from "@/app/api/v1/counters/[name]/route";
import * as kv from "@/app/api/v1/kv/route";
import * as kvNs from "@/app/api/v1/kv/[ns]/route";
import * as kvKey from "@/app/api/v1/kv/[ns]/[key]/route";
import * as locks from "@/app/api/v1/locks/route";
import * as lock from "@/app/api/v1/locks/[name]/route";
import * as pools from "@/app/api/v1/pools/route";
import * as pool from "@/app/api/v1/pools/[name]/route";
import * as poolItem from "@/app/api/v1/pools/[name]/items/[id]/route";
import * as poolRelease from "@/app/api/v1/pools/[name]/items/[id]/release/route";
import * as streams from "@/app/api/v1/streams/route";
import * as stream from "@/app/api/v1/streams/[name]/route";

import { now, oversizedBody, published, type Harness } from "./harness";

export function poolsSuite(h: Harness): void {
  async function seed(): Promise<void> {
    const b = h.backend;
    await b.poolPut("proxies", "a", "payload-a", { region: "eu" });
    await b.poolPut("proxies", "b", Buffer.alloc(5000, 0x41), { region: "us" }, 3600);
    await b.poolPut("proxies:eu", "x", "other pool", {});
    await b.poolClaimAny("proxies", { region: "eu" }, 60);
  }

  describe("pools", () => {
    it("lists pools and their items with claims and payload previews", async () => {
      await seed();
      await h.plant.hset("fleet:pool:proxies", "junk", "not an item");
      const list = await h.call(pools.GET, "GET", "/pools");
      expect(list.status).toBe(200);
      expect(list.json.pools.map((p: { name: string }) => p.name)).toEqual(["proxies", "proxies:eu"]);
      expect(list.json.pools[0]).toEqual({ name: "proxies", size: 3, live: 2, expired: 0, claimed: 1, free: 1 });
      const res = await h.call(pool.GET, "GET", "/pools/proxies");
      expect(res.status).toBe(200);
      expect(res.json.total).toBe(3);
      const [a, b, junk] = res.json.items;
      expect(a).toMatchObject({ id: "a", tags: { region: "eu" }, expires_at: null, payload: { text: "payload-a", bytes: 9, truncated: false } });
      expect(a.in_use_until).toBeGreaterThan(now());
      expect(b.in_use_until).toBeNull();
      expect(b.expires_at).toBeGreaterThan(now());
      expect(b.payload).toMatchObject({ bytes: 5000, truncated: true, text: "A".repeat(4096) });
      expect(junk).toMatchObject({ id: "junk", payload: null, tags: null });
      expect(junk.corrupt.length).toBeGreaterThan(0);
    });

    it("releases a claim, deletes an item and its claim, deletes a pool and every claim", async () => {
      await seed();
      expect((await h.call(poolRelease.POST, "POST", "/pools/proxies/items/a/release")).json).toEqual({ released: true });
      expect((await h.call(poolRelease.POST, "POST", "/pools/proxies/items/a/release")).json).toEqual({ released: false });
      await h.backend.poolClaimAny("proxies", { region: "us" }, 60);
      expect((await h.call(poolItem.DELETE, "DELETE", "/pools/proxies/items/b")).json).toEqual({ deleted: true });
      expect(await h.plant.exists("fleet:pool:proxies:claim:b")).toBe(false);
      await h.backend.poolClaimAny("proxies", {}, 60);
      const del = await h.call(pool.DELETE, "DELETE", "/pools/proxies");
      expect(del.status).toBe(200);
      expect(del.json).toEqual({ deleted: true, items: 1 });
      expect(await h.plant.exists("fleet:pool:proxies")).toBe(false);
      expect(await h.plant.exists("fleet:pool:proxies:claim:a")).toBe(false);
      // pool "proxies:eu" is another pool, untouched
      expect((await h.call(pool.GET, "GET", "/pools/proxies%3Aeu")).json.total).toBe(1);
    });

    it("answers 404 for unknown pools and items, changing nothing; 200 empty for a known automation", async () => {
      await seed();
      await h.plant.set("fleet:pool:proxies:claim:ghost", "1");
      await h.unchanged(async () => {
        expect((await h.call(pool.GET, "GET", "/pools/none")).status).toBe(404);
        expect((await h.call(pool.DELETE, "DELETE", "/pools/none")).status).toBe(404);
        expect((await h.call(poolRelease.POST, "POST", "/pools/proxies/items/ghost/release")).status).toBe(404);
        expect((await h.call(poolItem.DELETE, "DELETE", "/pools/proxies/items/ghost")).status).toBe(404);
        expect((await h.call(pools.GET, "GET", "/pools?limit=-5")).status).toBe(400);
      });
      await h.backend.workerRegister("proxybot", "w", {});
      expect((await h.call(pool.GET, "GET", "/pools/proxybot")).json).toEqual({ total: 0, items: [] });
    });
  });
}

export function streamsSuite(h: Harness): void {
  describe("streams", () => {
    it("lists streams and reads entries newest or oldest first without popping", async () => {
      const opts = (score: number) => ({ score, maxLen: 100, ttlSeconds: 3600 });
      const base = Math.floor(now());
      for (let i = 0; i < 5; i++) await h.backend.streamPush("scraper", `{"n": ${i}}`, opts(base + i));
      await h.backend.streamPush("raw", Buffer.from([0xc3, 0x28]), opts(base));
      const list = await h.call(streams.GET, "GET", "/streams");
      expect(list.json).toEqual({
        total: 2,
        streams: [
          { name: "raw", length: 1, oldest: base, newest: base },
          { name: "scraper", length: 5, oldest: base, newest: base + 4 },
        ],
      });
      const newest = await h.call(stream.GET, "GET", "/streams/scraper?limit=2");
      expect(newest.json.length).toBe(5);
      expect(newest.json.entries.map((e: { envelope: { json: { n: number } } }) => e.envelope.json.n)).toEqual([4, 3]);
      const oldest = await h.call(stream.GET, "GET", "/streams/scraper?limit=2&order=oldest");
      expect(oldest.json.entries.map((e: { score: number }) => e.score)).toEqual([base, base + 1]);
      expect(await h.backend.streamLength("scraper")).toBe(5);
      const raw = await h.call(stream.GET, "GET", "/streams/raw");
      expect(raw.json.entries[0].envelope).toEqual({ json: null, text: null, base64: "wyg=", bytes: 2, truncated: false });
    });

    it("answers 404 for an unknown stream and 400 for a bad order or limit", async () => {
      expect((await h.call(stream.GET, "GET", "/streams/none")).status).toBe(404);
      await h.backend.catalogSet("known", "{}");
      expect((await h.call(stream.GET, "GET", "/streams/known")).json).toEqual({ length: 0, entries: [] });
      expect((await h.call(stream.GET, "GET", "/streams/known?order=sideways")).status).toBe(400);
      expect((await h.call(stream.GET, "GET", "/streams/known?limit=100000")).status).toBe(400);
    });
  });
}

export function locksCountersSuite(h: Harness): void {
  describe("locks", () => {
    it("lists locks with their TTL and force-releases one", async () => {
      await h.backend.lockAcquire("nightly", 60, 0);
      await h.backend.lockAcquire("nightly:eu", 60, 0);
      const list = await h.call(locks.GET, "GET", "/locks");
      expect(list.json.total).toBe(2);
      expect(list.json.locks[0].name).toBe("nightly");
      expect(list.json.locks[0].ttl_ms).toBeGreaterThan(50_000);
      expect((await h.call(lock.DELETE, "DELETE", "/locks/nightly")).json).toEqual({ deleted: true });
      expect(await h.plant.exists("fleet:lock:nightly")).toBe(false);
      expect(await h.plant.exists("fleet:lock:nightly:eu")).toBe(true);
      await h.unchanged(async () => {
        expect((await h.call(lock.DELETE, "DELETE", "/locks/nightly")).status).toBe(404);
      });
    });
  });

  describe("counters", () => {
    it("lists, sets and deletes counters; a corrupt one is null with its raw text", async () => {
      await h.backend.counterIncr("hits", 3);
      await h.plant.set("fleet:counter:broken", "12abc");
      await h.discovered();
      const list = await h.call(counters.GET, "GET", "/counters");
      expect(list.json).toEqual({
        total: 2,
        counters: [
          { name: "broken", value: null, raw: "12abc", corrupt: ["value"] },
          { name: "hits", value: 3 },
        ],
      });
      const put = await h.call(counter.PUT, "PUT", "/counters/hits", { body: { value: -42 } });
      expect(put.status).toBe(200);
      expect(put.json).toEqual({ name: "hits", value: -42 });
      expect((await h.plant.get("fleet:counter:hits"))!.toString()).toBe("-42");
      expect((await h.call(counter.DELETE, "DELETE", "/counters/hits")).json).toEqual({ deleted: true });
      expect(await h.plant.exists("fleet:counter:hits")).toBe(false);
    });

    it("rejects bad values (422), malformed JSON (400), big bodies (413); 404 deleting nothing", async () => {
      await h.backend.counterIncr("hits", 3);
      await h.unchanged(async () => {
        const bad = await h.call(counter.PUT, "PUT", "/counters/hits", { body: { value: 1.5, extra: 1 } });
        expect(bad.status).toBe(422);
        expect(bad.json.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["/extra", "/value"]);
        expect((await h.call(counter.PUT, "PUT", "/counters/hits", { body: { value: "7" } })).status).toBe(422);
        expect((await h.call(counter.PUT, "PUT", "/counters/hits", { rawBody: "value=7" })).status).toBe(400);
        expect((await h.call(counter.PUT, "PUT", "/counters/hits", { rawBody: oversizedBody() })).status).toBe(413);
        expect((await h.call(counter.DELETE, "DELETE", "/counters/none")).status).toBe(404);
      });
    });
  });
}

export function kvSuite(h: Harness): void {
  describe("kv", () => {
    it("stores a value as Python's JSON text, with an optional TTL, and reads it back", async () => {
      const put = await h.call(kvKey.PUT, "PUT", "/kv/settings/site%3Amain", { body: { value: { name: "Zoë", n: [1, 2] }, ttl_seconds: 120 } });
      expect(put.status).toBe(200);
      expect(put.json).toMatchObject({ value: { json: { name: "Zoë", n: [1, 2] }, truncated: false }, ttl_ms: 120_000 });
      expect((await h.plant.get("fleet:kv:settings:site:main"))!.toString()).toBe('{"name": "Zo\\u00eb", "n": [1, 2]}');
      await h.call(kvKey.PUT, "PUT", "/kv/settings/motd", { body: { value: "hello" } });
      expect((await h.plant.get("fleet:kv:settings:motd"))!.toString()).toBe('"hello"');
      const get = await h.call(kvKey.GET, "GET", "/kv/settings/site:main");
      expect(get.status).toBe(200);
      expect(get.json.value.json).toEqual({ name: "Zoë", n: [1, 2] });
      expect(get.json.ttl_ms).toBeGreaterThan(100_000);
      const motd = await h.call(kvKey.GET, "GET", "/kv/settings/motd");
      expect(motd.json).toEqual({ value: { json: "hello", text: '"hello"', base64: Buffer.from('"hello"').toString("base64"), bytes: 7, truncated: false }, ttl_ms: null });
    });

    it("announces its writes on event:fleet.admin", async () => {
      await h.backend.kvSet("a", "k1", "1");
      const events = await published(h, async () => {
        await h.call(kvKey.PUT, "PUT", "/kv/a/k2", { body: { value: 2 } });
        await h.call(kvKey.DELETE, "DELETE", "/kv/a/k1");
        await h.call(kvKey.DELETE, "DELETE", "/kv/a/none");
      });
      expect(events).toEqual([
        { topic: "fleet.admin", payload: { action: "kv.set", ns: "a", key: "k2" } },
        { topic: "fleet.admin", payload: { action: "kv.delete", ns: "a", key: "k1" } },
      ]);
    });

    it("lists namespaces and keys; raw non-UTF-8 values read as base64", async () => {
      await h.backend.kvSet("a", "k1", "1");
      await h.backend.kvSet("a", "k2:sub", Buffer.from([0xff]));
      await h.backend.kvSet("b", "x", "2", 60);
      expect((await h.call(kv.GET, "GET", "/kv")).json).toEqual({
        total: 2,
        namespaces: [
          { ns: "a", keys: 2 },
          { ns: "b", keys: 1 },
        ],
      });
      const keys = await h.call(kvNs.GET, "GET", "/kv/a");
      expect(keys.json).toEqual({
        total: 2,
        keys: [
          { key: "k1", ttl_ms: null, bytes: 1 },
          { key: "k2:sub", ttl_ms: null, bytes: 1 },
        ],
      });
      const raw = await h.call(kvKey.GET, "GET", "/kv/a/k2%3Asub");
      expect(raw.json.value).toEqual({ json: null, text: null, base64: "/w==", bytes: 1, truncated: false });
    });

    it("deletes a key; 404 for unknown keys and namespaces; 400 for a namespace with ':'", async () => {
      await h.backend.kvSet("a", "k1", "1");
      expect((await h.call(kvKey.DELETE, "DELETE", "/kv/a/k1")).json).toEqual({ deleted: true });
      await h.backend.kvSet("a", "k2", "1");
      await h.unchanged(async () => {
        expect((await h.call(kvKey.DELETE, "DELETE", "/kv/a/k1")).status).toBe(404);
        expect((await h.call(kvKey.GET, "GET", "/kv/a/k1")).status).toBe(404);
        expect((await h.call(kvNs.GET, "GET", "/kv/none")).status).toBe(404);
        expect((await h.call(kvNs.GET, "GET", "/kv/a%3Ab")).status).toBe(400);
        expect((await h.call(kvKey.PUT, "PUT", "/kv/a%3Ab/c", { body: { value: 1 } })).status).toBe(400);
        expect((await h.call(kvKey.PUT, "PUT", "/kv/a/k3", { body: { ttl_seconds: 5 } })).status).toBe(422);
        const badTtl = await h.call(kvKey.PUT, "PUT", "/kv/a/k3", { body: { value: 1, ttl_seconds: -1 } });
        expect(badTtl.status).toBe(422);
        expect(badTtl.json.error.details[0].path).toBe("/ttl_seconds");
        expect((await h.call(kvKey.PUT, "PUT", "/kv/a/k3", { rawBody: "{" })).status).toBe(400);
        expect((await h.call(kvKey.PUT, "PUT", "/kv/a/k3", { rawBody: oversizedBody() })).status).toBe(413);
      });
      await h.backend.catalogSet("known", "{}");
      expect((await h.call(kvNs.GET, "GET", "/kv/known")).json).toEqual({ total: 0, keys: [] });
    });
  });
}
