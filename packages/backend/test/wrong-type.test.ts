// Keys of another Redis type than Fleet writes there (a string where a queue list, a pool
// hash or a stream zset belongs, a hash where a list belongs...), on both implementations:
// the console's reads list such a part as `corrupt` and read it as empty, without failing
// the other parts or the other queues, pools and streams of the same call; an operation
// that must use the key fails with CorruptDataError naming it.
//
// Redis: this file's own database (./support/redis-dbs).
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CorruptDataError } from "../src/errors";
import { keys } from "../src/keys";
import { createMemoryBackend, type MemoryBackend } from "../src/memory";
import { pyJsonBytes } from "../src/pyjson";
import { createRedisBackend } from "../src/redis";
import type { Backend } from "../src/types";
import { testRedisUrl } from "./support/redis-dbs";

const url = testRedisUrl("packages/backend/test/wrong-type.test.ts");

type Wrong = "string" | "hash" | "list" | "zset";
interface Planter {
  plant(key: string, type: Wrong): Promise<void>;
}

const name = (what: string) => `wt-${what}-${randomBytes(4).toString("hex")}`;
const body = (id: string) => pyJsonBytes({ id, payload: {} });
const now = () => Date.now() / 1000;

/** A queue with one task in every part: pending (each priority), processing, scheduled, dead. */
interface RawWrites {
  zadd: (k: string, s: number, m: string) => Promise<void>;
  hset: (k: string, f: string, v: string) => Promise<void>;
}

async function fullQueue(b: Backend, q: string, raw: RawWrites) {
  await b.queuePush(q, body("h"), { priority: "high" });
  await b.queuePush(q, body("n"));
  await b.queuePush(q, body("l"), { priority: "low" });
  await raw.zadd(keys.queueProcessing(q), now() + 600, "p");
  await raw.hset(keys.queueProcessingBody(q), "p", body("p").toString());
  await raw.zadd(keys.queueScheduled(q), now() + 600, body("s").toString());
  await b.queueDead(q, body("d"));
}

function suite(kind: string, make: () => { backend: Backend; plant: Planter["plant"]; raw: RawWrites; close: () => Promise<void> }) {
  describe(`wrong-typed keys: ${kind}`, () => {
    let b: Backend;
    let plant: Planter["plant"];
    let raw: RawWrites;
    let close: () => Promise<void>;
    beforeAll(() => {
      ({ backend: b, plant, raw, close } = make());
    });
    afterAll(async () => {
      await close();
    });

    const parts: Array<{ part: string; key: (q: string) => string; as: Wrong; zeroes: (d: Awaited<ReturnType<Backend["queueDepths"]>>[number]) => number[] }> = [
      { part: "high", key: keys.queueHigh, as: "string", zeroes: (d) => [d.pending.high] },
      { part: "normal", key: keys.queue, as: "hash", zeroes: (d) => [d.pending.normal] },
      { part: "low", key: keys.queueLow, as: "zset", zeroes: (d) => [d.pending.low] },
      { part: "processing", key: keys.queueProcessing, as: "list", zeroes: (d) => [d.processing, d.overdue] },
      { part: "scheduled", key: keys.queueScheduled, as: "string", zeroes: (d) => [d.scheduled, d.due] },
      { part: "dead", key: keys.queueDead, as: "string", zeroes: (d) => [d.dead] },
    ];

    for (const p of parts) {
      it(`a ${p.as} where the queue's ${p.part} belongs: that part reads as empty and corrupt, the rest and the other queues as they are`, async () => {
        const bad = name("q");
        const good = name("q");
        await fullQueue(b, bad, raw);
        await fullQueue(b, good, raw);
        await plant(p.key(bad), p.as);
        const [d, ok] = await b.queueDepths([bad, good], now());
        expect(d!.corrupt).toEqual([p.part]);
        expect(p.zeroes(d!)).toEqual(p.zeroes(d!).map(() => 0));
        const untouched = { high: 1, normal: 1, low: 1, processing: 1, scheduled: 1, dead: 1 };
        for (const [k, v] of Object.entries(untouched)) {
          if (k === p.part) continue;
          const got = k === "high" || k === "normal" || k === "low" ? d!.pending[k] : d![k as "processing" | "scheduled" | "dead"];
          expect(got, k).toBe(v);
        }
        expect(ok).toMatchObject({ pending: { total: 3 }, processing: 1, scheduled: 1, dead: 1 });
        expect(ok!.corrupt).toBeUndefined();

        const detail = await b.queueDetail(bad, 10, now());
        expect(detail.depths.corrupt).toEqual([p.part]);
        const listed = [...detail.pending.map((x) => x.priority), ...(detail.processing.length ? ["processing"] : []), ...(detail.scheduled.length ? ["scheduled"] : [])];
        const expected = ["high", "normal", "low", "processing", "scheduled"].filter((x) => x !== p.part);
        expect(listed).toEqual(expected);
      });
    }

    it("a string where :processing:body belongs: the reservations are listed with no body, and the part is named", async () => {
      const q = name("q");
      await fullQueue(b, q, raw);
      await plant(keys.queueProcessingBody(q), "string");
      const detail = await b.queueDetail(q, 10, now());
      expect(detail.processing).toEqual([expect.objectContaining({ id: "p", body: null })]);
      expect(detail.depths.corrupt).toEqual(["processing:body"]);
      expect(detail.pending).toHaveLength(3);
    });

    it("a string where a stream's zset belongs: an empty stream marked corrupt; the other stream of the call as it is", async () => {
      const bad = name("s");
      const good = name("s");
      await b.streamPush(good, "{}", { score: 5, maxLen: 10, ttlSeconds: 0 });
      await plant(keys.stream(bad), "string");
      expect(await b.streamSummaries([bad, good])).toEqual([
        { name: bad, length: 0, oldest: null, newest: null, corrupt: ["entries"] },
        { name: good, length: 1, oldest: 5, newest: 5 },
      ]);
      await plant(keys.stream(bad), "list");
      expect((await b.streamSummaries([bad]))[0]!.corrupt).toEqual(["entries"]);
    });

    it("a string where a pool's hash belongs: an empty pool marked corrupt; the other pool of the call as it is", async () => {
      const bad = name("p");
      const good = name("p");
      await b.poolPut(good, "a", "x", {});
      await plant(keys.pool(bad), "string");
      expect(await b.poolSummaries([bad, good])).toEqual([
        { name: bad, size: 0, live: 0, expired: 0, claimed: 0, free: 0, corrupt: ["items"] },
        { name: good, size: 1, live: 1, expired: 0, claimed: 0, free: 1 },
      ]);
    });

    it("an operation that must use the key fails with CorruptDataError naming it", async () => {
      const q = name("q");
      await plant(keys.queue(q), "hash");
      const err = await b.queuePush(q, body("x")).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CorruptDataError);
      expect((err as Error).message).toContain(keys.queue(q));
      const p = name("p");
      await plant(keys.pool(p), "string");
      const perr = await b.poolItems(p).catch((e: unknown) => e);
      expect(perr).toBeInstanceOf(CorruptDataError);
      expect((perr as Error).message).toContain(keys.pool(p));
    });
  });
}

suite("memory", () => {
  const backend = createMemoryBackend() as MemoryBackend;
  const r = backend.raw;
  return {
    backend,
    plant: async (key, type) => {
      r.del(key);
      if (type === "string") r.set(key, "not a collection");
      else if (type === "hash") r.hset(key, { f: "v" });
      else if (type === "list") r.rpush(key, "x");
      else r.zadd(key, 1, "m");
    },
    raw: { zadd: async (k, s, m) => void r.zadd(k, s, m), hset: async (k, f, v) => void r.hset(k, { [f]: v }) },
    close: () => backend.close(),
  };
});

suite("redis", () => {
  const backend = createRedisBackend(url);
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  return {
    backend,
    plant: async (key, type) => {
      await r.del(key);
      if (type === "string") await r.set(key, "not a collection");
      else if (type === "hash") await r.hset(key, "f", "v");
      else if (type === "list") await r.rpush(key, "x");
      else await r.zadd(key, 1, "m");
    },
    raw: { zadd: async (k, s, m) => void (await r.zadd(k, String(s), m)), hset: async (k, f, v) => void (await r.hset(k, f, v)) },
    close: async () => {
      await backend.close();
      r.disconnect();
    },
  };
});
