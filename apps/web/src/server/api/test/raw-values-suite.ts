// `?preview_bytes=` on every GET that answers raw values, and GET /pools/{name}/items/{id}
// (extensions of API.md that let the console show a truncated value in full).
import type { Backend } from "@fleet/backend";
import { describe, expect, it } from "vitest";

import * as kvKey from "@/app/api/v1/kv/[ns]/[key]/route";
import * as pool from "@/app/api/v1/pools/[name]/route";
import * as poolItem from "@/app/api/v1/pools/[name]/items/[id]/route";
import * as queue from "@/app/api/v1/queues/[name]/route";
import * as dead from "@/app/api/v1/queues/[name]/dead/route";
import * as stream from "@/app/api/v1/streams/[name]/route";

import { now, sha1, type Handler, type Harness, type Planter } from "./harness";

/** A JSON document of exactly `n` bytes whose last characters say where it ends. */
export function bigJson(n: number, tag: string): string {
  const head = `{"tag": "${tag}", "fill": "`;
  const tail = `", "end": "END-OF-${tag}"}`;
  const fill = n - head.length - tail.length;
  if (fill < 0) throw new Error("too small");
  return head + "x".repeat(fill) + tail;
}

const SIZE = 10_000;
const BIG = {
  pending: bigJson(SIZE, "pending"),
  processing: bigJson(SIZE, "processing"),
  scheduled: bigJson(SIZE, "scheduled"),
  dead: bigJson(SIZE, "dead"),
  pool: bigJson(SIZE, "pool"),
  stream: bigJson(SIZE, "stream"),
  kv: bigJson(SIZE, "kv"),
};

export async function seedRawValues(b: Backend, plant: Pick<Planter, "zadd" | "hset">): Promise<void> {
  await b.queuePush("jobs", BIG.pending);
  await plant.zadd("fleet:queue:jobs:processing", now() + 600, "p1");
  await plant.hset("fleet:queue:jobs:processing:body", "p1", BIG.processing);
  await plant.zadd("fleet:queue:jobs:scheduled", now() + 60, BIG.scheduled);
  await b.queueDead("jobs", BIG.dead);
  await b.poolPut("proxies", "big", BIG.pool, { region: "eu" });
  await b.streamPush("scraper", BIG.stream, { score: now(), maxLen: 100, ttlSeconds: 3600 });
  await b.kvSet("cfg", "big", BIG.kv, null);
}

/** Every raw value each GET answers, with the stored text it stands for. */
// `any`: answers are checked field by field
type Json = any;
export const RAW_GETS: Array<{ what: string; handler: Handler; path: string; pick: (json: Json) => Array<[Json, string]> }> = [
  {
    what: "queue items",
    handler: queue.GET,
    path: "/queues/jobs",
    pick: (j) => [
      [j.pending_items[0].body, BIG.pending],
      [j.processing_items[0].body, BIG.processing],
      [j.scheduled_items[0].body, BIG.scheduled],
    ],
  },
  { what: "dead letters", handler: dead.GET, path: "/queues/jobs/dead", pick: (j) => [[j.items[0].body, BIG.dead]] },
  { what: "pool items", handler: pool.GET, path: "/pools/proxies", pick: (j) => [[j.items[0].payload, BIG.pool]] },
  { what: "one pool item", handler: poolItem.GET, path: "/pools/proxies/items/big", pick: (j) => [[j.payload, BIG.pool]] },
  { what: "stream entries", handler: stream.GET, path: "/streams/scraper", pick: (j) => [[j.entries[0].envelope, BIG.stream]] },
  { what: "a kv value", handler: kvKey.GET, path: "/kv/cfg/big", pick: (j) => [[j.value, BIG.kv]] },
];

const withQuery = (path: string, q: string) => `${path}${path.includes("?") ? "&" : "?"}${q}`;

export function rawValuesSuite(h: Harness): void {
  describe("preview_bytes", () => {
    for (const g of RAW_GETS) {
      it(`${g.what}: cut at 4 KiB by default, as before`, async () => {
        await seedRawValues(h.backend, h.plant);
        const res = await h.call(g.handler, "GET", g.path);
        expect(res.status).toBe(200);
        for (const [v, stored] of g.pick(res.json)) {
          expect(v).toEqual({ json: null, text: stored.slice(0, 4096), base64: Buffer.from(stored.slice(0, 4096)).toString("base64"), bytes: SIZE, truncated: true });
        }
      });

      it(`${g.what}: whole when preview_bytes covers the value, cut where asked below it`, async () => {
        await seedRawValues(h.backend, h.plant);
        await h.unchanged(async () => {
          const whole = await h.call(g.handler, "GET", withQuery(g.path, "preview_bytes=20000"));
          expect(whole.status).toBe(200);
          for (const [v, stored] of g.pick(whole.json)) {
            expect(v.truncated).toBe(false);
            expect(v.bytes).toBe(SIZE);
            expect(v.text).toBe(stored);
            expect(Buffer.from(v.base64, "base64").toString()).toBe(stored);
            expect(v.json).toEqual(JSON.parse(stored));
          }
          const exact = await h.call(g.handler, "GET", withQuery(g.path, `preview_bytes=${SIZE}`));
          for (const [v] of g.pick(exact.json)) expect(v.truncated).toBe(false);
          const oneShort = await h.call(g.handler, "GET", withQuery(g.path, `preview_bytes=${SIZE - 1}`));
          for (const [v, stored] of g.pick(oneShort.json)) expect(v).toMatchObject({ truncated: true, text: stored.slice(0, SIZE - 1), json: null });
          const max = await h.call(g.handler, "GET", withQuery(g.path, "preview_bytes=16777216"));
          expect(max.status).toBe(200);
        });
      });

      it(`${g.what}: a bad preview_bytes is a 400 naming it`, async () => {
        await seedRawValues(h.backend, h.plant);
        for (const bad of ["0", "-1", "16777217", "1.5", "abc", "1e9"]) {
          const res = await h.call(g.handler, "GET", withQuery(g.path, `preview_bytes=${bad}`));
          expect(res.status, `preview_bytes=${bad}`).toBe(400);
          expect(res.json.error.code).toBe("bad_request");
          expect(res.json.error.message).toMatch(/preview_bytes/);
        }
      });
    }

    it("keeps limit, offset and order working beside it", async () => {
      await seedRawValues(h.backend, h.plant);
      await h.backend.queueDead("jobs", '{"id": "d2"}');
      const page = await h.call(dead.GET, "GET", "/queues/jobs/dead?offset=1&limit=1&preview_bytes=20000");
      expect(page.json.total).toBe(2);
      expect(page.json.items).toHaveLength(1);
      expect(page.json.items[0]).toMatchObject({ index: 1, task_id: "d2", ref: sha1('{"id": "d2"}') });
      const first = await h.call(dead.GET, "GET", "/queues/jobs/dead?offset=0&limit=1&preview_bytes=20000");
      expect(first.json.items[0]).toMatchObject({ index: 0, ref: sha1(BIG.dead), body: { truncated: false, bytes: SIZE } });
      expect((await h.call(queue.GET, "GET", "/queues/jobs?limit=1001&preview_bytes=10")).status).toBe(400);
      expect((await h.call(stream.GET, "GET", "/streams/scraper?order=sideways&preview_bytes=10")).status).toBe(400);
      const tiny = await h.call(stream.GET, "GET", "/streams/scraper?order=oldest&limit=1&preview_bytes=10");
      expect(tiny.json.entries[0].envelope).toMatchObject({ text: BIG.stream.slice(0, 10), truncated: true, bytes: SIZE });
    });

    it("never cuts inside a UTF-8 character, whatever preview_bytes says", async () => {
      await h.backend.kvSet("cfg", "utf8", `"${"é".repeat(100)}"`, null);
      // byte 1 is the quote; bytes 2-3 are the first é: a cut at 2 backs off to 1
      const res = await h.call(kvKey.GET, "GET", "/kv/cfg/utf8?preview_bytes=2");
      expect(res.json.value).toMatchObject({ text: '"', truncated: true, bytes: 202 });
      const whole = await h.call(kvKey.GET, "GET", "/kv/cfg/utf8?preview_bytes=202");
      expect(whole.json.value).toMatchObject({ json: "é".repeat(100), truncated: false });
    });
  });

  describe("GET /pools/{name}/items/{id}", () => {
    it("answers one item in the shape of the pool's list", async () => {
      await seedRawValues(h.backend, h.plant);
      await h.backend.poolPut("proxies", "small", "tiny", { region: "us" }, 3600);
      await h.backend.poolClaimAny("proxies", { region: "us" }, 60);
      const list = await h.call(pool.GET, "GET", "/pools/proxies");
      await h.unchanged(async () => {
        for (const listed of list.json.items) {
          const one = await h.call(poolItem.GET, "GET", `/pools/proxies/items/${encodeURIComponent(listed.id)}`);
          expect(one.status).toBe(200);
          // in_use_until is computed from the claim's remaining time at each read
          expect({ ...one.json, in_use_until: null }).toEqual({ ...listed, in_use_until: null });
          expect(one.json.in_use_until === null).toBe(listed.in_use_until === null);
        }
      });
      const small = await h.call(poolItem.GET, "GET", "/pools/proxies/items/small");
      expect(small.json).toMatchObject({ id: "small", tags: { region: "us" }, payload: { text: "tiny", bytes: 4, truncated: false } });
      expect(small.json.in_use_until).toBeGreaterThan(now());
      expect(small.json.expires_at).toBeGreaterThan(now());
      const whole = await h.call(poolItem.GET, "GET", "/pools/proxies/items/big?preview_bytes=65536");
      expect(whole.json.payload).toMatchObject({ text: BIG.pool, truncated: false, bytes: SIZE });
    });

    it("finds ids with ':', '/', '%' and non-ASCII", async () => {
      for (const id of ["a:b", "a/b", "50%", "ключ"]) await h.backend.poolPut("odd", id, `payload of ${id}`, {});
      for (const id of ["a:b", "a/b", "50%", "ключ"]) {
        const res = await h.call(poolItem.GET, "GET", `/pools/odd/items/${encodeURIComponent(id)}`);
        expect(res.status, id).toBe(200);
        expect(res.json).toMatchObject({ id, payload: { text: `payload of ${id}` } });
      }
    });

    it("answers 404 for an unknown item or pool, changing nothing", async () => {
      await seedRawValues(h.backend, h.plant);
      await h.unchanged(async () => {
        const item = await h.call(poolItem.GET, "GET", "/pools/proxies/items/ghost");
        expect(item.status).toBe(404);
        expect(item.json.error.code).toBe("not_found");
        expect(item.json.error.message).toContain("ghost");
        const p = await h.call(poolItem.GET, "GET", "/pools/nothing/items/big");
        expect(p.status).toBe(404);
        expect(p.json.error.message).toContain("nothing");
      });
      // a stray claim key does not make an item
      await h.plant.set("fleet:pool:proxies:claim:stray", "1");
      expect((await h.call(poolItem.GET, "GET", "/pools/proxies/items/stray")).status).toBe(404);
      expect((await h.call(poolItem.GET, "GET", "/pools/proxies/items/big?preview_bytes=0")).status).toBe(400);
    });

    it("answers corrupt items and items without a payload with payload null and corrupt listed", async () => {
      await seedRawValues(h.backend, h.plant);
      await h.plant.hset("fleet:pool:proxies", "junk", "not an item");
      await h.plant.hset("fleet:pool:proxies", "nop", '{"t": {"region": "eu"}, "x": null}');
      // base64 Python's b64decode refuses (a dangling quantum)
      await h.plant.hset("fleet:pool:proxies", "badb64", '{"p": "YWJjZA", "t": {}}');
      await h.plant.hset("fleet:pool:proxies", "bytes", Buffer.from([0xff, 0xfe, 0x00]));
      for (const id of ["junk", "nop", "badb64", "bytes"]) {
        const res = await h.call(poolItem.GET, "GET", `/pools/proxies/items/${id}`);
        expect(res.status, id).toBe(200);
        expect(res.json, id).toMatchObject({ id, payload: null, tags: null });
        expect(res.json.corrupt, id).toContain("payload");
      }
      // Python's b64decode skips what is not base64: "***" is an empty payload, "aGVs\nbG8=" is "hello"
      await h.plant.hset("fleet:pool:proxies", "stars", '{"p": "***", "t": {}}');
      await h.plant.hset("fleet:pool:proxies", "wrapped", '{"p": "aGVs\\nbG8=", "t": {}}');
      expect((await h.call(poolItem.GET, "GET", "/pools/proxies/items/stars")).json).toMatchObject({ payload: { text: "", bytes: 0 } });
      expect((await h.call(poolItem.GET, "GET", "/pools/proxies/items/wrapped")).json).toMatchObject({ payload: { text: "hello", bytes: 5 } });
      // a payload that is not UTF-8 is not corrupt: it is bytes
      await h.backend.poolPut("proxies", "bin", Buffer.from([0xc3, 0x28, 0x00]), {});
      const bin = await h.call(poolItem.GET, "GET", "/pools/proxies/items/bin");
      expect(bin.json).toMatchObject({ payload: { json: null, text: null, base64: Buffer.from([0xc3, 0x28, 0x00]).toString("base64"), bytes: 3 } });
      expect(bin.json).not.toHaveProperty("corrupt");
    });

    it("answers an expired item, marked expired", async () => {
      await h.plant.hset("fleet:pool:proxies", "old", JSON.stringify({ p: Buffer.from("gone soon").toString("base64"), t: {}, x: now() - 60 }));
      const res = await h.call(poolItem.GET, "GET", "/pools/proxies/items/old");
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ id: "old", expired: true, payload: { text: "gone soon" } });
    });
  });
}
