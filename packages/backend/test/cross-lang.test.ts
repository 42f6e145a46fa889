// Cross-language compatibility with the upstream Python reference (backend.py): Python
// writes and TypeScript reads; TypeScript writes and Python reads; and where the encoding
// is deterministic, both write the same bytes. The reference is imported from
// $FLEET_PY_BACKEND (default ../shared/spec), run by Debian's /usr/bin/python3 + python3-redis;
// without it (a clone on its own) every suite here is skipped, its title saying why
// (./py-reference.ts), and so are the file-level hooks, which vitest runs only for a test that runs.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseJsonBytes } from "../src/codec";
import { pyJsonBytes } from "../src/pyjson";
import { createRedisBackend, type RedisBackend } from "../src/redis";
import type { Backend, JsonObject } from "../src/types";
import { poolPruneCases } from "./pool-prune-cases";
import { generatedTaskBodies, TASK_ID_CASES } from "./task-ids";
import { padPastLuaBound } from "./contract-bounded";
import { PROVISIONAL_TASK_ID_PREFIX, RESERVE_LUA_PARSE_MAX_BYTES } from "../src/queue-bounds";
import { luaScripts } from "../src/redis/scripts.generated";
import { taskIdOfBody, withTaskFailure } from "../src/task-body";
import { pyReferenceSuite } from "./py-reference";
import { testRedisUrl } from "./support/redis-dbs";

const URL_DB = testRedisUrl("packages/backend/test/cross-lang.test.ts");

const here = dirname(fileURLToPath(import.meta.url));
const HELPER = join(here, "py", "fleet_py.py");
const PYTHON = "/usr/bin/python3";
const pyRef = pyReferenceSuite();

// ---- the spec both sides write (see test/py/fleet_py.py for its shape)

const b64 = (s: string | Buffer) => (typeof s === "string" ? Buffer.from(s, "utf8") : s).toString("base64");
const unb64 = (s: string) => Buffer.from(s, "base64");

/**
 * Every time to live the fixture sets (a claim's hold, a lock's, a kv key's): long enough that
 * a loaded machine never sees one run out during the file; SLACK is how long the file may take.
 */
const HOLD = 3600;
const SLACK = 900;

/** Every name carries the side's namespace so both can live in one database. */
function fixture(ns: string, frozen: number) {
  const type = `${ns}-scrapér`;
  const q = `${ns}:q☃`;
  const body = (id: string, extra: JsonObject = {}) => `{"id": "${id}", "payload": ${JSON.stringify({ url: "https://x/é", ...extra })}}`;
  return {
    frozen_time: frozen,
    workers: [
      {
        type,
        id: "w-1☃",
        hardware: { host: "höst-☃", cpu: 8, gpu: null, ratio: 0.25, tags: ["a", "😀"], nested: { "k é": [1, 2.5, "z"] } },
        config: { slots: 4, name: "naïve", enabled: true, limits: { rps: 1.5 } },
        state: { state: "RUNNING", last_error: null, last_seen: frozen },
        stats: { done: 12, rate: 0.5, msg: "ok ✓" },
        history: [
          [frozen - 20, { done: 10, note: "é" }],
          [frozen - 10, { done: 11, note: "😀" }],
        ],
      },
      {
        type,
        id: "w-2",
        hardware: { host: "plain" },
        state: { state: "ERROR", last_error: "boom: ☃ failed", last_seen: frozen - 100.5 },
      },
      { type: `${ns}-other`, id: "solo", hardware: {} },
    ],
    queues: [
      {
        name: q,
        push: [
          { body_b64: b64(body("n1")), priority: 0 },
          { body_b64: b64(body("h1", { p: "high ☃" })), priority: 1 },
          { body_b64: b64(body("l1")), priority: -1 },
          { body_b64: b64(body("n2")), priority: 0 },
          { body_b64: b64(body("n3")), priority: 0 },
          { body_b64: b64("not json at all"), priority: 0 },
        ],
        reserve: 2,
        visibility: 120,
        nack: [{ id: "n1", body_b64: b64(body("n1")), delay: 600 }],
        dead: [b64(body("d1", { err: "💥" })), b64(Buffer.from([0xff, 0xfe, 0x00, 0x41]))],
      },
    ],
    pools: [
      {
        name: `${ns}:accounts`,
        items: [
          { id: "acc-1", payload_b64: b64(Buffer.from([0, 1, 2, 250, 255])), tags: { region: "eu", tier: 1 }, ttl: 3600 },
          { id: "acc-é", payload_b64: b64("pässwörd ☃"), tags: { region: "us", flags: ["x", "ÿ"] }, ttl: null },
          { id: "acc-3", payload_b64: b64(""), tags: {}, ttl: 7200 },
        ],
        claims: [{ where: { region: "eu" }, hold: HOLD }],
      },
    ],
    streams: [
      {
        name: `${ns}.out`,
        max_len: 3,
        ttl: 0,
        entries: [1, 2, 3, 4].map((i) => ({ envelope_b64: b64(`{"n": ${i}, "s": "é${i}"}`), score: frozen + i / 8 })),
      },
    ],
    locks: [{ name: `${ns}:leader`, hold: HOLD }],
    counters: [
      { name: `${ns}:done`, set: 40, incr: 2 },
      { name: `${ns}:neg`, incr: -7 },
    ],
    kv: [
      { ns: `${ns}kv`, key: "plain", value_b64: b64('"quoted ☃"'), ttl: null },
      { ns: `${ns}kv`, key: "with:colon", value_b64: b64(Buffer.from([0xde, 0xad, 0xbe, 0xef])), ttl: HOLD },
    ],
    catalog: {
      [type]: JSON.stringify({ config: { type: "object" }, output: {}, task_payload: { title: "é" } }),
    },
  };
}
type Spec = ReturnType<typeof fixture>;

function python(command: "write" | "read" | "release" | "ack", input: unknown): any {
  const res = spawnSync(PYTHON, [HELPER, command, URL_DB], { input: JSON.stringify(input), encoding: "utf8", timeout: 120_000 });
  if (res.status !== 0) throw new Error(`python ${command} failed (${res.status}): ${res.stderr || res.error}`);
  return JSON.parse(res.stdout);
}

type PyResult = { ok: any } | { error: string };

/**
 * Single reference calls (fleet_py.py `ops`), each reported as {ok} or {error}. Input and
 * output travel as Python's JSON, so NaN and Infinity pass both ways.
 */
function pythonOps(ops: Array<Record<string, unknown>>): PyResult[] {
  const res = spawnSync(PYTHON, [HELPER, "ops", URL_DB], { input: pyJsonBytes({ ops }), timeout: 120_000, maxBuffer: 64 << 20 });
  if (res.status !== 0) throw new Error(`python ops failed (${res.status}): ${res.stderr?.toString() || res.error}`);
  const parsed = parseJsonBytes(res.stdout);
  if (!parsed.ok) throw new Error(`python ops printed no JSON: ${res.stdout.toString().slice(0, 200)}`);
  return (parsed.value as { results: PyResult[] }).results;
}

const okOf = (r: PyResult | undefined): any => {
  if (!r || !("ok" in r)) throw new Error(`the reference failed: ${r && "error" in r ? r.error : "no result"}`);
  return r.ok;
};

// ---- the TypeScript side: the same writes and the same view

async function tsWrite(b: Backend, spec: Spec) {
  const result = { reserved: {} as Record<string, Array<string | null>>, locks: {} as Record<string, string | null>, claims: {} as Record<string, Array<string | null>> };
  for (const w of spec.workers) {
    await b.workerRegister(w.type, w.id, w.hardware);
    if ("config" in w && w.config) await b.workerSetConfig(w.type, w.id, w.config);
    if ("state" in w && w.state) await b.workerSetState(w.type, w.id, w.state.state, w.state.last_error, w.state.last_seen);
    if ("stats" in w && w.stats) await b.workerSetStats(w.type, w.id, w.stats);
    for (const [ts, frame] of ("history" in w && w.history) || []) await b.workerStatsPush(w.type, w.id, ts as number, frame as JsonObject);
  }
  for (const q of spec.queues) {
    for (const item of q.push) await b.queuePush(q.name, unb64(item.body_b64), { priority: item.priority });
    const reserved: Array<string | null> = [];
    for (let i = 0; i < q.reserve; i++) {
      const body = await b.queueReserve(q.name, 0.5, q.visibility);
      reserved.push(body ? b64(body) : null);
    }
    result.reserved[q.name] = reserved;
    for (const n of q.nack) await b.queueNack(q.name, n.id, unb64(n.body_b64), { delaySeconds: n.delay });
    for (const d of q.dead) await b.queueDead(q.name, unb64(d));
  }
  for (const p of spec.pools) {
    for (const item of p.items) await b.poolPut(p.name, item.id, unb64(item.payload_b64), item.tags, item.ttl);
    const claimed: Array<string | null> = [];
    for (const c of p.claims) claimed.push((await b.poolClaimAny(p.name, c.where, c.hold))?.id ?? null);
    result.claims[p.name] = claimed;
  }
  for (const s of spec.streams) {
    for (const e of s.entries) await b.streamPush(s.name, unb64(e.envelope_b64), { score: e.score, maxLen: s.max_len, ttlSeconds: s.ttl });
  }
  for (const l of spec.locks) result.locks[l.name] = await b.lockAcquire(l.name, l.hold, 0);
  for (const c of spec.counters) {
    if ("set" in c && c.set !== undefined) await b.counterSet(c.name, c.set);
    if (c.incr !== undefined) await b.counterIncr(c.name, c.incr);
  }
  for (const kv of spec.kv) await b.kvSet(kv.ns, kv.key, unb64(kv.value_b64), kv.ttl);
  for (const [type, doc] of Object.entries(spec.catalog)) await b.catalogSet(type, doc);
  return result;
}

/** What fleet_py.py's view() prints, computed through the TypeScript backend. */
async function tsView(b: RedisBackend, spec: Spec) {
  const out: any = { workers: {}, worker_lists: {}, queues: {}, pools: {}, streams: {}, locks: {}, counters: {}, kv: {} };
  for (const w of spec.workers) {
    const rec = await b.workerGet(w.type, w.id);
    const { config, gen } = await b.workerGetConfig(w.type, w.id);
    out.workers[`${w.type}|${w.id}`] = {
      get: rec && {
        hardware: rec.hardware ?? {},
        config: rec.config ?? {},
        config_gen: rec.configGen ?? 0,
        state: rec.state ?? "IDLE",
        last_seen: rec.lastSeen ?? 0,
        last_error: rec.lastError,
        stats: rec.stats ?? {},
      },
      config,
      gen,
      history: await b.workerStatsHistory(w.type, w.id),
    };
    out.worker_lists[w.type] = (await b.workerList(w.type)).map((r) => r.workerId).sort();
  }
  const types = new Set(spec.workers.map((w) => w.type));
  out.all_workers = (await b.workerList())
    .filter((r) => types.has(r.automationType))
    .map((r) => `${r.automationType}|${r.workerId}`)
    .sort();
  for (const q of spec.queues) {
    const d = await b.queueDetail(q.name, 100);
    const prio = (p: string) => d.pending.filter((x) => x.priority === p).map((x) => b64(x.body));
    out.queues[q.name] = {
      size: await b.queueSize(q.name),
      peek: (await b.queuePeek(q.name, 100)).map(b64),
      high: prio("high"),
      normal: prio("normal"),
      low: prio("low"),
      processing: d.processing.map((p) => [p.id, p.deadline, p.body && b64(p.body)]),
      scheduled: d.scheduled.map((s) => [b64(s.body), s.readyAt]),
      dead: (await b.dlqPeek(q.name, 100)).map(b64),
      dead_length: await b.dlqLength(q.name),
    };
  }
  for (const p of spec.pools) {
    const items = (await b.poolList(p.name)).sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    out.pools[p.name] = {
      size: await b.poolSize(p.name),
      items: items.map((it) => ({ id: it.id, payload_b64: b64(it.payload), tags: it.tags, expires_at: it.expiresAt, in_use_until: it.inUseUntil })),
    };
  }
  for (const s of spec.streams) {
    const entries = await b.streamRange(s.name, 100, "oldest");
    out.streams[s.name] = { length: await b.streamLength(s.name), peek: (await b.streamPeek(s.name, 100)).map(b64), scores: entries.map((e) => e.score) };
  }
  const locks = await b.lockList();
  for (const l of spec.locks) {
    out.locks[l.name] = { token: await b.client.get(`fleet:lock:${l.name}`), pttl: locks.find((x) => x.name === l.name)?.ttlMs ?? -2 };
  }
  for (const c of spec.counters) out.counters[c.name] = await b.counterGet(c.name);
  for (const kv of spec.kv) {
    const e = await b.kvGetEntry(kv.ns, kv.key);
    out.kv[`${kv.ns}:${kv.key}`] = { value_b64: e && b64(e.value), pttl: e ? (e.ttlMs ?? -1) : -2 };
  }
  const catalog = await b.catalogAll();
  out.catalog = Object.fromEntries([...catalog].filter(([k]) => k in spec.catalog).map(([k, v]) => [k, v.toString("utf8")]));
  return out;
}

/** The lock's and the expiring kv key's times to live are what was set, less at most SLACK. */
function ttlsSet(view: any) {
  const live = [...Object.values<any>(view.locks), ...Object.values<any>(view.kv)].map((x) => x.pttl).filter((ms) => ms > 0);
  expect(live).toHaveLength(2);
  for (const ms of live) {
    expect(ms).toBeLessThanOrEqual(HOLD * 1000);
    expect(ms).toBeGreaterThan((HOLD - SLACK) * 1000);
  }
}

/** Time-dependent fields (remaining TTLs, lease ends) become coarse so two reads a moment apart compare equal. */
function settle(view: any) {
  const v = structuredClone(view);
  // A time to live is read at another moment on each side: compared as "live" here (rounding
  // to a bucket fails at its edge), each checked against what was set by ttlsSet().
  for (const l of Object.values<any>(v.locks)) l.pttl = l.pttl > 0 ? "live" : l.pttl;
  for (const k of Object.values<any>(v.kv)) k.pttl = k.pttl > 0 ? "live" : k.pttl;
  for (const p of Object.values<any>(v.pools)) for (const it of p.items) it.in_use_until = it.in_use_until === null ? null : "leased";
  return v;
}

// ---- raw bytes, key by key

async function rawDump(r: Redis, key: string): Promise<unknown> {
  const type = await r.type(key);
  switch (type) {
    case "string":
      return { type, value: b64((await r.getBuffer(key))!) };
    case "hash": {
      const h = await r.hgetallBuffer(key);
      return {
        type,
        value: Object.keys(h)
          .sort()
          .map((k) => [k, b64(h[k]!)]),
      };
    }
    case "list":
      return { type, value: (await r.lrangeBuffer(key, 0, -1)).map(b64) };
    case "set":
      return { type, value: (await r.smembers(key)).sort() };
    case "zset": {
      const flat = await r.zrangeBuffer(key, 0, "-1", "WITHSCORES");
      const pairs: Array<[string, string]> = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push([b64(flat[i] as Buffer), (flat[i + 1] as Buffer).toString()]);
      return { type, value: pairs };
    }
    default:
      return { type };
  }
}

async function scanAll(r: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await r.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    out.push(...batch);
    cursor = next;
  } while (cursor !== "0");
  return out.sort();
}

// ---- the tests
// One suite around everything that runs the reference, the shared setup included: without
// backend.py every test here is skipped under a title that says why (py-reference.ts), and
// a describe added later cannot forget to be.
describe.skipIf(pyRef.skip)(pyRef.title("cross-language: this backend and the Python reference on one Redis"), () => {
  let backend: RedisBackend;
  let raw: Redis;
  const FROZEN = Math.floor(Date.now() / 1000) + 0.125;
  const PY = fixture("py", FROZEN);
  const TS = fixture("ts", FROZEN);
  let pyWrite: any;

  beforeAll(async () => {
    raw = new Redis(URL_DB);
    await raw.flushdb();
    backend = createRedisBackend(URL_DB);
    pyWrite = python("write", PY);
    const now = vi.spyOn(Date, "now").mockReturnValue(FROZEN * 1000);
    try {
      await tsWrite(backend, TS);
    } finally {
      now.mockRestore();
    }
  }, 60_000);

  afterAll(async () => {
    await backend.close();
    raw.disconnect();
  });

  describe("Python writes, TypeScript reads", () => {
    it("reads every kind of data back exactly as the reference does", async () => {
      const ts = await tsView(backend, PY);
      expect(settle(ts)).toEqual(settle(pyWrite.view));
      ttlsSet(ts);
      ttlsSet(pyWrite.view);
    });

    it("reads workers field by field", async () => {
      const w = PY.workers[0]!;
      const rec = (await backend.workerGet(w.type, w.id))!;
      expect(rec).toMatchObject({
        registered: true,
        hardware: w.hardware,
        config: w.config,
        configGen: 1,
        state: "RUNNING",
        lastSeen: FROZEN,
        lastError: null,
        stats: w.stats,
        historyLen: 2,
        corrupt: [],
      });
      const w2 = (await backend.workersGet([{ automationType: PY.workers[1]!.type, workerId: "w-2" }]))[0]!;
      expect(w2).toMatchObject({ state: "ERROR", lastError: "boom: ☃ failed", lastSeen: FROZEN - 100.5, config: {}, configGen: 0, stats: null });
      const frames = await backend.workerStatsFrames(w.type, w.id, { limit: 10 });
      expect(frames.map((f) => [f.ts, f.frame])).toEqual(w.history);
    });

    it("reads queues: priorities, the reservation, the nacked retry and dead letters", async () => {
      const q = PY.queues[0]!;
      const reserved = pyWrite.result.reserved[q.name].map((s: string) => unb64(s).toString());
      expect(reserved).toEqual([unb64(q.push[1]!.body_b64).toString(), unb64(q.push[0]!.body_b64).toString()]);
      const d = await backend.queueDetail(q.name, 100);
      expect(d.depths).toMatchObject({ pending: { high: 0, normal: 3, low: 1, total: 4 }, processing: 1, scheduled: 1, dead: 2 });
      expect(d.processing.map((p) => p.id)).toEqual(["h1"]);
      expect(d.processing[0]!.deadline).toBeCloseTo(FROZEN + 120, 0);
      expect(d.scheduled[0]!.readyAt).toBeCloseTo(FROZEN + 600, 0);
      const dead = await backend.dlqRange(q.name, 0, 10);
      expect(dead.items.map(b64)).toEqual(q.dead);
      // and TypeScript can finish the task Python reserved
      expect(await backend.queueAck(q.name, "h1")).toBe(true);
      expect(await backend.queueAck(q.name, "h1")).toBe(false);
      expect(await raw.zcard(`fleet:queue:${q.name}:processing`)).toBe(0);
      expect(await raw.hlen(`fleet:queue:${q.name}:processing:body`)).toBe(0);
    });

    it("reads pools with their claims, and releases a claim and a lock Python took", async () => {
      const p = PY.pools[0]!;
      expect(pyWrite.result.claims[p.name]).toEqual(["acc-1"]);
      const items = await backend.poolItems(p.name);
      expect(items.map((i) => i.id).sort()).toEqual(["acc-1", "acc-3", "acc-é"]);
      const acc1 = items.find((i) => i.id === "acc-1")!;
      expect(acc1.payload).toEqual(Buffer.from([0, 1, 2, 250, 255]));
      expect(acc1.expiresAt).toBe(FROZEN + 3600);
      expect(acc1.inUseUntil).toBeGreaterThan(Date.now() / 1000 + HOLD - SLACK);
      expect(items.find((i) => i.id === "acc-é")).toMatchObject({ tags: { region: "us", flags: ["x", "ÿ"] }, expiresAt: null, inUseUntil: null, corrupt: false });
      const lock = PY.locks[0]!.name;
      expect(await backend.lockRelease(lock, "not-the-token")).toBe(false);
      expect(await backend.lockRelease(lock, pyWrite.result.locks[lock])).toBe(true);
    });
  });

  describe("TypeScript writes, Python reads", () => {
    it("the reference reads back what TypeScript wrote, as TypeScript does", async () => {
      const py = python("read", TS).view;
      const ts = await tsView(backend, TS);
      expect(settle(py)).toEqual(settle(ts));
      ttlsSet(py);
      ttlsSet(ts);
      // and it is what was meant, not merely the same on both sides
      const w = TS.workers[0]!;
      expect(py.workers[`${w.type}|${w.id}`].get).toEqual({
        hardware: w.hardware,
        config: w.config,
        config_gen: 1,
        state: "RUNNING",
        last_seen: FROZEN,
        last_error: null,
        stats: w.stats,
      });
      expect(py.workers[`${w.type}|${w.id}`].history).toEqual(w.history!.map(([, f]) => f));
      expect(py.counters).toEqual({ "ts:done": 42, "ts:neg": -7 });
      expect(py.queues[TS.queues[0]!.name].dead).toEqual(TS.queues[0]!.dead);
      expect(py.pools[TS.pools[0]!.name].items.map((i: any) => i.id)).toEqual(["acc-1", "acc-3", "acc-é"]);
      expect(py.streams[TS.streams[0]!.name].scores).toEqual([FROZEN + 0.25, FROZEN + 0.375, FROZEN + 0.5]);
    });

    it("the reference acknowledges a task TypeScript reserved", async () => {
      const q = TS.queues[0]!.name;
      expect(await backend.client.zrange(`fleet:queue:${q}:processing`, 0, "-1")).toEqual(["h1"]);
      expect(python("ack", { queue: q, ids: ["h1", "h1"] }).acked).toEqual([true, false]);
      expect(await backend.client.exists(`fleet:queue:${q}:processing`, `fleet:queue:${q}:processing:body`)).toBe(0);
    });

    it("the reference releases a lock TypeScript holds", async () => {
      const lock = TS.locks[0]!.name;
      const token = (await backend.client.get(`fleet:lock:${lock}`))!;
      expect(token).toMatch(/^[0-9a-f]{32}$/);
      expect(python("release", { tokens: { [lock]: token } }).released).toEqual({ [lock]: true });
      expect(await backend.client.exists(`fleet:lock:${lock}`)).toBe(0);
    });
  });

  describe("both write the same bytes", () => {
    // Time-dependent scores (reservation deadlines, retry times) and the random lock token
    // are compared by member only; everything else byte for byte.
    const TIME_SCORED = [/:processing$/, /:scheduled$/];
    const RANDOM = [/^fleet:lock:/];

    it("key for key, value for value", async () => {
      const pyKeys = (await scanAll(raw, "*")).filter((k) => /(^|[:|])py[-:.k]/.test(k) && !k.startsWith("ts"));
      const toTs = (k: string) => k.replace(/(^|:)py(?=[-:.k])/, "$1ts");
      expect(pyKeys.length).toBeGreaterThan(20);
      const tsKeys = (await scanAll(raw, "*")).filter((k) => /(^|[:|])ts[-:.k]/.test(k));
      expect(tsKeys.sort()).toEqual(pyKeys.map(toTs).sort());
      for (const k of pyKeys) {
        const a: any = await rawDump(raw, k);
        const b: any = await rawDump(raw, toTs(k));
        if (RANDOM.some((re) => re.test(k))) {
          expect(b.type, k).toBe(a.type);
          continue;
        }
        if (TIME_SCORED.some((re) => re.test(k))) {
          expect(
            b.value.map((p: string[]) => p[0]),
            k,
          ).toEqual(a.value.map((p: string[]) => p[0]));
          continue;
        }
        expect(b, k).toEqual(a);
      }
      for (const idx of ["wkrs:all"]) {
        const members = await raw.smembers(idx);
        expect(
          members
            .filter((m) => m.startsWith("ts-"))
            .map((m) => m.replace(/^ts/, "py"))
            .sort(),
        ).toEqual(members.filter((m) => m.startsWith("py-")).sort());
      }
      const catalog = await raw.hgetallBuffer("fleet:catalog");
      expect(catalog[`ts-scrapér`]).toEqual(catalog[`py-scrapér`]);
    });

    it("pins the exact encodings of the deterministic values", async () => {
      const t = "py-scrapér";
      const id = "w-1☃";
      expect(await raw.get(`wkr:${t}:${id}:hardware`)).toBe(
        '{"host": "h\\u00f6st-\\u2603", "cpu": 8, "gpu": null, "ratio": 0.25, "tags": ["a", "\\ud83d\\ude00"], "nested": {"k \\u00e9": [1, 2.5, "z"]}}',
      );
      expect(await raw.get(`wkr:${t}:${id}:config`)).toBe('{"slots": 4, "name": "na\\u00efve", "enabled": true, "limits": {"rps": 1.5}}');
      expect(await raw.hget(`wkr:${t}:${id}:state`, "last_seen")).toBe(String(FROZEN));
      const item = JSON.parse((await raw.hget("fleet:pool:py:accounts", "acc-1"))!);
      expect(item).toEqual({ p: "AAEC+v8=", t: { region: "eu", tier: 1 }, x: FROZEN + 3600 });
    });
  });

  describe("large bodies, reserved in two steps (issue 11)", () => {
    it("registers the id the reference registers for every body of the shared table made longer than the reserve script reads", async () => {
      const padded = TASK_ID_CASES.map((c) => ({ ...c, body: padPastLuaBound(c.body) }));
      const [py] = pythonOps([{ op: "reserve_each", queue_prefix: "py-big-ids", bodies_b64: padded.map((c) => b64(c.body)) }]);
      const results = okOf(py) as Array<{ error?: string; body_b64?: string; registered?: Record<string, string> }>;
      for (const [i, c] of padded.entries()) {
        const q = `ts-big-ids:${i}`;
        await backend.queuePush(q, c.body);
        expect((await backend.queueReserve(q, 0, 30))?.equals(c.body), c.name).toBe(true);
        const ts = await raw.hgetallBuffer(`fleet:queue:${q}:processing:body`);
        expect(Object.fromEntries(Object.entries(ts).map(([k, v]) => [k, b64(v)])), c.name).toEqual(c.id === null ? {} : { [c.id]: b64(c.body) });
        const p = results[i]!;
        if (c.python === "raises") expect(p.error, c.name).toMatch(/UnicodeEncodeError/);
        else if (c.python === "same") expect(p.registered, c.name).toEqual(c.id === null ? {} : { [c.id]: b64(c.body) });
      }
    });

    it("the reference's sweep puts back a body a TypeScript reserver left under its provisional id (it died between the steps)", async () => {
      const q = "ts-big-crash";
      const big = padPastLuaBound(Buffer.from('{"id": "crash", "payload": {}}'));
      await raw.rpush(`fleet:queue:${q}`, big);
      const provisional = `${PROVISIONAL_TASK_ID_PREFIX}${"ab".repeat(16)}`;
      const reply = (await raw.callBuffer(
        "EVAL",
        luaScripts.reserve.lua,
        6,
        ...["scheduled", "high", "", "low", "processing", "processing:body"].map((p) => `fleet:queue:${q}${p ? `:${p}` : ""}`),
        String(Date.now() / 1000),
        "30",
        provisional,
        String(RESERVE_LUA_PARSE_MAX_BYTES),
        "1000",
        String(1 << 20),
      )) as Buffer[];
      expect(reply.length).toBe(3);
      expect(await raw.zrange(`fleet:queue:${q}:processing`, "0", "-1")).toEqual([provisional]);
      const [swept] = pythonOps([{ op: "sweep", queue: q, now: Date.now() / 1000 + 3600 }]);
      expect(okOf(swept)).toBe(1);
      expect((await raw.lrangeBuffer(`fleet:queue:${q}`, 0, -1)).map((b) => b.equals(big))).toEqual([true]);
      expect(await raw.exists(`fleet:queue:${q}:processing`, `fleet:queue:${q}:processing:body`)).toBe(0);
      // and a TypeScript reserve then registers it under its id, which the reference acks
      expect((await backend.queueReserve(q, 0, 30))?.equals(big)).toBe(true);
      expect(await raw.zrange(`fleet:queue:${q}:processing`, "0", "-1")).toEqual(["crash"]);
    });
  });

  describe("mixed fleets (issue 13)", () => {
    it("registers the id the reference registers, for every body of the shared table", async () => {
      const [py] = pythonOps([{ op: "reserve_each", queue_prefix: "py-ids", bodies_b64: TASK_ID_CASES.map((c) => b64(c.body)) }]);
      const results = okOf(py) as Array<{ error?: string; body_b64?: string; registered?: Record<string, string> }>;
      for (const [i, c] of TASK_ID_CASES.entries()) {
        const q = `ts-ids:${i}`;
        await backend.queuePush(q, c.body);
        expect(await backend.queueReserve(q, 0, 30), c.name).toEqual(c.body);
        const ts = await raw.hgetallBuffer(`fleet:queue:${q}:processing:body`);
        expect(Object.fromEntries(Object.entries(ts).map(([k, v]) => [k, b64(v)])), c.name).toEqual(c.id === null ? {} : { [c.id]: b64(c.body) });
        const p = results[i]!;
        if (c.python === "raises") {
          expect(p.error, c.name).toMatch(/UnicodeEncodeError/);
          continue;
        }
        expect(p.body_b64, c.name).toBe(b64(c.body));
        const pyIds = Object.keys(p.registered!);
        if (c.python === "same") expect(p.registered, c.name).toEqual(c.id === null ? {} : { [c.id]: b64(c.body) });
        // unparseable: the reference registers a random uuid4 hex that nobody can ever ack
        else if (c.python === "random") expect(pyIds, c.name).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/)]);
        // a container id: the reference registers its repr
        else expect(pyIds, c.name).toEqual([expect.stringMatching(/^[[{]/)]);
      }
    });

    it("agrees with the reference and the Lua script on 400 generated bodies, broken ones included", async () => {
      const bodies = generatedTaskBodies(20260113, 400);
      const [py] = pythonOps([{ op: "reserve_each", queue_prefix: "py-gen", bodies_b64: bodies.map((x) => b64(x)) }]);
      const results = okOf(py) as Array<{ error?: string; registered?: Record<string, string> }>;
      let withIds = 0;
      for (const [i, body] of bodies.entries()) {
        const id = taskIdOfBody(body);
        if (id !== null) withIds++;
        await backend.queuePush(`ts-gen:${i}`, body);
        await backend.queueReserve(`ts-gen:${i}`, 0, 30);
        const lua = Object.keys(await raw.hgetall(`fleet:queue:ts-gen:${i}:processing:body`));
        expect(lua, body.toString("latin1")).toEqual(id === null ? [] : [id]);
        const p = results[i]!;
        // where Python registers nothing usable (a random uuid, a container's repr, an encoding failure), no id
        const pyIds = p.registered ? Object.keys(p.registered) : [];
        if (id !== null) expect(pyIds, body.toString("latin1")).toEqual([id]);
        else expect(p.error !== undefined || pyIds.length === 0 || /^[0-9a-f]{32}$|^[[{]/.test(pyIds[0]!), body.toString("latin1")).toBe(true);
      }
      expect(withIds).toBeGreaterThan(30);
      // 400 reference calls and 1,200 commands one after the other: a guard against hanging on a loaded machine
    }, 180_000);

    it("a retry changes only attempts and last_error: the bytes the reference's own dict update writes", async () => {
      const bodies = [
        '{"id": "r1", "payload": {"big": 12345678901234567890, "f": 1.0, "10": "ten", "2": "two", "s": "caf\\u00e9 \\ud83d\\ude00", "nan": NaN, "inf": -Infinity}}',
        '{"id": 7, "payload": [1.5e-07, 1e+16, -0.0], "attempts": 2, "last_error": "before", "z": null}',
        '{"payload": {}, "id": "r3"}',
      ];
      const failures = [
        [1, 'Error: boom \u2603 "quoted"'],
        [3, ""],
      ] as const;
      const cases = bodies.flatMap((body) => failures.map(([attempts, error]) => ({ body, attempts, error })));
      const py = pythonOps(cases.map((c) => ({ op: "retry_body", body_b64: b64(c.body), attempts: c.attempts, last_error: c.error })));
      cases.forEach((c, i) => {
        const ts = withTaskFailure(Buffer.from(c.body), c.attempts, c.error)!;
        expect(ts.toString(), c.body).toBe(unb64(okOf(py[i])).toString());
      });
    });

    it("pool_put prunes exactly what the reference prunes, and nothing when the reference would stop with a TypeError", async () => {
      const cases = poolPruneCases(Date.now() / 1000 - 3600, Date.now() / 1000 + 3600);
      const plant = (pool: string, extra: Array<[string, Buffer]> = []) =>
        [...cases.map((c) => [c.id, c.raw] as [string, Buffer]), ...extra].map(([field, value]) => ({ op: "hset", key: `fleet:pool:${pool}`, field, value_b64: b64(value) }));
      const typeErrorItem: [string, Buffer] = ["x-text", Buffer.from('{"p": "", "t": {}, "x": "2020-01-01"}')];
      const results = pythonOps([
        ...plant("py-prune"),
        { op: "pool_put", name: "py-prune", id: "new", payload_b64: b64("x"), tags: {}, ttl: null },
        ...plant("py-prune-te", [typeErrorItem]),
        { op: "pool_put", name: "py-prune-te", id: "new", payload_b64: b64("x"), tags: {}, ttl: null },
      ]);
      const pyLeft = okOf(results[cases.length]);
      expect(pyLeft).toEqual(["new", ...cases.filter((c) => !c.pruned).map((c) => c.id)].sort());
      expect(results.at(-1)).toEqual({ error: expect.stringMatching(/^TypeError/) });

      for (const [field, value] of cases.map((c) => [c.id, c.raw] as const)) await raw.hset("fleet:pool:ts-prune", field, value);
      await backend.poolPut("ts-prune", "new", "x", {}, null);
      expect((await raw.hkeys("fleet:pool:ts-prune")).sort()).toEqual(pyLeft);

      for (const [field, value] of [...cases.map((c) => [c.id, c.raw] as const), typeErrorItem]) await raw.hset("fleet:pool:ts-prune-te", field, value);
      await backend.poolPut("ts-prune-te", "new", "x", {}, null);
      expect((await raw.hkeys("fleet:pool:ts-prune-te")).sort()).toEqual((await raw.hkeys("fleet:pool:py-prune-te")).sort());
      expect(await raw.hlen("fleet:pool:ts-prune-te")).toBe(cases.length + 2);
    });

    it("a claim with a hold of zero or less fails and claims nothing, in the reference as here", async () => {
      await backend.poolPut("ts-hold", "a", "x", {}, null);
      const results = pythonOps([
        { op: "pool_put", name: "py-hold", id: "a", payload_b64: b64("x"), tags: {}, ttl: null },
        { op: "pool_claim", name: "py-hold", where: {}, hold: 0 },
        { op: "pool_claim", name: "py-hold", where: {}, hold: -1 },
      ]);
      expect(results.slice(1)).toEqual([{ error: expect.stringMatching(/invalid expire time/) }, { error: expect.stringMatching(/invalid expire time/) }]);
      await expect(backend.poolClaimAny("ts-hold", {}, 0)).rejects.toBeInstanceOf(RangeError);
      await expect(backend.poolClaimAny("ts-hold", {}, -1)).rejects.toBeInstanceOf(RangeError);
      expect(await raw.exists("fleet:pool:py-hold:claim:a", "fleet:pool:ts-hold:claim:a")).toBe(0);
    });

    it("NaN and Infinity the reference writes are read, not corrupt, and written back byte for byte", async () => {
      const stats = { rate: NaN, peak: Infinity, low: -Infinity, n: 3 };
      const hardware = { host: "h", temp: NaN };
      const results = pythonOps([
        { op: "worker_register", type: "py-nan", id: "w", hardware },
        { op: "worker_set_stats", type: "py-nan", id: "w", stats },
        { op: "worker_stats_push", type: "py-nan", id: "w", ts: 5, frame: { rate: NaN } },
      ]);
      for (const r of results) okOf(r);
      const rec = (await backend.workerGet("py-nan", "w"))!;
      expect(rec).toMatchObject({ corrupt: [], stats, hardware });
      expect((await backend.workerStatsFrames("py-nan", "w", { limit: 5 })).map((f) => f.frame)).toEqual([{ rate: NaN }]);
      // what TypeScript writes from what it read is what Python wrote
      await backend.workerRegister("ts-nan", "w", rec.hardware!);
      await backend.workerSetStats("ts-nan", "w", rec.stats!);
      await backend.workerStatsPush("ts-nan", "w", 5, { rate: NaN });
      for (const k of ["hardware", "stats"]) expect(await raw.getBuffer(`wkr:ts-nan:w:${k}`), k).toEqual(await raw.getBuffer(`wkr:py-nan:w:${k}`));
      expect(await raw.zrangeBuffer("wkr:ts-nan:w:stats:history", 0, "-1")).toEqual(await raw.zrangeBuffer("wkr:py-nan:w:stats:history", 0, "-1"));
      // and the reference reads it back
      const [pyGet, pyHistory] = pythonOps([
        { op: "worker_get", type: "ts-nan", id: "w" },
        { op: "stats_history", type: "ts-nan", id: "w" },
      ]);
      expect(okOf(pyGet)).toMatchObject({ stats, hardware });
      expect(okOf(pyHistory)).toEqual([{ rate: NaN }]);
    });

    it("empty config and gen values read as {} and 0 on both sides", async () => {
      await raw.mset("wkr:py-empty:w:config", "", "wkr:py-empty:w:gen", "");
      const [py] = pythonOps([{ op: "get_config", type: "py-empty", id: "w" }]);
      expect(okOf(py)).toEqual({ config: {}, gen: 0 });
      expect(await backend.workerGetConfig("py-empty", "w")).toEqual({ config: {}, gen: 0 });
    });
  });
});
