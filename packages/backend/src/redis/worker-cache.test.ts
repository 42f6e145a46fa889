// The copy of worker reads kept true by CLIENT TRACKING (./worker-cache.ts), against a
// redis-server of this file's own: its INFO commandstats count what the reads sent.
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../../test/support/private-redis";
import { BackendUnavailableError } from "../errors";
import type { WorkerRef } from "../types";
import { createRedisBackend, type RedisBackend } from "./index";

let server: PrivateRedis;
let raw: Redis;
const opened: RedisBackend[] = [];

beforeAll(async () => {
  server = await startPrivateRedis();
  raw = new Redis(server.url(0));
});

afterAll(async () => {
  await Promise.all(opened.map((b) => b.close()));
  raw.disconnect();
  await server.stop();
});

beforeEach(async () => {
  await raw.flushall();
});

function backend(opts: Parameters<typeof createRedisBackend>[1] = {}): RedisBackend {
  const b = createRedisBackend(server.url(0), opts);
  opened.push(b);
  return b;
}

const T = "scraper";
const refs = (n: number): WorkerRef[] => Array.from({ length: n }, (_, i) => ({ automationType: T, workerId: `w${String(i).padStart(3, "0")}` }));

async function plant(n: number): Promise<void> {
  const m = raw.multi();
  for (const { workerId: id } of refs(n)) {
    m.set(`wkr:${T}:${id}:hardware`, JSON.stringify({ hostname: `host-${id}` }));
    m.set(`wkr:${T}:${id}:config`, '{"slots": 2}').set(`wkr:${T}:${id}:gen`, "1").set(`wkr:${T}:${id}:stats`, '{"done": 1}');
    m.hset(`wkr:${T}:${id}:state`, "state", "RUNNING", "last_seen", "100.5", "last_error", "");
    m.sadd(`wkrs:${T}`, id).sadd("wkrs:all", `${T}|${id}`);
  }
  await m.exec();
}

/** Calls of each command since the last reset (INFO commandstats), without the counting's own. */
async function calls(): Promise<Record<string, number>> {
  const info = await raw.info("commandstats");
  const out: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2]);
  for (const k of Object.keys(out)) if (k === "info" || k.startsWith("config")) delete out[k];
  return out;
}

/** Every read the copy can answer: the list, the index (both kinds) and the rows. */
async function readAll(b: RedisBackend, n: number) {
  const list = await b.workerList();
  const [index, withHost, rows] = await Promise.all([b.workersIndex(refs(n)), b.workersIndex(refs(n), { hostname: true }), b.workersRows(refs(n))]);
  return { list, index, withHost, rows };
}

/** Waits until `ok` holds (20 s at most). */
async function until(ok: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error("timed out after 20 s");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("worker cache", () => {
  it("answers unchanged workers without reading them again: only a PING reaches Redis", async () => {
    await plant(300);
    const b = backend();
    const first = await readAll(b, 300);
    expect(first.list).toHaveLength(300);
    expect(first.rows[7]).toMatchObject({ workerId: "w007", state: "RUNNING", lastSeen: 100.5, config: { slots: 2 }, stats: { done: 1 } });
    expect(b.workerCacheStats()).toMatchObject({ linked: true, misses: 901 });
    await raw.config("RESETSTAT");
    const again = await readAll(b, 300);
    expect(again).toEqual(first);
    // each of the four reads: one PING on the listening connection, nothing else
    expect(await calls()).toEqual({ ping: 4 });
    expect(b.workerCacheStats()).toMatchObject({ hits: 901, misses: 901 });
  });

  it("reads again what another client changed, and only that", async () => {
    await plant(50);
    const b = backend();
    await readAll(b, 50);
    await raw.hset(`wkr:${T}:w003:state`, "state", "ERROR", "last_error", "boom");
    await raw.set(`wkr:${T}:w004:hardware`, JSON.stringify({ hostname: "moved" }));
    await raw.set(`wkr:${T}:w005:stats`, '{"done": 99}');
    await raw.del(`wkr:${T}:w006:config`);
    await raw.config("RESETSTAT");
    const after = await readAll(b, 50);
    expect(after.index[3]).toMatchObject({ state: "ERROR" });
    expect(after.rows[3]).toMatchObject({ state: "ERROR", lastError: "boom" });
    expect(after.withHost[4]).toMatchObject({ hostname: "moved" });
    expect(after.rows[5]).toMatchObject({ stats: { done: 99 } });
    expect(after.rows[6]).toMatchObject({ config: {} });
    expect(after.rows[7]).toMatchObject({ state: "RUNNING", stats: { done: 1 } });
    // the four changed workers read again (a row chunk and the index chunks), the list not at all
    const c = await calls();
    expect(c.smembers).toBeUndefined();
    expect(b.workerCacheStats().misses).toBe(151 + 4 * 3);
    // a worker index changed: the list, and every registration of that type, read again
    await raw.srem(`wkrs:${T}`, "w009");
    await raw.sadd("wkrs:all", `${T}|w999`);
    const later = await readAll(b, 50);
    expect(later.list).toContainEqual({ automationType: T, workerId: "w999" });
    expect(later.rows[9]!.registered).toBe(false);
    expect(later.index[9]!.registered).toBe(false);
    expect(later.rows[8]!.registered).toBe(true);
  });

  it("never keeps a value a write overtook while it was read", async () => {
    await plant(5);
    let spoil: (() => Promise<void>) | null = null;
    const b = backend({
      workerCache: {
        // the write lands after Redis answered the read and its invalidation is handled before
        // the answer is kept: without the flights' marks the copy would keep the old state for good
        beforeKeep: async () => {
          const s = spoil;
          spoil = null;
          await s?.();
        },
      },
    });
    const seen = b.workerCacheStats().misses;
    spoil = async () => {
      await raw.hset(`wkr:${T}:w001:state`, "state", "IDLE");
      // a read of another worker syncs with the listening connection: the invalidation is in
      await b.workersIndex([{ automationType: T, workerId: "w004" }]);
    };
    const first = await b.workersIndex(refs(5));
    expect(first[1]!.state).toBe("RUNNING"); // read before the write: that answer is right
    expect(b.workerCacheStats().misses).toBeGreaterThan(seen);
    expect((await b.workersIndex(refs(5)))[1]!.state).toBe("IDLE");
  });

  it("forgets everything on FLUSHDB, and on a lost connection reads Redis until it is back", async () => {
    await plant(20);
    const b = backend();
    await readAll(b, 20);
    await raw.flushdb();
    const empty = await readAll(b, 20);
    expect(empty.list).toEqual([]);
    expect(empty.rows[0]).toMatchObject({ registered: false, state: null });
    await plant(20);
    await readAll(b, 20);
    expect(b.workerCacheStats().linked).toBe(true);
    // the listening connection killed: invalidations can no longer arrive
    await raw.call("CLIENT", "KILL", "TYPE", "pubsub");
    await until(() => !b.workerCacheStats().linked);
    expect(b.workerCacheStats().entries).toBe(0);
    await raw.hset(`wkr:${T}:w002:state`, "state", "IDLE");
    expect((await b.workersRows(refs(20)))[2]!.state).toBe("IDLE");
    // linked again a second later, and kept true again
    await new Promise((r) => setTimeout(r, 1100));
    await readAll(b, 20);
    expect(b.workerCacheStats().linked).toBe(true);
    await raw.hset(`wkr:${T}:w002:state`, "state", "ERROR");
    expect((await b.workersRows(refs(20)))[2]!.state).toBe("ERROR");
  });

  it("keeps nothing past maxAgeMs nor over its byte budget, and values it shares are frozen", async () => {
    await plant(40);
    const aged = backend({ workerCache: { maxAgeMs: 50 } });
    await aged.workersRows(refs(40));
    await new Promise((r) => setTimeout(r, 120));
    await raw.config("RESETSTAT");
    await aged.workersRows(refs(40));
    expect((await calls()).eval).toBe(1);
    const small = backend({ workerCache: { bytes: 2000 } });
    const rows = await small.workersRows(refs(40));
    expect(rows).toHaveLength(40);
    expect(small.workerCacheStats().bytes).toBeLessThanOrEqual(2000);
    expect(small.workerCacheStats().entries).toBeGreaterThan(0);
    expect(Object.isFrozen(rows[39])).toBe(true);
    expect(() => (rows[39]!.corrupt as string[]).push("state")).toThrow(TypeError);
    const list = await small.workerList();
    list.pop(); // a copy: the kept list is not touched
    expect(await small.workerList()).toHaveLength(40);
  });

  it("reads Redis directly where CLIENT TRACKING is refused (an ACL), and when turned off", async () => {
    await plant(10);
    await raw.call("ACL", "SETUSER", "console", "on", ">pw", "~*", "&*", "+@all", "-client");
    try {
      const refused = createRedisBackend(`redis://console:pw@127.0.0.1:${server.port}/0`);
      opened.push(refused);
      expect((await refused.workersRows(refs(10)))[4]).toMatchObject({ state: "RUNNING" });
      expect(refused.workerCacheStats()).toMatchObject({ linked: false, entries: 0 });
      await raw.hset(`wkr:${T}:w004:state`, "state", "IDLE");
      expect((await refused.workersRows(refs(10)))[4]).toMatchObject({ state: "IDLE" });
    } finally {
      await raw.call("ACL", "DELUSER", "console");
    }
    const off = backend({ workerCache: { bytes: 0 } });
    await off.workersRows(refs(10));
    await off.workersRows(refs(10));
    expect(off.workerCacheStats()).toMatchObject({ linked: false, entries: 0, hits: 0 });
  });

  it("fails as fast as a direct read while Redis is down, and serves nothing of before a restart", async () => {
    const nowhere = createRedisBackend("redis://127.0.0.1:1/0", { connectTimeoutMs: 300 });
    opened.push(nowhere);
    const t0 = Date.now();
    await expect(nowhere.workersRows(refs(3))).rejects.toBeInstanceOf(BackendUnavailableError);
    // one wait for the connection, not two (the copy's own connections are not tried)
    expect(Date.now() - t0).toBeLessThan(900);
    await plant(10);
    const b = backend();
    expect((await b.workersRows(refs(10)))[1]).toMatchObject({ registered: true, state: "RUNNING" });
    expect(b.workerCacheStats().linked).toBe(true);
    await server.pause();
    await expect(b.workersRows(refs(10))).rejects.toBeInstanceOf(BackendUnavailableError);
    await server.resume(); // empty: nothing of the workers read before may be answered
    let rows: Awaited<ReturnType<RedisBackend["workersRows"]>> = [];
    await until(async () => {
      rows = await b.workersRows(refs(10)).catch(() => []);
      return rows.length === 10;
    });
    expect(rows[1]).toMatchObject({ registered: false, state: null });
    expect(await b.workerList()).toEqual([]);
  });
});
