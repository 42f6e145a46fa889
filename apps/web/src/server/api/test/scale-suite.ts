// Issue 11 at the route level: lists answer from the one name discovery plus one pipelined
// read of live figures (never a walk of the key space per request), names appear and go,
// and kv namespaces page with a cursor.
import { describe, expect, it } from "vitest";

import * as counters from "@/app/api/v1/counters/route";
import * as kv from "@/app/api/v1/kv/route";
import * as kvNs from "@/app/api/v1/kv/[ns]/route";
import * as kvKey from "@/app/api/v1/kv/[ns]/[key]/route";
import * as locks from "@/app/api/v1/locks/route";
import * as metrics from "@/app/api/v1/metrics/route";
import * as pools from "@/app/api/v1/pools/route";
import * as queues from "@/app/api/v1/queues/route";
import * as queue from "@/app/api/v1/queues/[name]/route";
import * as streams from "@/app/api/v1/streams/route";
import * as tasks from "@/app/api/v1/automations/[type]/tasks/route";
import { getDiscovery } from "@/server/backend";

import { now, type Harness } from "./harness";

/** Backend methods that walk the whole key space: no request may call them. */
const WALKS = ["queueNames", "poolNames", "streamNames", "kvNamespaces", "kvKeys", "lockList", "counterList"] as const;

export function scaleSuite(h: Harness): void {
  describe("lists at scale (issue 11)", () => {
    async function seed(): Promise<void> {
      const b = h.backend;
      await b.queuePush("jobs", '{"id": "1", "payload": {}}');
      await b.poolPut("proxies", "p1", "x", {});
      await b.streamPush("scraper", "{}", { score: now(), maxLen: 10, ttlSeconds: 3600 });
      await b.lockAcquire("nightly", 60, 0);
      await b.counterIncr("hits", 2);
      await b.kvSet("settings", "motd", '"hi"');
      // another application's keys
      await h.plant.bulk(Array.from({ length: 500 }, (_, i) => ["set", `other-app:${i}`, "x"] as ["set", string, string]));
      await h.discovered();
    }

    it("never walk the key space per request: every SCAN that reaches Redis is a step of the one discovery", async () => {
      await seed();
      const b = h.backend as unknown as Record<string, unknown>;
      const walked: string[] = [];
      const originals = new Map<string, unknown>();
      for (const name of WALKS) {
        const fn = b[name] as (...a: unknown[]) => unknown;
        originals.set(name, fn);
        b[name] = (...args: unknown[]) => {
          walked.push(name);
          return fn.apply(h.backend, args);
        };
      }
      const discovery = await getDiscovery();
      try {
        const stepsBefore = discovery.status().scanSteps;
        const commands = await h.monitor(async () => {
          for (let i = 0; i < 5; i++) {
            for (const [handler, path] of [
              [queues.GET, "/queues"],
              [pools.GET, "/pools"],
              [streams.GET, "/streams"],
              [locks.GET, "/locks"],
              [counters.GET, "/counters"],
              [kv.GET, "/kv"],
              [kvNs.GET, "/kv/settings"],
              [queue.GET, "/queues/jobs"],
            ] as const) {
              expect((await h.call(handler, "GET", path)).status, path).toBe(200);
            }
            const m = await metrics.GET(new Request("http://localhost/api/v1/metrics"));
            expect(await m.text()).toContain('fleet_queue_tasks{queue="jobs",state="pending"} 1');
          }
        });
        const steps = discovery.status().scanSteps - stepsBefore;
        expect(walked).toEqual([]);
        if (commands !== null) {
          // the requests' own commands: reads of named keys only
          expect(commands.filter((c) => c[0] === "keys")).toEqual([]);
          expect(commands.filter((c) => c[0] === "scan")).toHaveLength(steps);
          expect(commands.length).toBeGreaterThan(45);
        }
      } finally {
        for (const [name, fn] of originals) b[name] = fn;
      }
    });

    it("list what another application created once the discovery walked past it, and drop what it deleted at once", async () => {
      await seed();
      await h.plant.rpush("fleet:queue:foreign:dead", "x");
      await h.plant.set("fleet:lock:foreign", "token");
      await h.plant.set("fleet:counter:foreign", "7");
      await h.discovered();
      const names = async () => ({
        queues: (await h.call(queues.GET, "GET", "/queues")).json.queues.map((q: { name: string }) => q.name),
        locks: (await h.call(locks.GET, "GET", "/locks")).json.locks.map((l: { name: string }) => l.name),
        counters: (await h.call(counters.GET, "GET", "/counters")).json.counters.map((c: { name: string }) => c.name),
      });
      expect(await names()).toEqual({ queues: ["foreign", "jobs"], locks: ["foreign", "nightly"], counters: ["foreign", "hits"] });
      await h.backend.dlqClear("foreign");
      await h.backend.lockForceRelease("foreign");
      await h.backend.counterDel("foreign");
      await h.backend.dlqClear("jobs");
      await h.backend.queueReserve("jobs", 0, 30);
      // no walk in between: the live read of the named keys shows they are gone
      expect(await names()).toEqual({ queues: ["jobs"], locks: ["nightly"], counters: ["hits"] });
    });

    it("list the console's own writes at once", async () => {
      await seed();
      await h.backend.workerRegister("fresh", "w1", {});
      const res = await h.call(tasks.POST, "POST", "/automations/fresh/tasks", { body: { payload: {} } });
      expect(res.status).toBe(201);
      const put = await h.call(kvKey.PUT, "PUT", "/kv/fresh-ns/k", { body: { value: 1 } });
      expect(put.status).toBe(200);
      expect((await h.call(queues.GET, "GET", "/queues")).json.queues.map((q: { name: string }) => q.name)).toEqual(["fresh", "jobs"]);
      expect((await h.call(kv.GET, "GET", "/kv")).json.namespaces).toEqual([
        { ns: "fresh-ns", keys: 1 },
        { ns: "settings", keys: 1 },
      ]);
      expect((await h.call(kvNs.GET, "GET", "/kv/fresh-ns")).json).toEqual({ total: 1, keys: [{ key: "k", ttl_ms: null, bytes: 1 }] });
    });

    it("answer a namespace another program wrote a moment ago on a small database (a small look), and 404 for none", async () => {
      await seed();
      await h.plant.set("fleet:kv:just-now:a", "1");
      const res = await h.call(kvNs.GET, "GET", "/kv/just-now");
      expect(res.json).toEqual({ total: 1, keys: [{ key: "a", ttl_ms: null, bytes: 1 }] });
      expect((await h.call(kvNs.GET, "GET", "/kv/never")).status).toBe(404);
    });

    it("page a small kv namespace by offset or by cursor, sorted", async () => {
      for (const k of ["c", "a", "e", "b", "d"]) await h.backend.kvSet("small", k, "1");
      expect((await h.call(kvNs.GET, "GET", "/kv/small?limit=2&offset=1")).json).toEqual({
        total: 5,
        keys: [
          { key: "b", ttl_ms: null, bytes: 1 },
          { key: "c", ttl_ms: null, bytes: 1 },
        ],
      });
      const seen: string[] = [];
      let cursor: string | null = "0";
      while (cursor !== null) {
        const page: { json: { total: number; keys: Array<{ key: string }>; next_cursor: string | null } } = await h.call(
          kvNs.GET,
          "GET",
          `/kv/small?limit=2&cursor=${encodeURIComponent(cursor)}`,
        );
        expect(page.json.total).toBe(5);
        seen.push(...page.json.keys.map((k) => k.key));
        cursor = page.json.next_cursor;
      }
      expect(seen).toEqual(["a", "b", "c", "d", "e"]);
      for (const bad of ["zz", "o-1", "s!!", "1"]) {
        expect((await h.call(kvNs.GET, "GET", `/kv/small?cursor=${encodeURIComponent(bad)}`)).status, bad).toBe(400);
      }
    });

    it("page a namespace too large to hold only by a SCAN cursor: every key once, offsets refused", async () => {
      const n = 10_050;
      await h.plant.bulk(Array.from({ length: n }, (_, i) => ["set", `fleet:kv:huge:k${i}`, "v"] as ["set", string, string]));
      await h.plant.set("fleet:kv:hugely:x", "v");
      await h.discovered();
      const first = await h.call(kvNs.GET, "GET", "/kv/huge?limit=1000");
      expect(first.status).toBe(200);
      expect(first.json.total).toBeGreaterThanOrEqual(n);
      expect(first.json.next_cursor).toEqual(expect.any(String));
      const offset = await h.call(kvNs.GET, "GET", "/kv/huge?offset=100");
      expect(offset.status).toBe(400);
      expect(offset.json.error.message).toMatch(/cursor/);
      const seen = new Set<string>();
      let cursor: string | null = "0";
      let pages = 0;
      while (cursor !== null && pages < 1000) {
        const page: { status: number; json: { keys: Array<{ key: string }>; next_cursor: string | null } } = await h.call(
          kvNs.GET,
          "GET",
          `/kv/huge?limit=1000&cursor=${encodeURIComponent(cursor)}`,
        );
        expect(page.status).toBe(200);
        for (const k of page.json.keys) seen.add(k.key);
        cursor = page.json.next_cursor;
        pages++;
      }
      expect(seen.size).toBe(n);
      expect(seen.has("x")).toBe(false);
      expect(pages).toBeGreaterThanOrEqual(10);
    });
  });
}
