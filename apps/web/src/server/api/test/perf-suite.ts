import { describe, expect, it, vi } from "vitest";

import * as automations from "@/app/api/v1/automations/route";
import * as automation from "@/app/api/v1/automations/[type]/route";
import * as workers from "@/app/api/v1/workers/route";
import { INDEX_SNAPSHOT_MS } from "@/server/api/workers";

import { now, type BulkOp, type Harness } from "./harness";

const FLEET_SIZE = 10_000;
// What makes GET /workers scale is pinned here by the backend calls it makes, which is
// deterministic: the light index for every worker, full records for the page only, never
// one call per worker. How fast it is gets measured by `pnpm bench:api`, which prints
// figures; a timed test would only measure how busy the machine is.
/** The Backend reads a worker listing could use. */
const WORKER_READS = ["workerList", "workersIndex", "workersGet", "workersRows", "workerGet", "workerStatsFrames", "catalogGet", "catalogAll", "queueDepths"];

/** 10,000 workers over 10 types, every field set, none offline. */
async function seedFleet(h: Harness): Promise<void> {
  // an hour ahead, so that no worker turns offline however long seeding takes on a busy machine
  const t = now() + 3600;
  const ops: BulkOp[] = [];
  for (let i = 0; i < FLEET_SIZE; i++) {
    const type = `type-${i % 10}`;
    const id = `worker-${String(i).padStart(5, "0")}`;
    const k = (f: string) => `wkr:${type}:${id}:${f}`;
    ops.push(
      ["set", k("hardware"), JSON.stringify({ hostname: `host-${i}`, cpus: 8, memory: 16e9, os: "linux" })],
      ["set", k("config"), JSON.stringify({ slots: 4, proxy: { host: "p", port: 8080 }, mode: "fast" })],
      ["set", k("gen"), "3"],
      ["set", k("stats"), JSON.stringify({ rps: 12.5, ok: 1000, failed: 3, latency_ms: 120 })],
      ["hset", k("state"), { state: i % 3 === 0 ? "RUNNING" : "IDLE", last_seen: String(t), last_error: "" }],
      ["sadd", `wkrs:${type}`, id],
      ["sadd", "wkrs:all", `${type}|${id}`],
    );
  }
  await h.plant.bulk(ops);
}

/** Wraps the backend's worker reads to record each call (name, number of refs, options); undo() puts them back. */
function recordCalls(h: Harness): { calls: Array<{ name: string; refs: number | null; opts: unknown }>; undo(): void } {
  const calls: Array<{ name: string; refs: number | null; opts: unknown }> = [];
  const b = h.backend as unknown as Record<string, unknown>;
  const originals = new Map<string, unknown>();
  for (const name of WORKER_READS) {
    const fn = b[name];
    if (typeof fn !== "function") throw new Error(`the backend has no ${name}`);
    originals.set(name, fn);
    b[name] = (...args: unknown[]) => {
      calls.push({ name, refs: Array.isArray(args[0]) ? args[0].length : null, opts: args[1] });
      return (fn as (...a: unknown[]) => unknown).apply(h.backend, args);
    };
  }
  return {
    calls,
    undo: () => {
      for (const name of originals.keys()) delete b[name];
    },
  };
}

/** GET /workers reads a large fleet in a fixed number of batched backend calls. */
export function perfSuite(h: Harness): void {
  describe("GET /workers with 10,000 workers", () => {
    it("answers limit=1000 from the light index of all workers plus full records of the page", { timeout: 60_000 }, async () => {
      await seedFleet(h);
      const { calls, undo } = recordCalls(h);
      try {
        let res = await h.call(workers.GET, "GET", "/workers?limit=1000");
        expect(res.status).toBe(200);
        expect(res.json.total).toBe(FLEET_SIZE);
        expect(res.json.counts).toEqual({ running: 3334, idle: 6666, error: 0, offline: 0 });
        expect(res.json.workers).toHaveLength(1000);
        // one read of the id index, the light index of every worker, full records of the page
        expect(calls).toEqual([
          { name: "workerList", refs: null, opts: undefined },
          { name: "workersIndex", refs: FLEET_SIZE, opts: { hostname: false } },
          { name: "workersRows", refs: 1000, opts: undefined },
        ]);
        // q needs hostnames: the same three calls, the index asked for them
        calls.length = 0;
        res = await h.call(workers.GET, "GET", "/workers?q=HOST-4242&limit=1000");
        expect(res.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["worker-04242"]);
        expect(calls.map((c) => [c.name, c.refs, c.opts])).toEqual([
          ["workerList", null, undefined],
          ["workersIndex", FLEET_SIZE, { hostname: true }],
          ["workersRows", 1, undefined],
        ]);
        // every page is the right slice of the sorted fleet; the pages after the first read
        // only their own rows: they page through the first page's index (workers.ts)
        for (const offset of [0, 4000, 9000]) {
          calls.length = 0;
          res = await h.call(workers.GET, "GET", `/workers?limit=1000&offset=${offset}`);
          expect(calls.map((c) => [c.name, c.refs])).toEqual(
            offset === 0
              ? [
                  ["workerList", null],
                  ["workersIndex", FLEET_SIZE],
                  ["workersRows", 1000],
                ]
              : [["workersRows", 1000]],
          );
          expect(res.json.total).toBe(FLEET_SIZE);
          expect(res.json.workers).toHaveLength(1000);
          const first = res.json.workers[0] as { automation_type: string; worker_id: string };
          const i = offset / 1000; // 1,000 workers per type, types in order
          expect([first.automation_type, first.worker_id]).toEqual([`type-${i}`, `worker-${String(i).padStart(5, "0")}`]);
        }
        // a slow pass (a busy machine) keeps paging through its one index: each page renews it;
        // a pause longer than INDEX_SNAPSHOT_MS starts over with a fresh index
        const realNow = Date.now;
        let shift = 0;
        const clock = vi.spyOn(Date, "now").mockImplementation(() => realNow() + shift);
        try {
          await h.call(workers.GET, "GET", "/workers?limit=1000");
          for (const offset of [1000, 2000, 3000]) {
            shift += INDEX_SNAPSHOT_MS - 500;
            calls.length = 0;
            await h.call(workers.GET, "GET", `/workers?limit=1000&offset=${offset}`);
            expect(calls.map((c) => c.name)).toEqual(["workersRows"]);
          }
          shift += INDEX_SNAPSHOT_MS + 500;
          calls.length = 0;
          await h.call(workers.GET, "GET", "/workers?limit=1000&offset=4000");
          expect(calls.map((c) => c.name)).toEqual(["workerList", "workersIndex", "workersRows"]);
        } finally {
          clock.mockRestore();
        }
      } finally {
        undo();
      }
      // a later page asks for the fleet's size (is the index still the fleet's?) and for its
      // rows together: one round trip, the rows asked for before the size has answered
      const b = h.backend as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      const events: string[] = [];
      for (const name of ["workerCount", "workersRows"]) {
        const fn = b[name]!;
        b[name] = async (...args: unknown[]) => {
          events.push(`${name} asked`);
          const v = await fn.apply(h.backend, args);
          events.push(`${name} answered`);
          return v;
        };
      }
      try {
        await h.call(workers.GET, "GET", "/workers?limit=1000");
        events.length = 0;
        const res = await h.call(workers.GET, "GET", "/workers?limit=1000&offset=2000");
        expect(res.json.workers).toHaveLength(1000);
        expect(events.slice(0, 2)).toEqual(["workerCount asked", "workersRows asked"]);
        // a list never shows the stats history: its rows read no history key (a key and a command less per worker)
        const commands = await h.monitor(() => h.call(workers.GET, "GET", "/workers?limit=1000&offset=3000"));
        if (commands !== null) {
          expect(commands.length).toBeGreaterThan(0);
          expect(commands.filter((c) => c.some((a) => a.endsWith(":stats:history")) || c[0] === "zcard")).toEqual([]);
        }
      } finally {
        delete b.workerCount;
        delete b.workersRows;
      }
    });

    it("counts them for GET /automations from the light index alone, never full records", { timeout: 60_000 }, async () => {
      await seedFleet(h);
      const { calls, undo } = recordCalls(h);
      try {
        const res = await h.call(automations.GET, "GET", "/automations");
        expect(res.status).toBe(200);
        expect(res.json.automations).toHaveLength(10);
        expect(res.json.automations[0].workers).toEqual({ total: 1000, running: 334, idle: 666, error: 0, offline: 0 });
        expect(calls.filter((c) => c.name !== "catalogAll" && c.name !== "queueDepths").map((c) => [c.name, c.refs])).toEqual([
          ["workerList", null],
          ["workersIndex", FLEET_SIZE],
        ]);
        calls.length = 0;
        const one = await h.call(automation.GET, "GET", "/automations/type-3");
        expect(one.json.workers).toEqual({ total: 1000, running: 334, idle: 666, error: 0, offline: 0 });
        expect(calls.filter((c) => c.name !== "catalogGet" && c.name !== "queueDepths").map((c) => [c.name, c.refs])).toEqual([
          ["workerList", null],
          ["workersIndex", 1000],
        ]);
      } finally {
        undo();
      }
    });
  });
}
