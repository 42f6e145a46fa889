// Redis-specific behaviour the shared contract suite cannot see: connectivity failures,
// URL handling, script atomicity and the exact keys written.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendUnavailableError, StaleGenerationError, UnsupportedBackendUrlError } from "../errors";
import { sha1Hex } from "../codec";
import { backendFromUrl } from "../url";
import type { WorkerIndexEntry, WorkerRecord } from "../types";
import { keyAround } from "./encoded-command";
import { unpack, type Packed } from "./msgpack";
import { luaScripts } from "./scripts.generated";
import { scriptRows, WORKERS_READ_FIELDS } from "./worker-read";
import { NameDiscovery } from "../discovery/name-discovery";
import { freePort, startPrivateRedis } from "../../test/support/private-redis";
import { testRedisUrl } from "../../test/support/redis-dbs";
import { createRedisBackend, type RedisBackend, WORKERS_PER_CALL } from "./index";

/** This file's own database, so that it can run beside the other suites. */
const URL_DB = testRedisUrl("packages/backend/src/redis/redis-backend.test.ts");

let backend: RedisBackend;
let raw: Redis;
const p = () => `t${randomBytes(4).toString("hex")}`;

/** Polls `ok` until it holds; fails after 20 s (a guard against hanging, generous for a loaded machine). */
async function waitUntil(ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error("timed out after 20 s");
    await new Promise((r) => setTimeout(r, 5));
  }
}

beforeAll(async () => {
  backend = createRedisBackend(URL_DB);
  raw = new Redis(URL_DB);
  await raw.flushdb();
});

afterAll(async () => {
  await backend.close();
  raw.disconnect();
});

describe("connectivity", () => {
  it("fails fast with BackendUnavailableError naming the URL without the password", async () => {
    const down = createRedisBackend("redis://:secret@127.0.0.1:1/0");
    const t0 = Date.now();
    const err = await down.queueSize("q").catch((e: unknown) => e);
    const elapsed = Date.now() - t0;
    await down.close();
    expect(err).toBeInstanceOf(BackendUnavailableError);
    const msg = (err as Error).message;
    expect(msg).toContain("127.0.0.1:1");
    expect(msg).not.toContain("secret");
    // which timeout fired: the connect timeout, with the refusal as the reason
    expect(msg).toMatch(/no connection within 1500 ms \(.*ECONNREFUSED/);
    expect(elapsed).toBeLessThan(15_000); // a guard against hanging, not a latency claim
    expect(down.url).toBe("redis://:***@127.0.0.1:1/0");
  });

  it("fails fast for pipelined reads and the subscription too", async () => {
    const down = createRedisBackend("redis://127.0.0.1:1/0", { connectTimeoutMs: 300 });
    const t0 = Date.now();
    // each by the configured connect timeout (300 ms), none by a command timeout or a hang
    for (const call of [() => down.workersGet([{ automationType: "a", workerId: "b" }]), () => down.subscribeEvents(() => undefined), () => down.health()]) {
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(BackendUnavailableError);
      expect((err as Error).message).toMatch(/no connection within 300 ms/);
    }
    expect(Date.now() - t0).toBeLessThan(15_000); // a guard against hanging, not a latency claim
    await down.close();
  });

  it("fails every concurrent caller fast while Redis is down", async () => {
    const down = createRedisBackend("redis://127.0.0.1:1/0", { connectTimeoutMs: 400 });
    const t0 = Date.now();
    const errors = await Promise.all(Array.from({ length: 40 }, (_, i) => down.kvGet("ns", `k${i}`).catch((e: unknown) => e)));
    expect(errors.every((e) => e instanceof BackendUnavailableError)).toBe(true);
    // all by the one shared wait: the same connect timeout, and less time than 40 waits one
    // after the other would take (16 s; the one wait is 400 ms, the rest is a loaded machine)
    for (const e of errors) expect((e as Error).message).toMatch(/no connection within 400 ms/);
    expect(Date.now() - t0).toBeLessThan(16_000);
    await down.close();
  });

  it("answers again by itself once a stopped Redis is back", async () => {
    const server = await startPrivateRedis();
    const b = createRedisBackend(server.url(0), { connectTimeoutMs: 500 });
    const until = async (ok: () => Promise<boolean>, ms: number) => {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        if (await ok().catch(() => false)) return true;
        await new Promise((r) => setTimeout(r, 100));
      }
      return false;
    };
    try {
      expect(await until(async () => (await b.health()).version.length > 0, 20_000)).toBe(true);
      const heard: string[] = [];
      const sub = await b.subscribeEvents((m) => heard.push(m.topic));
      await b.counterSet("c", 7);
      await server.pause();
      const t0 = Date.now();
      await expect(b.counterGet("c")).rejects.toBeInstanceOf(BackendUnavailableError);
      expect(Date.now() - t0).toBeLessThan(15_000); // a guard against hanging, not a latency claim
      await server.resume();
      // a fresh server has no data: answering 0 proves the client reconnected on its own
      expect(await until(async () => (await b.counterGet("c")) === 0, 20_000)).toBe(true);
      // the one event subscription re-subscribes by itself too (published again until heard:
      // a message sent before the re-subscription is lost, as pub/sub loses it)
      expect(
        await until(async () => {
          await b.eventPublish("after.restart", "x");
          await new Promise((r) => setTimeout(r, 50));
          return heard.includes("after.restart");
        }, 20_000),
      ).toBe(true);
      await sub.close();
    } finally {
      await b.close();
      await server.stop();
    }
  }, 60_000);

  it("authenticates with the password in the URL, and reports a wrong one without echoing it", async () => {
    const server = await startPrivateRedis({ args: ["--requirepass", "s3cr3t-pw"] });
    const port = server.port;
    const good = createRedisBackend(`redis://:s3cr3t-pw@127.0.0.1:${port}/5`);
    const bad = createRedisBackend(`redis://:wrong-pw@127.0.0.1:${port}/5`);
    try {
      await good.counterSet("auth", 9);
      expect(good.url).toBe(`redis://:***@127.0.0.1:${port}/5`);
      // the db number in the path is honoured
      const direct = new Redis({ port, password: "s3cr3t-pw", db: 5 });
      expect(await direct.get("fleet:counter:auth")).toBe("9");
      direct.disconnect();
      const err = await bad.counterGet("auth").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BackendUnavailableError);
      expect((err as Error).message).toContain(`127.0.0.1:${port}`);
      expect((err as Error).message).not.toContain("wrong-pw");
    } finally {
      await good.close();
      await bad.close();
      await server.stop();
    }
  }, 60_000);

  it("speaks TLS for rediss:// and refuses a certificate it cannot verify", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fleet-redis-tls-"));
    const cert = join(dir, "cert.pem");
    const key = join(dir, "key.pem");
    const made = spawnSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ]);
    expect(made.status).toBe(0);
    const port = await freePort();
    const server = spawn(
      "redis-server",
      [
        "--port",
        "0",
        "--tls-port",
        String(port),
        "--tls-cert-file",
        cert,
        "--tls-key-file",
        key,
        "--tls-auth-clients",
        "no",
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
      ],
      { stdio: "ignore" },
    );
    const url = `rediss://127.0.0.1:${port}/0`;
    const trusted = createRedisBackend(url, { tls: { ca: readFileSync(cert) } });
    const untrusted = createRedisBackend(url);
    try {
      const deadline = Date.now() + 20_000;
      let ok = false;
      while (!ok && Date.now() < deadline) {
        ok = await trusted.counterSet("tls", 3).then(
          () => true,
          () => false,
        );
        if (!ok) await new Promise((r) => setTimeout(r, 100));
      }
      expect(ok).toBe(true);
      expect(await trusted.counterGet("tls")).toBe(3);
      const err = await untrusted.counterGet("tls").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BackendUnavailableError);
      expect((err as Error).message).toMatch(/certificate/i);
    } finally {
      await trusted.close();
      await untrusted.close();
      server.kill("SIGKILL");
    }
  }, 60_000);

  it("recovers by itself after the connection is killed", async () => {
    const b = createRedisBackend(URL_DB);
    await b.counterSet("recover", 1);
    const id = await b.client.client("ID");
    await raw.client("KILL", "ID", String(id));
    // The first call after the kill may fail fast; then it must work again (20 s: a guard, not a bound).
    const deadline = Date.now() + 20_000;
    let value: number | null = null;
    while (Date.now() < deadline && value === null) {
      value = await b.counterGet("recover").catch(() => null);
      if (value === null) await new Promise((r) => setTimeout(r, 100));
    }
    expect(value).toBe(1);
    await b.close();
  });

  it("reports version, latency, AOF and memory", async () => {
    const h = await backend.health();
    expect(h.version).toMatch(/^\d+\.\d+/);
    expect(h.latencyMs).toBeGreaterThanOrEqual(0);
    expect(h.aofEnabled).toBe(false);
    expect(h.usedMemoryBytes).toBeGreaterThan(0);
  });
});

describe("backendFromUrl", () => {
  it("rejects unknown schemes, listing the supported ones, without leaking a password", () => {
    expect(() => backendFromUrl("postgres://u:pw@host/db")).toThrow(UnsupportedBackendUrlError);
    let thrown: unknown = null;
    try {
      backendFromUrl("sqlite://u:pw@x");
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(UnsupportedBackendUrlError);
    expect((thrown as Error).message).toContain("redis://");
    expect((thrown as Error).message).toContain("memory://");
    expect((thrown as Error).message).not.toContain("pw");
    expect(() => backendFromUrl("nonsense")).toThrow(UnsupportedBackendUrlError);
  });

  it("builds redis, rediss and memory backends", async () => {
    const r = backendFromUrl(URL_DB);
    expect(r.kind).toBe("redis");
    await r.counterSet("from-url", 5);
    expect(await raw.get("fleet:counter:from-url")).toBe("5");
    await r.close();
    const tls = backendFromUrl("rediss://:pw@127.0.0.1:1/4", { connectTimeoutMs: 200 });
    expect(tls.kind).toBe("redis");
    expect(tls.url).toBe("rediss://:***@127.0.0.1:1/4");
    await tls.close();
    const m = backendFromUrl("memory://");
    expect(m.kind).toBe("memory");
    await m.close();
  });

  it("rejects a Redis URL whose path is not a database number", () => {
    expect(() => backendFromUrl("redis://127.0.0.1:6379/abc")).toThrow(/database number/);
  });
});

describe("scripts", () => {
  it("reserve drains due retries, honours priority and registers the id atomically", async () => {
    const q = p();
    const now = Date.now() / 1000;
    await raw.zadd(`fleet:queue:${q}:scheduled`, now - 5, '{"id": "due", "payload": 1}');
    await raw.zadd(`fleet:queue:${q}:scheduled`, now + 500, '{"id": "later", "payload": 1}');
    await backend.queuePush(q, '{"id": "low"}', { priority: -1 });
    await backend.queuePush(q, '{"id": "high"}', { priority: 1 });
    const order: string[] = [];
    for (let i = 0; i < 3; i++) order.push((await backend.queueReserve(q, 0, 30))!.toString());
    expect(order).toEqual(['{"id": "high"}', '{"id": "due", "payload": 1}', '{"id": "low"}']);
    expect(await raw.zrange(`fleet:queue:${q}:scheduled`, 0, "-1")).toEqual(['{"id": "later", "payload": 1}']);
    const proc = await raw.zrange(`fleet:queue:${q}:processing`, 0, "-1", "WITHSCORES");
    expect(proc.filter((_, i) => i % 2 === 0).sort()).toEqual(["due", "high", "low"]);
    expect(Number(proc[1])).toBeGreaterThan(now + 29);
    expect(await raw.hget(`fleet:queue:${q}:processing:body`, "high")).toBe('{"id": "high"}');
    expect(await backend.queueReserve(q, 0, 30)).toBeNull();
  });

  it("reserve registers str(id) as Python does and leaves id-less bodies unregistered", async () => {
    const q = p();
    const bodies = ['{"id": 42}', '{"id": 1.5}', '{"id": true}', '{"id": ""}', '{"id": null}', "not json", '["id"]', '{"payload": 1}', '{"id": "\\u00e9t\\u00e9"}'];
    for (const b of bodies) await backend.queuePush(q, b);
    for (const b of bodies) expect((await backend.queueReserve(q, 0, 10))!.toString()).toBe(b);
    // str(None) is "None": Python registers a null id too (the full rule: test/task-ids.ts)
    expect((await raw.zrange(`fleet:queue:${q}:processing`, 0, "-1")).sort()).toEqual(["1.5", "42", "None", "True", "été"].sort());
  });

  it("moves thousands of due retries and dead letters in order (scripts push in slices)", async () => {
    const q = p();
    const now = Date.now() / 1000;
    const m = raw.multi();
    for (let i = 0; i < 2500; i++) m.zadd(`fleet:queue:${q}:scheduled`, now - 3000 + i, `{"id": "s${i}"}`);
    for (let i = 0; i < 2100; i++) m.rpush(`fleet:queue:${q}:dead`, `d${i}`);
    await m.exec();
    // a thousand per reserve (issue 11: no one long script), the rest on the next reserves, in order
    expect((await backend.queueReserve(q, 0, 30))?.toString()).toBe('{"id": "s0"}');
    expect(await raw.llen(`fleet:queue:${q}`)).toBe(999);
    expect((await backend.queueReserve(q, 0, 30))?.toString()).toBe('{"id": "s1"}');
    expect((await backend.queueReserve(q, 0, 30))?.toString()).toBe('{"id": "s2"}');
    const normal = await raw.lrange(`fleet:queue:${q}`, 0, -1);
    expect(normal.length).toBe(2497);
    expect(normal[0]).toBe('{"id": "s3"}');
    expect(normal[2496]).toBe('{"id": "s2499"}');
    expect(await raw.exists(`fleet:queue:${q}:scheduled`)).toBe(0);
    await raw.del(`fleet:queue:${q}`);
    expect(await backend.dlqRequeue(q, { all: true })).toEqual({ requeued: 2100, missing: [] });
    const requeued = await raw.lrange(`fleet:queue:${q}`, 0, -1);
    expect(requeued).toEqual(Array.from({ length: 2100 }, (_, i) => `d${i}`));
  });

  it("many concurrent reservers never get the same task", async () => {
    const q = p();
    const n = 200;
    await backend.queuePushMany(
      q,
      Array.from({ length: n }, (_, i) => ({ body: `{"id": "t${i}"}` })),
    );
    const now = Date.now() / 1000;
    // Half of them as due retries, so the drain races too.
    for (let i = 0; i < 50; i++) await raw.zadd(`fleet:queue:${q}:scheduled`, now - 1, `{"id": "s${i}"}`);
    const clients = Array.from({ length: 5 }, () => createRedisBackend(URL_DB));
    const got = await Promise.all(
      clients.map(async (c) => {
        const mine: string[] = [];
        for (;;) {
          const b = await c.queueReserve(q, 0, 60);
          if (!b) return mine;
          mine.push(b.toString());
        }
      }),
    );
    await Promise.all(clients.map((c) => c.close()));
    const all = got.flat();
    expect(all.length).toBe(n + 50);
    expect(new Set(all).size).toBe(n + 50);
    expect(await raw.zcard(`fleet:queue:${q}:processing`)).toBe(n + 50);
  });

  it("reserve waits for a body up to its timeout", async () => {
    const q = p();
    const t0 = Date.now();
    expect(await backend.queueReserve(q, 0.3, 10)).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    // a body pushed while the reserve waits (it polled and found nothing: its connection's last
    // command is the reserve script) is taken before the timeout
    const id = String(await backend.client.client("ID"));
    const waiting = backend.queueReserve(q, 30, 10);
    const lastCommand = async () => /cmd=(\S+)/.exec(String(await raw.client("LIST", "ID", id)))?.[1];
    while (!/^(evalsha|eval|fcall)$/.test((await lastCommand()) ?? "")) await new Promise((r) => setTimeout(r, 10));
    await raw.rpush(`fleet:queue:${q}`, '{"id": "late"}');
    expect((await waiting)?.toString()).toBe('{"id": "late"}');
  });

  it("sweep requeues expired reservations and reports orphans", async () => {
    const q = p();
    await raw.zadd(`fleet:queue:${q}:processing`, 100, "a", 200, "orphan", 9e9, "future");
    await raw.hset(`fleet:queue:${q}:processing:body`, "a", '{"id": "a"}', "future", '{"id": "future"}');
    const res = await backend.queueSweepExpired(q, 1000);
    expect(res).toEqual({ requeued: 1, orphaned: ["orphan"] });
    expect(await raw.lrange(`fleet:queue:${q}`, 0, -1)).toEqual(['{"id": "a"}']);
    expect(await raw.zrange(`fleet:queue:${q}:processing`, 0, "-1")).toEqual(["future"]);
    expect(await raw.hkeys(`fleet:queue:${q}:processing:body`)).toEqual(["future"]);
  });

  it("config writes with a stale generation write nothing", async () => {
    const t = p();
    await backend.workerRegister(t, "w1", { host: "h" });
    await backend.workerRegister(t, "w2", { host: "h" });
    expect((await backend.workerSetConfig(t, "w1", { a: 1 }, { expectedGen: 0 })).gen).toBe(1);
    await expect(backend.workerSetConfig(t, "w1", { a: 2 }, { expectedGen: 0 })).rejects.toBeInstanceOf(StaleGenerationError);
    expect(await raw.get(`wkr:${t}:w1:config`)).toBe('{"a": 1}');
    await expect(
      backend.workerSetConfigMany([
        { automationType: t, workerId: "w2", config: { b: 1 }, expectedGen: 0 },
        { automationType: t, workerId: "w1", config: { b: 1 }, expectedGen: 0 },
      ]),
    ).rejects.toBeInstanceOf(StaleGenerationError);
    expect(await raw.get(`wkr:${t}:w2:config`)).toBe("{}");
    expect(await raw.get(`wkr:${t}:w2:gen`)).toBe("0");
    const ok = await backend.workerSetConfigMany([
      { automationType: t, workerId: "w2", config: { b: 1 }, expectedGen: 0 },
      { automationType: t, workerId: "w1", config: { b: 1 }, expectedGen: 1 },
    ]);
    expect(ok.map((w) => w.gen)).toEqual([1, 2]);
    await raw.set(`wkr:${t}:w1:gen`, "x");
    await expect(backend.workerSetConfig(t, "w1", { c: 1 })).rejects.toThrow(/not an integer/);
    expect(await raw.get(`wkr:${t}:w1:config`)).toBe('{"b": 1}');
  });

  it("dead letters are requeued and deleted by content, every occurrence, missing refs reported", async () => {
    const q = p();
    const a = '{"id": "a"}';
    const b = '{"id": "b"}';
    const c = '{"id": "c"}';
    await raw.rpush(`fleet:queue:${q}:dead`, a, b, a, c);
    const gone = sha1Hex("nothing");
    expect(await backend.dlqRequeue(q, { refs: [sha1Hex(a), gone] })).toEqual({ requeued: 2, missing: [gone] });
    expect(await raw.lrange(`fleet:queue:${q}:dead`, 0, -1)).toEqual([b, c]);
    expect(await raw.lrange(`fleet:queue:${q}`, 0, -1)).toEqual([a, a]);
    expect(await backend.dlqDelete(q, { refs: [sha1Hex(c)] })).toEqual({ deleted: 1, missing: [] });
    expect(await backend.dlqRequeue(q, { all: true })).toEqual({ requeued: 1, missing: [] });
    expect(await raw.exists(`fleet:queue:${q}:dead`)).toBe(0);
    expect(await raw.lrange(`fleet:queue:${q}`, 0, -1)).toEqual([a, a, b]);
  });

  it("removing a worker deletes all six keys and both index entries, and nothing of a:b", async () => {
    const t = p();
    for (const w of ["a", "a:b"]) {
      await backend.workerRegister(t, w, {});
      await backend.workerSetState(t, w, "IDLE", null, 1);
      await backend.workerSetStats(t, w, { n: 1 });
      await backend.workerStatsPush(t, w, 1, { n: 1 });
    }
    expect(await backend.workerRemove(t, "a")).toBe(true);
    for (const f of ["hardware", "config", "gen", "state", "stats", "stats:history"]) {
      expect(await raw.exists(`wkr:${t}:a:${f}`)).toBe(0);
      expect(await raw.exists(`wkr:${t}:a:b:${f}`)).toBe(1);
    }
    expect(await raw.smembers(`wkrs:${t}`)).toEqual(["a:b"]);
    expect(await raw.sismember("wkrs:all", `${t}|a`)).toBe(0);
    expect(await backend.workerRemove(t, "a")).toBe(false);
  });

  it("stream push trims and publishes the score as Python's str(float)", async () => {
    const s = p();
    const sub = new Redis(URL_DB);
    const got: string[] = [];
    await sub.subscribe(`event:${s}.emit`);
    sub.on("message", (_ch: string, m: string) => got.push(m));
    await backend.streamPush(s, "e1", { score: 1000, maxLen: 2, ttlSeconds: 0 });
    await backend.streamPush(s, "e2", { score: 1000.5, maxLen: 2, ttlSeconds: 0 });
    await backend.streamPush(s, "e3", { score: 1001.25, maxLen: 2, ttlSeconds: 0 });
    // a marker published once they were answered arrives after them (Redis delivers in the order it executed)
    await raw.publish(`event:${s}.emit`, "marker");
    await waitUntil(() => got.includes("marker"));
    sub.disconnect();
    expect(got).toEqual(["1000.0", "1000.5", "1001.25", "marker"]);
    expect(await raw.zrange(`stream:${s}`, 0, "-1")).toEqual(["e2", "e3"]);
  });

  it("subscribeEvents delivers every event:* message on one connection and close() ends it", async () => {
    const seen: Array<[string, string]> = [];
    const sub = await backend.subscribeEvents((m) => seen.push([m.topic, m.payload.toString()]));
    await backend.eventPublish("fleet.config", '{"x": 1}');
    await raw.publish("event:scraper.emit", "12.5");
    await raw.publish("other", "no");
    // once a marker published after them is here, so is everything before it (or it never comes)
    await raw.publish("event:marker", "1");
    await waitUntil(() => seen.some(([t]) => t === "marker"));
    expect(seen).toEqual([
      ["fleet.config", '{"x": 1}'],
      ["scraper.emit", "12.5"],
      ["marker", "1"],
    ]);
    await sub.close();
    // nothing after close: a subscription still open has "after" and a later marker; the closed one nothing
    const later: string[] = [];
    const witness = await backend.subscribeEvents((m) => later.push(m.topic));
    await raw.publish("event:after", "x");
    await raw.publish("event:marker", "2");
    await waitUntil(() => later.includes("marker"));
    await witness.close();
    expect(later).toEqual(["after", "marker"]);
    expect(seen.length).toBe(3);
  });

  it("pool delete removes the hash and every claim key, and nothing else", async () => {
    const pool = p();
    await backend.poolPut(pool, "i1", "x", {}, null);
    await backend.poolPut(pool, "i2", "y", {}, null);
    await backend.poolPut(`${pool}x`, "i1", "z", {}, null);
    expect(await backend.poolClaimAny(pool, {}, 60)).not.toBeNull();
    expect(await backend.poolClaimAny(pool, {}, 60)).not.toBeNull();
    expect(await backend.poolClaimAny(`${pool}x`, {}, 60)).not.toBeNull();
    expect(await backend.poolDelete(pool)).toEqual({ deleted: true, items: 2 });
    expect(await raw.exists(`fleet:pool:${pool}`, `fleet:pool:${pool}:claim:i1`, `fleet:pool:${pool}:claim:i2`)).toBe(0);
    expect(await raw.exists(`fleet:pool:${pool}x`, `fleet:pool:${pool}x:claim:i1`)).toBe(2);
    expect(await backend.poolDelete(pool)).toEqual({ deleted: false, items: 0 });
  });
});

describe("batched reads", () => {
  /** Names of the commands the backend's client sends while `fn` runs. */
  async function commandsSent(fn: () => Promise<unknown>, on: RedisBackend = backend): Promise<string[]> {
    const client = on.client;
    const send = client.sendCommand;
    const sent: string[] = [];
    client.sendCommand = function (this: Redis, ...a: Parameters<Redis["sendCommand"]>) {
      sent.push(a[0].name);
      return send.apply(this, a);
    } as Redis["sendCommand"];
    try {
      await fn();
    } finally {
      client.sendCommand = send;
    }
    return sent;
  }

  const CHUNK = ["multi", "mget", "eval", "exec"];

  async function plantWorkers(t: string, n: number): Promise<void> {
    const m = raw.multi();
    for (let i = 0; i < n; i++) {
      m.set(`wkr:${t}:w${i}:hardware`, `{"i": ${i}, "hostname": "h${i}"}`).set(`wkr:${t}:w${i}:gen`, String(i)).sadd(`wkrs:${t}`, `w${i}`);
      m.set(`wkr:${t}:w${i}:config`, "{}").set(`wkr:${t}:w${i}:stats`, "{}");
      m.hset(`wkr:${t}:w${i}:state`, "state", "RUNNING", "last_seen", "1.5", "last_error", "");
    }
    await m.exec();
  }

  it(`workersGet reads a chunk of ${WORKERS_PER_CALL} workers per MULTI, and asks again only about nil values`, async () => {
    const t = p();
    const n = 5 * WORKERS_PER_CALL;
    await plantWorkers(t, n);
    await raw.zadd(`wkr:${t}:w7:stats:history`, 1, '{"a": 1}', 2, '{"a": 2}');
    const refs = Array.from({ length: n }, (_, i) => ({ automationType: t, workerId: `w${i}` }));
    let got: WorkerRecord[] = [];
    // every value present: one MULTI per chunk and nothing else
    expect(await commandsSent(async () => (got = await backend.workersGet(refs)))).toEqual(Array<string[]>(5).fill(CHUNK).flat());
    expect(got[1234 % n]).toMatchObject({
      workerId: `w${1234 % n}`,
      registered: true,
      hardware: { i: 1234 % n },
      configGen: 1234 % n,
      state: "RUNNING",
      lastSeen: 1.5,
      lastError: null,
      historyLen: 0,
      corrupt: [],
    });
    expect(got[7]!.historyLen).toBe(2);
    // a ghost in the last chunk: its nil values are looked at once more, in one call
    refs.push({ automationType: t, workerId: "ghost" });
    await raw.del(`wkr:${t}:w3:stats`);
    await raw.sadd(`wkr:${t}:w3:stats`, "a set");
    const sent = await commandsSent(async () => (got = await backend.workersGet(refs)));
    expect(sent.filter((c) => c === "multi")).toHaveLength(6);
    expect(sent.filter((c) => c === "eval")).toHaveLength(6);
    expect(sent.filter((c) => c === "evalsha")).toHaveLength(2);
    expect(got.length).toBe(n + 1);
    expect(got[n]).toMatchObject({ workerId: "ghost", registered: false, hardware: null, state: null, corrupt: [] });
    expect(got[3]).toMatchObject({ workerId: "w3", stats: null, corrupt: ["stats"] });
    expect(got.map((w) => w.workerId)).toEqual(refs.map((r) => r.workerId));
  });

  it("workersIndex reads only the state hash (and hardware when asked), a chunk per MULTI", async () => {
    const t = p();
    const n = 2 * WORKERS_PER_CALL + 1;
    await plantWorkers(t, n);
    const refs = Array.from({ length: n }, (_, i) => ({ automationType: t, workerId: `w${i}` }));
    let got: WorkerIndexEntry[] = [];
    // the reads themselves, on the backend's own connection: no copy kept (worker-cache.test.ts)
    const direct = createRedisBackend(URL_DB, { workerCache: { bytes: 0 } });
    try {
      await direct.workerCount(); // connected first: the handshake is not what is counted
      const light = await commandsSent(async () => (got = await direct.workersIndex(refs)), direct);
      expect(light).toEqual(Array<string[]>(3).fill(["multi", "eval", "exec"]).flat());
      expect(got[5]).toEqual({ automationType: t, workerId: "w5", registered: true, state: "RUNNING", lastSeen: 1.5, hostname: null, corrupt: [] });
      const withHost = await commandsSent(async () => (got = await direct.workersIndex(refs, { hostname: true })), direct);
      expect(withHost).toEqual(Array<string[]>(3).fill(CHUNK).flat());
      expect(got[n - 1]).toMatchObject({ workerId: `w${n - 1}`, hostname: `h${n - 1}` });
    } finally {
      await direct.close();
    }
  });

  it("workers-read-n.lua names the fields it answers, in both modes, as the decoder reads them", async () => {
    const t = p();
    await plantWorkers(t, 2);
    await raw.del(`wkr:${t}:w1:state`);
    await raw.sadd(`wkr:${t}:w1:state`, "a set");
    const k = (id: string, f: string) => `wkr:${t}:${id}:${f}`;
    const full = unpack(
      (await raw.callBuffer(
        "EVAL",
        luaScripts.workersRead.lua,
        5,
        `wkrs:${t}`,
        k("w0", "state"),
        k("w0", "stats:history"),
        k("w1", "state"),
        k("w1", "stats:history"),
        "full",
      )) as Buffer,
    );
    const index = unpack((await raw.callBuffer("EVAL", luaScripts.workersRead.lua, 3, `wkrs:${t}`, k("w0", "state"), k("w1", "state"), "index")) as Buffer);
    const names = (reply: Packed) => ((reply as Packed[])[0] as Buffer[]).map((x) => x.toString());
    expect(names(full)).toEqual(WORKERS_READ_FIELDS.full);
    expect(names(index)).toEqual(WORKERS_READ_FIELDS.index);
    const f = scriptRows(full, "full", 2);
    expect([0, 1].map((i) => f.rows.get(f.values, i, "member"))).toEqual([1, 1]);
    expect(String(f.rows.get(f.values, 0, "state"))).toBe("RUNNING");
    expect(f.rows.get(f.values, 0, "last_error")).toEqual(Buffer.alloc(0));
    expect([0, 1].map((i) => f.rows.get(f.values, i, "wrong"))).toEqual([0, 1]);
    const x = scriptRows(index, "index", 2);
    expect([0, 1].map((i) => x.rows.get(x.values, i, "has_last_error"))).toEqual([1, 0]);
  });

  it("encodes worker keys of any length byte for byte (ids of 1 to 3,000 bytes, multi-byte, astral)", async () => {
    const t = p();
    const ids = ["x", "y".repeat(9), "z".repeat(95), "é".repeat(500), "😀".repeat(750), `${"w".repeat(2999)}`];
    for (const id of ids) await backend.workerRegister(t, id, { id });
    const refs = ids.map((workerId) => ({ automationType: t, workerId }));
    expect((await backend.workersGet(refs)).map((w) => w.hardware)).toEqual(ids.map((id) => ({ id })));
    expect((await backend.workersIndex(refs, { hostname: true })).map((w) => w.registered)).toEqual(ids.map(() => true));
    // the connection is still in step afterwards
    expect(await raw.ping()).toBe("PONG");
    expect(await backend.workerGet(t, "x")).toMatchObject({ hardware: { id: "x" } });
  });

  it("keyAround finds the bytes around the id, and refuses a key function of another shape", () => {
    expect(keyAround((id) => `wkr:tÿpe:${id}:stats:history`)).toEqual({ prefix: Buffer.from("wkr:tÿpe:"), suffix: Buffer.from(":stats:history") });
    expect(keyAround((id) => `a${id}`)).toEqual({ prefix: Buffer.from("a"), suffix: Buffer.alloc(0) });
    expect(() => keyAround((id) => `${id}:${id}`)).toThrow(TypeError);
    expect(() => keyAround(() => "constant")).toThrow(TypeError);
  });

  it("SCAN-based listings match names literally, glob characters included", async () => {
    const ns = `n*[${p()}]`;
    await backend.kvSet(ns, "k1", "v", 3600);
    await backend.kvSet(ns, "k:2", "vv", null);
    await backend.kvSet(`${ns}x`, "k", "v", null);
    const ks = await backend.kvKeys(ns);
    expect(ks.map((k) => k.key).sort()).toEqual(["k1", "k:2"].sort());
    expect(ks.find((k) => k.key === "k:2")).toEqual({ key: "k:2", ttlMs: null, bytes: 2 });
    expect(ks.find((k) => k.key === "k1")!.ttlMs).toBeGreaterThan(3_000_000);
    expect((await backend.kvNamespaces()).find((n) => n.ns === ns)).toEqual({ ns, keys: 2 });
  });
});

describe("keyspace notifications", () => {
  async function withServer(args: string[], fn: (url: string, port: number) => Promise<void>): Promise<void> {
    const server = await startPrivateRedis({ args });
    try {
      await fn(server.url(4), server.port);
    } finally {
      await server.stop();
    }
  }

  /** What another client writes and deletes is known by the discovery at once, without a walk. */
  async function seesWritesAtOnce(d: NameDiscovery, other: Redis): Promise<void> {
    const until = Date.now() + 20_000;
    const passes = d.status().passes;
    await other.rpush("fleet:queue:jobs", "x");
    await other.set("fleet:kv:ns:k", "v");
    await other.set("unrelated", "v");
    while (!(await d.names("queue")).includes("jobs") && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(await d.names("queue")).toEqual(["jobs"]);
    while ((await d.kvNamespaces()).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(await d.kvNamespaces()).toEqual([{ ns: "ns", keys: 1 }]);
    await other.del("fleet:kv:ns:k");
    while ((await d.kvNamespaces()).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(await d.kvNamespaces()).toEqual([]);
    expect(d.status().passes).toBe(passes);
  }

  async function liveEventsOf(d: NameDiscovery): Promise<string> {
    const until = Date.now() + 20_000;
    while (d.status().liveEvents === "off" && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    return d.status().liveEvents;
  }

  it("keyspace notifications are used when Redis already sends them: another client's writes are known at once", async () => {
    await withServer(["--notify-keyspace-events", "KA"], async (url, port) => {
      const b = createRedisBackend(url);
      const other = new Redis({ port, db: 4 });
      const d = new NameDiscovery(b, { minPassIntervalMs: 3_600_000, backstopIntervalMs: 3_600_000 });
      try {
        await d.refresh();
        expect(await liveEventsOf(d)).toBe("keyspace");
        await seesWritesAtOnce(d, other);
      } finally {
        await d.close();
        other.disconnect();
        await b.close();
      }
    });
  }, 60_000);

  it("without them, key tracking on the discovery's own connection reports another client's writes at once; the server's configuration is untouched", async () => {
    await withServer([], async (url, port) => {
      const b = createRedisBackend(url);
      const other = new Redis({ port, db: 4 });
      const admin = new Redis({ port });
      const d = new NameDiscovery(b, { minPassIntervalMs: 3_600_000, backstopIntervalMs: 3_600_000 });
      try {
        await d.refresh();
        expect(await b.subscribeKeyspace(() => undefined)).toBeNull();
        expect(await liveEventsOf(d)).toBe("tracking");
        await seesWritesAtOnce(d, other);
        expect(await admin.config("GET", "notify-keyspace-events")).toEqual(["notify-keyspace-events", ""]);
        // one tracking client, in broadcast mode on Fleet's prefixes
        const clients = String(await admin.client("LIST"))
          .split("\n")
          .filter((l) => /flags=\S*t/.test(l));
        expect(clients).toHaveLength(1);
      } finally {
        await d.close();
        other.disconnect();
        admin.disconnect();
        await b.close();
      }
    });
  }, 60_000);

  it("a lost tracking connection falls back to walking at full pace, and comes back", async () => {
    await withServer([], async (url, port) => {
      const b = createRedisBackend(url);
      const admin = new Redis({ port });
      const d = new NameDiscovery(b, { minPassIntervalMs: 50, backstopIntervalMs: 3_600_000 });
      try {
        await d.refresh();
        expect(await liveEventsOf(d)).toBe("tracking");
        const tracker = String(await admin.client("LIST"))
          .split("\n")
          .find((l) => /flags=\S*t/.test(l))!;
        await admin.client("KILL", "ID", /id=(\d+)/.exec(tracker)![1]!);
        // generous waits for what follows at once on an idle machine
        let until = Date.now() + 20_000;
        while (d.status().liveEvents === "tracking" && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        expect(d.status().liveEvents).toBe("off");
        // meanwhile the walk keeps going, so a write is still found
        await admin.select(4);
        await admin.set("fleet:counter:during", "1");
        until = Date.now() + 20_000;
        while (!(await d.names("counter")).includes("during") && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        expect(await d.names("counter")).toEqual(["during"]);
        expect(await liveEventsOf(d)).toBe("tracking");
      } finally {
        await d.close();
        admin.disconnect();
        await b.close();
      }
    });
  }, 60_000);
});
