// Bounded steps on a real Redis (issue 11, issue 19.8). The two-step reserve of a large body (src/lua/reserve-6.lua registers it
// under a provisional id without reading it; reserve-settle-2.lua re-keys it to the id Node
// read): what a reserver that dies between the steps leaves behind, what a sweep in between
// does, and many reservers racing a sweeper with every body accounted for. The contract suite
// (test/contract-bounded.ts) checks the ids; this file checks the steps one by one. Then a
// pool deletion in chunks: what a deletion interrupted after its first step leaves (the pool
// gone, its claims removed by the next deletion), what a put meanwhile meets, and that the
// console's pool reads and deletion never send a command that reads a whole pool. And the count
// of a fleet write's kept changes is an LLEN alone.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "../src/keys";
import { pyJsonBytes } from "../src/pyjson";
import { PROVISIONAL_TASK_ID_PREFIX, RESERVE_LUA_PARSE_MAX_BYTES, SCHEDULED_DRAIN_MAX, SCHEDULED_DRAIN_MAX_BYTES } from "../src/queue-bounds";
import { consoleKeys } from "../src/keys";
import { createRedisBackend, type RedisBackend } from "../src/redis";
import { startPrivateRedis } from "./support/private-redis";
import { luaScripts } from "../src/redis/scripts.generated";
import { taskIdOfBody } from "../src/task-body";
import { testRedisUrl } from "./support/redis-dbs";

const url = testRedisUrl("packages/backend/test/bounded-redis.test.ts");

let backend: RedisBackend;
let raw: Redis;
const fresh = () => `rsv-${randomBytes(4).toString("hex")}`;
const body = (id: string) => pyJsonBytes({ id, payload: { n: id } });
const big = (id: string) => Buffer.concat([body(id), Buffer.alloc(RESERVE_LUA_PARSE_MAX_BYTES + 100, 0x20)]);
const reserveKeys = (q: string) => [keys.queueScheduled(q), keys.queueHigh(q), keys.queue(q), keys.queueLow(q), keys.queueProcessing(q), keys.queueProcessingBody(q)];

/** The first step alone, as a reserver that dies right after it would leave things. */
async function firstStep(q: string, visibility = 30): Promise<{ provisional: string; reply: Buffer[] }> {
  const provisional = `${PROVISIONAL_TASK_ID_PREFIX}${randomBytes(16).toString("hex")}`;
  const reply = (await raw.callBuffer(
    "EVAL",

    luaScripts.reserve.lua,
    6,
    ...reserveKeys(q),
    String(Date.now() / 1000),
    String(visibility),
    provisional,
    String(RESERVE_LUA_PARSE_MAX_BYTES),
    String(SCHEDULED_DRAIN_MAX),
    String(SCHEDULED_DRAIN_MAX_BYTES),
  )) as Buffer[];
  return { provisional, reply };
}

const settle = (q: string, provisional: string, lease: string, id: string) =>
  raw.eval(luaScripts.reserveSettle.lua, 2, keys.queueProcessing(q), keys.queueProcessingBody(q), provisional, lease, id) as Promise<number>;

/** A backend and an admin client on a redis-server of the test's own (its commandstats and slowlog are the test's alone). */
async function withOwnServer(fn: (be: RedisBackend, admin: Redis) => Promise<void>): Promise<void> {
  const server = await startPrivateRedis();
  const be = createRedisBackend(server.url());
  const admin = new Redis(server.url());
  try {
    await fn(be, admin);
  } finally {
    await be.close();
    admin.disconnect();
    await server.stop();
  }
}

/** How many times each command ran since the last CONFIG RESETSTAT (INFO commandstats). */
async function commandCalls(admin: Redis): Promise<(cmd: string) => number> {
  const stats = (await admin.info("commandstats")) as string;
  return (cmd) => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

beforeAll(async () => {
  raw = new Redis(url, { maxRetriesPerRequest: 1 });
  await raw.flushdb();
  backend = createRedisBackend(url);
});

afterAll(async () => {
  await backend.close();
  raw.disconnect();
});

describe("reserving a large body in two steps", () => {
  it("a small body is registered in one step; a large one under a provisional id, with its real deadline", async () => {
    const q = fresh();
    await raw.rpush(keys.queue(q), body("small"), big("large"));
    const one = await firstStep(q);
    expect(one.reply.length).toBe(2);
    expect(await raw.zrange(keys.queueProcessing(q), "0", "-1")).toEqual(["small"]);
    const two = await firstStep(q);
    expect(two.reply.length).toBe(3);
    expect(two.reply[0]!.equals(big("large"))).toBe(true);
    const score = await raw.zscore(keys.queueProcessing(q), two.provisional);
    expect(Number(score)).toBe(Number(two.reply[1]!.toString()));
    expect((await raw.hgetBuffer(keys.queueProcessingBody(q), two.provisional))!.equals(big("large"))).toBe(true);
    // the second step moves it under its id, same deadline, so the lease holds
    expect(await settle(q, two.provisional, two.reply[1]!.toString(), "large")).toBe(1);
    expect(await raw.zscore(keys.queueProcessing(q), "large")).toBe(score);
    expect((await raw.hkeys(keys.queueProcessingBody(q))).sort()).toEqual(["large", "small"]);
    expect(await backend.queueAck(q, "large", { lease: two.reply[1]!.toString() })).toBe(true);
  });

  it("a reserver that dies between the steps leaves a reservation the sweep puts back, and the body is then reserved under its id", async () => {
    const q = fresh();
    await raw.rpush(keys.queue(q), big("crash"));
    const { provisional } = await firstStep(q, 1);
    expect(await raw.llen(keys.queue(q))).toBe(0);
    // not expired yet: nothing to sweep
    expect(await backend.queueSweepExpired(q)).toEqual({ requeued: 0, orphaned: [] });
    expect(await raw.zrange(keys.queueProcessing(q), "0", "-1")).toEqual([provisional]);
    expect(await backend.queueSweepExpired(q, Date.now() / 1000 + 60)).toEqual({ requeued: 1, orphaned: [] });
    expect((await raw.lrangeBuffer(keys.queue(q), "0", "-1")).map((b) => b.equals(big("crash")))).toEqual([true]);
    expect(await raw.exists(keys.queueProcessing(q), keys.queueProcessingBody(q))).toBe(0);
    const again = await backend.queueReserveLease(q, 0, 30);
    expect(again?.body.equals(big("crash"))).toBe(true);
    expect(await raw.zrange(keys.queueProcessing(q), "0", "-1")).toEqual(["crash"]);
  });

  it("the second step after a sweep took the body back changes nothing and answers -1 (the body is not delivered)", async () => {
    const q = fresh();
    await raw.rpush(keys.queue(q), big("late"));
    const { provisional, reply } = await firstStep(q, 1);
    await backend.queueSweepExpired(q, Date.now() / 1000 + 60);
    expect(await settle(q, provisional, reply[1]!.toString(), "late")).toBe(-1);
    expect(await raw.exists(keys.queueProcessing(q), keys.queueProcessingBody(q))).toBe(0);
    expect(await raw.llen(keys.queue(q))).toBe(1);
    // nor when the provisional id is there again with another deadline (not this reserve's)
    await raw.zadd(keys.queueProcessing(q), "1", provisional);
    await raw.hset(keys.queueProcessingBody(q), provisional, "x");
    expect(await settle(q, provisional, reply[1]!.toString(), "late")).toBe(-1);
    expect(await raw.zscore(keys.queueProcessing(q), provisional)).toBe("1");
  });

  it("drops the registration of a large body without a usable id: delivered once, unregistered", async () => {
    const q = fresh();
    const junk = Buffer.concat([Buffer.from('{"payload": "'), Buffer.alloc(RESERVE_LUA_PARSE_MAX_BYTES, 0x61), Buffer.from('"}')]);
    await raw.rpush(keys.queue(q), junk);
    const got = await backend.queueReserveLease(q, 0, 30);
    expect(got?.body.equals(junk)).toBe(true);
    expect(got?.lease).toBeNull();
    expect(await raw.exists(keys.queueProcessing(q), keys.queueProcessingBody(q))).toBe(0);
  });

  it("many reservers racing a sweeper that expires everything: every body ends in exactly one place, none under a provisional id", async () => {
    const conns = Array.from({ length: 6 }, () => createRedisBackend(url));
    try {
      for (let round = 0; round < 5; round++) {
        const q = fresh();
        const bodies = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? body(`s${i}`) : big(`b${i}`)));
        await raw.rpush(keys.queue(q), ...bodies);
        // the sweeper expires every reservation it finds, 30 times, as fast as it can
        let sweeping = true;
        const sweeper = (async () => {
          for (let i = 0; i < 30; i++) await conns[0]!.queueSweepExpired(q, Date.now() / 1000 + 3600);
          sweeping = false;
        })();
        const delivered: string[] = [];
        await Promise.all(
          conns.slice(1).map(async (c) => {
            for (;;) {
              const got = await c.queueReserve(q, 0, 30);
              if (got !== null) delivered.push(taskIdOfBody(got)!);
              else if (!sweeping && (await raw.llen(keys.queue(q))) === 0) return;
            }
          }),
        );
        await sweeper;
        const pending = (await raw.lrangeBuffer(keys.queue(q), "0", "-1")).map((b) => taskIdOfBody(b)!);
        const processing = await raw.zrange(keys.queueProcessing(q), "0", "-1");
        const processingBodies = await raw.hgetallBuffer(keys.queueProcessingBody(q));
        expect(processing.filter((id) => id.startsWith(PROVISIONAL_TASK_ID_PREFIX))).toEqual([]);
        expect(Object.keys(processingBodies).sort()).toEqual([...processing].sort());
        for (const [id, b] of Object.entries(processingBodies)) expect(taskIdOfBody(b)).toBe(id);
        // each body in exactly one place; every one was delivered at least once
        expect([...pending, ...processing].sort()).toEqual(bodies.map((b) => taskIdOfBody(b)!).sort());
        expect(new Set(delivered).size).toBe(bodies.length);
      }
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
  });
});

describe("deleting a pool in chunks", () => {
  const item = (i: number) => pyJsonBytes({ p: Buffer.from(`p${i}`).toString("base64"), t: {}, x: null });
  async function plant(name: string, n: number, claimed: number[]): Promise<void> {
    const m = raw.multi();
    for (let i = 0; i < n; i++) m.hset(keys.pool(name), `i${i}`, item(i));
    for (const i of claimed) m.set(keys.poolClaim(name, `i${i}`), "1", "EX", 600);
    await m.exec();
  }

  it("is gone for Fleet in the first step; a put afterwards starts a new pool that is kept; the next deletion finishes the claims", async () => {
    const name = fresh();
    await plant(name, 1500, [1, 2, 3, 700]);
    // the first step alone: a console that dies right after it
    const deleting = consoleKeys.poolDeleting(randomBytes(16).toString("hex"));
    const begun = await raw.eval(luaScripts.poolDeleteBegin.lua, 3, keys.pool(name), consoleKeys.poolDeletes, deleting, name);
    expect(begun).toBe(1500);
    expect(await backend.poolSize(name)).toBe(0);
    expect(await backend.poolList(name)).toEqual([]);
    // a Python worker puts i2 again and claims it: a new pool of one item
    await raw.hset(keys.pool(name), "i2", item(2));
    await raw.set(keys.poolClaim(name, "i2"), "1", "EX", 300);
    expect(await raw.hget(consoleKeys.poolDeletes, deleting)).toBe(name);
    // any later deletion finishes it first (this one finds no pool of its own)
    expect(await backend.poolDelete(fresh())).toEqual({ deleted: false, items: 0 });
    expect(await raw.exists(deleting, consoleKeys.poolDeletes)).toBe(0);
    expect(await raw.exists(keys.poolClaim(name, "i1"), keys.poolClaim(name, "i3"), keys.poolClaim(name, "i700"))).toBe(0);
    expect(await raw.hkeys(keys.pool(name))).toEqual(["i2"]);
    expect(await raw.ttl(keys.poolClaim(name, "i2"))).toBeGreaterThan(200);
  });

  it("refuses a pool key of another type before changing anything", async () => {
    const name = fresh();
    await raw.set(keys.pool(name), "not a hash");
    await expect(backend.poolDelete(name)).rejects.toThrow(/another Redis type/);
    expect(await raw.get(keys.pool(name))).toBe("not a hash");
    expect(await raw.exists(consoleKeys.poolDeletes)).toBe(0);
  });
});

describe("the console's pool reads and deletion never read a whole pool", () => {
  it("pages, counts, reads items and deletes a pool of 3,000 items with no HGETALL, HKEYS or HVALS (commandstats of a server of its own)", async () => {
    await withOwnServer(async (be, admin) => {
      const m = admin.multi();
      for (let i = 0; i < 3000; i++) m.hset(keys.pool("p"), `i${i}`, pyJsonBytes({ p: "eA==", t: {}, x: null }));
      m.set(keys.poolClaim("p", "i5"), "1", "EX", 60);
      await m.exec();
      await admin.config("RESETSTAT");
      let cursor = "0";
      let seen = 0;
      do {
        const page = await be.poolItemsScan("p", cursor, 200);
        seen += page.items.length;
        cursor = page.cursor;
      } while (cursor !== "0");
      expect(seen).toBeGreaterThanOrEqual(3000);
      expect((await be.poolItemsByIds("p", ["i5", "i6"])).map((r) => r.inUseUntil !== null)).toEqual([true, false]);
      expect(await be.poolItemIds("p", 100)).toBeNull();
      // the exact counts of a pool under POOL_EXACT_UP_TO, as lists, /metrics and every hub tick read them
      expect(await be.poolSummaries(["p"])).toEqual([{ name: "p", size: 3000, live: 3000, expired: 0, claimed: 1, free: 2999 }]);
      expect(await be.poolDelete("p")).toEqual({ deleted: true, items: 3000 });
      const calls = await commandCalls(admin);
      expect({ hgetall: calls("hgetall"), hkeys: calls("hkeys"), hvals: calls("hvals") }).toEqual({ hgetall: 0, hkeys: 0, hvals: 0 });
      expect(calls("hscan")).toBeGreaterThan(10);
      expect(await admin.dbsize()).toBe(0);
    });
  });
});

describe("the watch's queue probe", () => {
  it("looks for one mark per script, in further rounds for the lists still unresolved, and finds the oldest mark still there", async () => {
    await withOwnServer(async (be, admin) => {
      await admin.rpush(keys.queue("w"), "m4", "x", "m5", "tail");
      const marks = { normal: ["m0", "m1", "m2", "m3", "m4", "m5"].map((m) => Buffer.from(m)) };
      await admin.config("SET", "slowlog-log-slower-than", "0");
      await admin.config("SET", "slowlog-max-len", "1000");
      await admin.call("SLOWLOG", "RESET");
      const [w] = await be.queueWatch([{ name: "w", marks }], { maxTailBytes: 100, maxScan: 1000 });
      expect(w!.lists.normal).toMatchObject({ length: 4, found: { mark: 4, position: 0 } });
      const log = (await admin.call("SLOWLOG", "GET", "1000")) as Array<[number, number, number, Buffer[]]>;
      const probes = log.map((e) => e[3].map(String)).filter((a) => /^evalsha$/i.test(a[0]!) && a[3] === keys.queue("w"));
      // evalsha <sha> 1 <key> <maxTailBytes> <maxScan> <mark>: one mark each, the oldest first, five rounds
      expect(probes.map((a) => a.slice(6)).reverse()).toEqual([["m0"], ["m1"], ["m2"], ["m3"], ["m4"]]);
    });
  });
});

describe("the count of a fleet write's kept changes", () => {
  it("is one LLEN: a limit of 0 sends no LRANGE over the list (commandstats of a server of its own)", async () => {
    await withOwnServer(async (be, admin) => {
      const id = "0123456789abcdef";
      await be.auditChangesPut(
        id,
        Array.from({ length: 2000 }, (_, i) => `{"worker_id": "w${i}"}`),
        60,
      );
      await admin.config("RESETSTAT");
      expect(await be.auditChangesRange(id, 0, 0)).toEqual({ total: 2000, items: [] });
      expect(await be.auditChangesRange(id, 10, -1)).toEqual({ total: 2000, items: [] });
      const calls = await commandCalls(admin);
      expect({ llen: calls("llen"), lrange: calls("lrange") }).toEqual({ llen: 2, lrange: 0 });
    });
  });
});
