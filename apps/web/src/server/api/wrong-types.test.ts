// Keys of another Redis type than Fleet writes there, through the routes, on both backends
// (issue 18.6): a string, hash, list or zset where a queue list, a processing or scheduled
// zset, a pool hash, a stream zset or a kv string belongs. A queue, pool or stream answers
// 200 with the part named in `corrupt` (read as empty), beside its healthy neighbours in the
// same list; what cannot be read or changed at all answers 409 with the envelope, naming the
// key; nothing answers 500 or shows a stack, and a refused write changes nothing.
//
// Its Redis database is its own (@fleet/backend/testing/redis-dbs).
import { QUEUE_SUFFIXES, WORKER_FIELDS } from "@fleet/backend";
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { describe, expect, it } from "vitest";

import * as automation from "@/app/api/v1/automations/[type]/route";
import * as tasks from "@/app/api/v1/automations/[type]/tasks/route";
import * as counters from "@/app/api/v1/counters/route";
import * as kvNs from "@/app/api/v1/kv/[ns]/route";
import * as kvKey from "@/app/api/v1/kv/[ns]/[key]/route";
import * as pools from "@/app/api/v1/pools/route";
import * as pool from "@/app/api/v1/pools/[name]/route";
import * as poolItem from "@/app/api/v1/pools/[name]/items/[id]/route";
import * as queues from "@/app/api/v1/queues/route";
import * as queue from "@/app/api/v1/queues/[name]/route";
import * as dead from "@/app/api/v1/queues/[name]/dead/route";
import * as requeue from "@/app/api/v1/queues/[name]/dead/requeue/route";
import * as sweep from "@/app/api/v1/queues/[name]/sweep/route";
import * as streams from "@/app/api/v1/streams/route";
import * as stream from "@/app/api/v1/streams/[name]/route";

import { describeRoutes, now, sha1, type CallResult, type Harness } from "./test/harness";
import { endpoints, handlerOf } from "./test/route-walk";

type Wrong = "string" | "hash" | "list" | "zset" | "set";

async function plant(h: Harness, key: string, as: Wrong): Promise<void> {
  if (as === "string") await h.plant.set(key, "not what Fleet writes here");
  else if (as === "hash") await h.plant.hset(key, "f", "v");
  else if (as === "list") await h.plant.rpush(key, "x");
  else if (as === "zset") await h.plant.zadd(key, 1, "m");
  else await h.plant.sadd(key, "m");
}

const body = (id: string) => JSON.stringify({ id, payload: {} });

/** A queue with one task in every part but `skip`, which is planted with another type. */
async function queueWith(h: Harness, q: string, skip?: { part: string; as: Wrong }): Promise<void> {
  const keyOf: Record<string, string> = {
    high: `fleet:queue:${q}:high`,
    normal: `fleet:queue:${q}`,
    low: `fleet:queue:${q}:low`,
    processing: `fleet:queue:${q}:processing`,
    scheduled: `fleet:queue:${q}:scheduled`,
    dead: `fleet:queue:${q}:dead`,
  };
  const parts: Record<string, () => Promise<void>> = {
    high: () => h.backend.queuePush(q, body("h"), { priority: "high" }),
    normal: () => h.backend.queuePush(q, body("n")),
    low: () => h.backend.queuePush(q, body("l"), { priority: "low" }),
    processing: async () => {
      await h.plant.zadd(keyOf.processing!, now() - 5, "p");
      await h.plant.hset(`fleet:queue:${q}:processing:body`, "p", body("p"));
    },
    scheduled: () => h.plant.zadd(keyOf.scheduled!, now() + 600, body("s")),
    dead: () => h.backend.queueDead(q, body("d")),
  };
  for (const [part, seed] of Object.entries(parts)) {
    if (part === skip?.part) await plant(h, keyOf[part]!, skip.as);
    else await seed();
  }
}

/** An error answer a person can act on: the envelope (harness), no stack, the key named. */
function expectClear409(res: CallResult, key: string): void {
  expect(res.status, JSON.stringify(res.json)).toBe(409);
  expect(res.json.error.code).toBe("conflict");
  expect(res.json.error.message).toContain(key);
  expect(JSON.stringify(res.json)).not.toMatch(/\n\s+at |\.ts:\d+/);
}

const QUEUE_PARTS: Array<{ part: string; as: Wrong }> = [
  { part: "high", as: "string" },
  { part: "normal", as: "hash" },
  { part: "low", as: "zset" },
  { part: "processing", as: "list" },
  { part: "scheduled", as: "string" },
  { part: "dead", as: "string" },
];

function wrongTypesSuite(h: Harness): void {
  describe("queues", () => {
    for (const { part, as } of QUEUE_PARTS) {
      it(`a ${as} where the ${part} part belongs: 200, that part empty and corrupt, the rest and the other queue as they are`, async () => {
        await queueWith(h, "jobs", { part, as });
        await queueWith(h, "fine");
        await h.backend.workerRegister("jobs", "w1", {});

        const list = await h.call(queues.GET, "GET", "/queues");
        expect(list.status).toBe(200);
        const [fine, jobs] = list.json.queues;
        expect(jobs).toMatchObject({ name: "jobs", corrupt: [part] });
        expect(fine).toEqual({ name: "fine", pending: { high: 1, normal: 1, low: 1, total: 3 }, processing: 1, overdue: 1, scheduled: 1, due: 0, dead: 1 });

        const one = await h.call(queue.GET, "GET", "/queues/jobs");
        expect(one.status).toBe(200);
        expect(one.json.corrupt).toEqual([part]);
        const listed = [
          ...one.json.pending_items.map((i: { priority: string }) => i.priority),
          ...(one.json.processing_items.length > 0 ? ["processing"] : []),
          ...(one.json.scheduled_items.length > 0 ? ["scheduled"] : []),
        ];
        expect(listed).toEqual(["high", "normal", "low", "processing", "scheduled"].filter((p) => p !== part));

        const letters = await h.call(dead.GET, "GET", "/queues/jobs/dead");
        expect(letters.status).toBe(200);
        if (part === "dead") expect(letters.json).toEqual({ total: 0, items: [], corrupt: ["dead"] });
        else expect(letters.json.total).toBe(1);

        // the automation of that name carries the queue, marked
        const auto = await h.call(automation.GET, "GET", "/automations/jobs");
        expect(auto.status).toBe(200);
        expect(auto.json.queue).toMatchObject({ name: "jobs", corrupt: [part] });
      });
    }

    it("a queue whose only key has another type exists (200, corrupt), it is not a 404", async () => {
      await plant(h, "fleet:queue:lonely:dead", "hash");
      const one = await h.call(queue.GET, "GET", "/queues/lonely");
      expect(one.status).toBe(200);
      expect(one.json).toMatchObject({ name: "lonely", dead: 0, corrupt: ["dead"] });
    });

    it("writes that must use the wrong-typed key answer 409 naming it and change nothing", async () => {
      await queueWith(h, "jobs", { part: "dead", as: "string" });
      await h.backend.workerRegister("jobs", "w1", {});
      await h.unchanged(async () => {
        expectClear409(await h.call(requeue.POST, "POST", "/queues/jobs/dead/requeue", { body: { all: true } }), "fleet:queue:jobs:dead");
        expectClear409(await h.call(requeue.POST, "POST", "/queues/jobs/dead/requeue", { body: { refs: [sha1(body("d"))] } }), "fleet:queue:jobs:dead");
      });
      await h.plant.set("fleet:queue:other", "a string where the normal list belongs");
      await h.backend.workerRegister("other", "w1", {});
      await h.unchanged(async () => {
        const res = await h.call(tasks.POST, "POST", "/automations/other/tasks", { body: { payload: {} } });
        expectClear409(res, "fleet:queue:other");
        expect(res.json.error.message).toMatch(/Nothing was changed/);
      });
      await queueWith(h, "late", { part: "processing", as: "hash" });
      await h.unchanged(async () => {
        expectClear409(await h.call(sweep.POST, "POST", "/queues/late/sweep"), "fleet:queue:late:processing");
      });
    });
  });

  describe("streams, pools, kv, counters", () => {
    for (const as of ["string", "list", "hash"] as const) {
      it(`a ${as} where a stream's zset belongs: listed and answered as an empty stream, marked corrupt`, async () => {
        await h.backend.streamPush("fine", "{}", { score: 7, maxLen: 10, ttlSeconds: 0 });
        await plant(h, "stream:odd", as);
        const list = await h.call(streams.GET, "GET", "/streams");
        expect(list.status).toBe(200);
        expect(list.json.streams).toEqual([
          { name: "fine", length: 1, oldest: 7, newest: 7 },
          { name: "odd", length: 0, oldest: null, newest: null, corrupt: ["entries"] },
        ]);
        const one = await h.call(stream.GET, "GET", "/streams/odd");
        expect(one.status).toBe(200);
        expect(one.json).toEqual({ length: 0, entries: [], corrupt: ["entries"] });
      });
    }

    for (const as of ["string", "list", "zset"] as const) {
      it(`a ${as} where a pool's hash belongs: listed and answered as an empty pool, marked corrupt; an item of it is a clear 409`, async () => {
        await h.backend.poolPut("fine", "a", "x", {});
        await plant(h, "fleet:pool:odd", as);
        const list = await h.call(pools.GET, "GET", "/pools");
        expect(list.status).toBe(200);
        expect(list.json.pools).toEqual([
          { name: "fine", size: 1, live: 1, expired: 0, claimed: 0, free: 1 },
          { name: "odd", size: 0, live: 0, expired: 0, claimed: 0, free: 0, corrupt: ["items"] },
        ]);
        const one = await h.call(pool.GET, "GET", "/pools/odd");
        expect(one.status).toBe(200);
        expect(one.json).toEqual({ total: 0, items: [], corrupt: ["items"] });
        expectClear409(await h.call(poolItem.GET, "GET", "/pools/odd/items/a"), "fleet:pool:odd");
      });
    }

    it("a hash where a kv string belongs: the namespace lists it, reading it is a clear 409, writing it replaces it", async () => {
      await h.backend.kvSet("cfg", "fine", '"v"');
      await plant(h, "fleet:kv:cfg:odd", "hash");
      // written behind the console's back: listed once the name discovery has seen it
      await h.discovered();
      const ns = await h.call(kvNs.GET, "GET", "/kv/cfg");
      expect(ns.status).toBe(200);
      expect(ns.json.keys.map((k: { key: string }) => k.key)).toEqual(["fine", "odd"]);
      expectClear409(await h.call(kvKey.GET, "GET", "/kv/cfg/odd"), "fleet:kv:cfg:odd");
      const put = await h.call(kvKey.PUT, "PUT", "/kv/cfg/odd", { body: { value: 1 } });
      expect(put.status).toBe(200);
      expect((await h.call(kvKey.GET, "GET", "/kv/cfg/odd")).json.value.json).toBe(1);
    });

    it("a list where a counter belongs: listed with no value, marked corrupt", async () => {
      await h.backend.counterSet("fine", 3);
      await plant(h, "fleet:counter:odd", "list");
      const res = await h.call(counters.GET, "GET", "/counters");
      expect(res.status).toBe(200);
      expect(res.json.counters).toEqual([{ name: "fine", value: 3 }, expect.objectContaining({ name: "odd", value: null, corrupt: ["value"] })]);
    });
  });

  describe("every GET route", () => {
    // Every key Fleet writes (../shared/spec/README.md, "Key layout") and every console key a GET
    // reads, each planted as every type but its own, for the names FILL gives the routes.
    const RIGHT: Record<string, Wrong> = {
      "wkr:t:w:hardware": "string",
      "wkr:t:w:config": "string",
      "wkr:t:w:gen": "string",
      "wkr:t:w:state": "hash",
      "wkr:t:w:stats": "string",
      "wkr:t:w:stats:history": "zset",
      "wkrs:t": "set",
      "wkrs:all": "set",
      "stream:t": "zset",
      "fleet:catalog": "hash",
      "fleet:pool:t": "hash",
      "fleet:pool:t:claim:i": "string",
      "fleet:lock:t": "string",
      "fleet:counter:t": "string",
      "fleet:kv:t:k": "string",
      "fleet:queue:t": "list",
      "fleet:queue:t:high": "list",
      "fleet:queue:t:low": "list",
      "fleet:queue:t:processing": "zset",
      "fleet:queue:t:processing:body": "hash",
      "fleet:queue:t:scheduled": "zset",
      "fleet:queue:t:dead": "list",
      "fleet:console:audit": "list",
      "fleet:console:audit:changes:0123456789abcdef": "list",
      "fleet:console:history:10s:t": "string",
      "fleet:console:history:5m:t": "string",
      "fleet:console:history:fleet:10s": "string",
      "fleet:console:history:fleet:5m": "string",
      "fleet:console:history:latest": "hash",
      "fleet:console:alerts:rules": "hash",
      "fleet:console:alerts:firing": "hash",
      "fleet:console:alerts:outbox": "hash",
      "fleet:console:alerts:history": "list",
      "fleet:console:worker-errors:t|w": "list",
      "fleet:console:bulk:job:w": "hash",
      "fleet:console:bulk:jobs": "zset",
    };
    const TYPES: Wrong[] = ["string", "hash", "list", "zset", "set"];
    const CORRUPTIONS = Object.entries(RIGHT).flatMap(([key, right]) => TYPES.filter((t) => t !== right).map((as) => ({ key, as })));

    it("plants every key of a worker and of a queue, as the backend names them", () => {
      for (const f of WORKER_FIELDS) expect(RIGHT, f).toHaveProperty([`wkr:t:w:${f}`]);
      for (const suffix of QUEUE_SUFFIXES) expect(RIGHT, suffix).toHaveProperty([`fleet:queue:t:${suffix}`]);
      expect(CORRUPTIONS.length).toBe(Object.keys(RIGHT).length * 4);
    });
    const FILL: Record<string, string> = { type: "t", id: "w", name: "t", ns: "t", key: "k" };

    for (const c of CORRUPTIONS) {
      it(`${c.key} as a ${c.as}: each answers 200, 404 or a clear 409 naming the key; never a 500`, async () => {
        await plant(h, c.key, c.as);
        // a worker, a queue and a pool of that name, as far as the planted key lets them be written
        for (const seed of [() => h.backend.workerRegister("t", "w", { hostname: "h" }), () => h.backend.queuePush("t", body("x")), () => h.backend.poolPut("t", "i", "p", {})]) {
          await seed().catch((err: unknown) => expect((err as Error).name).toBe("CorruptDataError"));
        }
        // (the live stream, the metrics text and the search's NDJSON are checked below, each in its own terms)
        const gets = endpoints().filter((e) => e.method === "GET" && !/\/(events|metrics|search)$/.test(e.apiPath));
        expect(gets.length).toBeGreaterThan(15);
        const statuses: string[] = [];
        for (const e of gets) {
          // an audit entry's id is 16 hex digits (anything else is a 400 before Redis is asked)
          const path = e.apiPath
            .replace(/^\/v1/, "")
            .replace(/\[([^\]]+)\]/g, (_, p: string) => (p === "id" && e.apiPath.startsWith("/v1/audit/") ? "0123456789abcdef" : (FILL[p] ?? "x")));
          const res = await h.call(await handlerOf(e), "GET", path);
          statuses.push(`${e.key}: ${res.status}`);
          expect([200, 404, 409], `${e.key}: ${JSON.stringify(res.json)}`).toContain(res.status);
          if (res.status === 409) expectClear409(res, c.key);
        }
        // the search streams JSON lines that end in `done`, or in an `error` line with the error envelope's code and message
        const search = await h.call(await handlerOf(endpoints().find((e) => e.key === "GET /v1/queues/[name]/search")!), "GET", "/queues/t/search", { ndjson: true });
        expect([200, 404, 409], JSON.stringify(search.json)).toContain(search.status);
        if (search.status === 409) expectClear409(search, c.key);
        if (search.status === 200) {
          const lines = search.json as Array<{ type: string; error?: { code: string; message: string } }>;
          const last = lines[lines.length - 1]!;
          expect(["done", "error"], JSON.stringify(lines)).toContain(last.type);
          if (last.type === "error") expect(last.error, JSON.stringify(last)).toMatchObject({ code: expect.any(String), message: expect.stringContaining(c.key) });
        }
        // the metrics answer too, naming what they could read
        const metrics = await (await handlerOf(endpoints().find((e) => e.key === "GET /v1/metrics")!))(new Request("http://localhost/api/v1/metrics"));
        expect(metrics.status).toBe(200);
        expect(statuses.length).toBe(gets.length);
      });
    }
  });
}

describeRoutes(testRedisDb("apps/web/src/server/api/wrong-types.test.ts"), [wrongTypesSuite]);
