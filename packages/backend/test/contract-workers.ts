// The Backend contract on workers: registration, config and its generation, state, stats
// history, reads of many, removal. A part of describeBackendContract (./contract.ts), run on
// both implementations by contract-memory.test.ts and contract-redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import { StaleGenerationError } from "../src/errors";
import type { Backend, WorkerRef } from "../src/types";
import { b, NOT_UTF8, snapshot, type ContractState, type RawPlanter } from "./contract-support";

export function workersContract(state: ContractState): void {
  describe("workers", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("registers: hardware as Python JSON, both indexes, gen 0 and config {} only when absent", async () => {
      await be.workerRegister("scraper", "h1", { host: "h1", cpus: 4, name: "café", load: 0.5 });
      expect(await raw.get("wkr:scraper:h1:hardware")).toEqual(b('{"host": "h1", "cpus": 4, "name": "caf\\u00e9", "load": 0.5}'));
      expect(await raw.get("wkr:scraper:h1:gen")).toEqual(b("0"));
      expect(await raw.get("wkr:scraper:h1:config")).toEqual(b("{}"));
      expect(await raw.smembers("wkrs:scraper")).toEqual(["h1"]);
      expect(await raw.smembers("wkrs:all")).toEqual(["scraper|h1"]);
      await be.workerSetConfig("scraper", "h1", { slots: 2 });
      await be.workerRegister("scraper", "h1", { host: "h1b" });
      expect(await raw.get("wkr:scraper:h1:hardware")).toEqual(b('{"host": "h1b"}'));
      expect(await raw.get("wkr:scraper:h1:gen")).toEqual(b("1"));
      expect(await raw.get("wkr:scraper:h1:config")).toEqual(b('{"slots": 2}'));
      expect(await raw.smembers("wkrs:all")).toEqual(["scraper|h1"]);
    });

    it("reads config and gen, with Python's defaults for an unknown worker", async () => {
      expect(await be.workerGetConfig("t", "nobody")).toEqual({ config: {}, gen: 0 });
      await be.workerRegister("t", "w", {});
      expect(await be.workerGetConfig("t", "w")).toEqual({ config: {}, gen: 0 });
      await be.workerSetConfig("t", "w", { a: { b: [1, "x"] } });
      expect(await be.workerGetConfig("t", "w")).toEqual({ config: { a: { b: [1, "x"] } }, gen: 1 });
    });

    it("writes config as Python JSON and bumps gen, honouring expectedGen", async () => {
      await be.workerRegister("t", "w", {});
      expect(await be.workerSetConfig("t", "w", { slots: 4, name: "ü", r: 1.5 })).toEqual({ config: { slots: 4, name: "ü", r: 1.5 }, gen: 1 });
      expect(await raw.get("wkr:t:w:config")).toEqual(b('{"slots": 4, "name": "\\u00fc", "r": 1.5}'));
      expect(await raw.get("wkr:t:w:gen")).toEqual(b("1"));
      expect((await be.workerSetConfig("t", "w", { slots: 5 }, { expectedGen: 1 })).gen).toBe(2);
      const before = await snapshot(raw);
      const err = await be.workerSetConfig("t", "w", { slots: 9 }, { expectedGen: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StaleGenerationError);
      expect((err as StaleGenerationError).expectedGen).toBe(1);
      expect((err as StaleGenerationError).currentGen).toBe(2);
      expect(await snapshot(raw)).toEqual(before);
      // an unregistered worker starts from gen 0, as INCR does
      expect((await be.workerSetConfig("t", "new", {}, { expectedGen: 0 })).gen).toBe(1);
    });

    it("reads empty config and gen values as {} and 0, as Python does, and writes over them", async () => {
      await be.workerRegister("t", "w", { host: "h" });
      await raw.set("wkr:t:w:config", "");
      await raw.set("wkr:t:w:gen", "");
      expect(await be.workerGetConfig("t", "w")).toEqual({ config: {}, gen: 0 });
      expect(await be.workerGet("t", "w")).toMatchObject({ config: {}, configGen: 0, corrupt: [] });
      await raw.set("wkr:t:w:hardware", "");
      await raw.set("wkr:t:w:stats", "");
      expect(await be.workerGet("t", "w")).toMatchObject({ hardware: {}, stats: {}, corrupt: [] });
      const [entry] = await be.workersIndex([{ automationType: "t", workerId: "w" }], { hostname: true });
      expect(entry).toMatchObject({ hostname: null, corrupt: [] });
      // INCR refuses "", so the write stores the 1 it would have made from 0
      expect(await be.workerSetConfig("t", "w", { a: 1 }, { expectedGen: 0 })).toEqual({ config: { a: 1 }, gen: 1 });
      expect(await raw.get("wkr:t:w:gen")).toEqual(b("1"));
      await raw.set("wkr:t:w:gen", "");
      await expect(be.workerSetConfig("t", "w", { a: 2 }, { expectedGen: 3 })).rejects.toMatchObject({ currentGen: 0 });
      await raw.set("wkr:t:x:gen", "");
      expect(
        await be.workerSetConfigMany([
          { automationType: "t", workerId: "w", config: { a: 3 } },
          { automationType: "t", workerId: "x", config: {}, expectedGen: 0 },
        ]),
      ).toEqual([
        { automationType: "t", workerId: "w", gen: 1 },
        { automationType: "t", workerId: "x", gen: 1 },
      ]);
      expect(await raw.get("wkr:t:w:config")).toEqual(b('{"a": 3}'));
    });

    it("refuses a config write over a non-integer gen, writing nothing", async () => {
      await be.workerRegister("t", "w", {});
      await raw.set("wkr:t:w:gen", "abc");
      const before = await snapshot(raw);
      await expect(be.workerSetConfig("t", "w", { slots: 1 })).rejects.toThrow();
      await expect(be.workerSetConfig("t", "w", { slots: 1 }, { expectedGen: 0 })).rejects.toBeInstanceOf(StaleGenerationError);
      expect(await snapshot(raw)).toEqual(before);
    });

    it("rolls config out to many workers all-or-nothing", async () => {
      for (const id of ["a", "b", "c"]) await be.workerRegister("t", id, {});
      await be.workerSetConfig("t", "b", { v: 0 });
      const out = await be.workerSetConfigMany([
        { automationType: "t", workerId: "c", config: { v: 1 }, expectedGen: 0 },
        { automationType: "t", workerId: "a", config: { v: 1 } },
        { automationType: "t", workerId: "b", config: { v: 1 }, expectedGen: 1 },
      ]);
      expect(out).toEqual([
        { automationType: "t", workerId: "c", gen: 1 },
        { automationType: "t", workerId: "a", gen: 1 },
        { automationType: "t", workerId: "b", gen: 2 },
      ]);
      expect(await raw.get("wkr:t:a:config")).toEqual(b('{"v": 1}'));
      const before = await snapshot(raw);
      await expect(
        be.workerSetConfigMany([
          { automationType: "t", workerId: "a", config: { v: 2 }, expectedGen: 1 },
          { automationType: "t", workerId: "b", config: { v: 2 }, expectedGen: 1 },
          { automationType: "t", workerId: "c", config: { v: 2 } },
        ]),
      ).rejects.toBeInstanceOf(StaleGenerationError);
      expect(await snapshot(raw)).toEqual(before);
      expect(await be.workerSetConfigMany([])).toEqual([]);
    });

    it("writes state as the hash Python writes", async () => {
      await be.workerSetState("t", "w", "RUNNING", null, 1700000000);
      expect(await raw.hgetall("wkr:t:w:state")).toEqual({ state: b("RUNNING"), last_seen: b("1700000000.0"), last_error: b("") });
      await be.workerSetState("t", "w", "ERROR", "boom ü", 1700000000.25);
      expect(await raw.hgetall("wkr:t:w:state")).toEqual({ state: b("ERROR"), last_seen: b("1700000000.25"), last_error: b("boom ü") });
      expect(await raw.type("wkrs:t")).toBe("none");
    });

    it("writes stats as Python JSON", async () => {
      await be.workerSetStats("t", "w", { done: 3, rate: 0.25, tags: ["a"] });
      expect(await raw.get("wkr:t:w:stats")).toEqual(b('{"done": 3, "rate": 0.25, "tags": ["a"]}'));
    });

    it("pushes stats frames into a capped history", async () => {
      await be.workerStatsPush("t", "w", 100.5, { n: 1 });
      expect(await raw.zrange("wkr:t:w:stats:history")).toEqual([{ member: b('{"n": 1}'), score: 100.5 }]);
      for (let i = 2; i <= 6; i++) await be.workerStatsPush("t", "w", 100 + i, { n: i }, { maxEntries: 3 });
      expect((await raw.zrange("wkr:t:w:stats:history")).map((e) => e.score)).toEqual([104, 105, 106]);
      const many = Array.from({ length: 245 }, (_, i) => be.workerStatsPush("t", "cap", i, { i }));
      await Promise.all(many);
      const hist = await raw.zrange("wkr:t:cap:stats:history");
      expect(hist.length).toBe(240);
      expect(hist[0]!.score).toBe(5);
    });

    it("reads history as Python does: oldest `limit` frames from `since`, corrupt ones skipped", async () => {
      for (let i = 1; i <= 5; i++) await be.workerStatsPush("t", "w", 10 * i, { n: i });
      await raw.zadd("wkr:t:w:stats:history", 25, "not json");
      await raw.zadd("wkr:t:w:stats:history", 26, NOT_UTF8);
      expect(await be.workerStatsHistory("t", "w")).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
      // the limit applies before parsing, as Python's ZRANGEBYSCORE ... LIMIT does
      expect(await be.workerStatsHistory("t", "w", { since: 20, limit: 3 })).toEqual([{ n: 2 }]);
      expect(await be.workerStatsHistory("t", "w", { since: 30 })).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }]);
      expect(await be.workerStatsHistory("t", "none")).toEqual([]);
    });

    it("reads frames: newest `limit` after `since`, oldest first, corrupt ones included", async () => {
      for (let i = 1; i <= 5; i++) await be.workerStatsPush("t", "w", 10 * i, { n: i });
      await raw.zadd("wkr:t:w:stats:history", 45, NOT_UTF8);
      const f = await be.workerStatsFrames("t", "w", { limit: 3 });
      expect(f).toEqual([
        { ts: 40, frame: { n: 4 }, raw: b('{"n": 4}') },
        { ts: 45, frame: null, raw: NOT_UTF8 },
        { ts: 50, frame: { n: 5 }, raw: b('{"n": 5}') },
      ]);
      expect((await be.workerStatsFrames("t", "w", { since: 30, limit: 10 })).map((x) => x.ts)).toEqual([40, 45, 50]);
      expect((await be.workerStatsFrames("t", "w", { since: 10, limit: 2 })).map((x) => x.ts)).toEqual([45, 50]);
    });

    it("gets a worker as stored", async () => {
      expect(await be.workerGet("t", "w")).toBeNull();
      await be.workerSetState("t", "w", "IDLE", null, 1);
      expect(await be.workerGet("t", "w")).toBeNull();
      await be.workerRegister("t", "w", { host: "x" });
      await be.workerSetConfig("t", "w", { slots: 2 });
      await be.workerSetState("t", "w", "RUNNING", "warn", 1700000000.5);
      await be.workerSetStats("t", "w", { done: 1 });
      await be.workerStatsPush("t", "w", 1, { a: 1 });
      await be.workerStatsPush("t", "w", 2, { a: 2 });
      expect(await be.workerGet("t", "w")).toEqual({
        automationType: "t",
        workerId: "w",
        registered: true,
        hardware: { host: "x" },
        config: { slots: 2 },
        configGen: 1,
        state: "RUNNING",
        lastSeen: 1700000000.5,
        lastError: "warn",
        stats: { done: 1 },
        historyLen: 2,
        corrupt: [],
      });
      await be.workerSetState("t", "w", "IDLE", null, 2);
      expect(await be.workerGet("t", "w")).toMatchObject({ state: "IDLE", lastSeen: 2, lastError: null });
    });

    it("reports what a fresh registration leaves unset as null, not corrupt", async () => {
      await be.workerRegister("t", "w", {});
      expect(await be.workerGet("t", "w")).toEqual({
        automationType: "t",
        workerId: "w",
        registered: true,
        hardware: {},
        config: {},
        configGen: 0,
        state: null,
        lastSeen: null,
        lastError: null,
        stats: null,
        historyLen: 0,
        corrupt: [],
      });
    });

    it("reports corrupt values as null with their field named, never throwing", async () => {
      await be.workerRegister("t", "w", {});
      await raw.set("wkr:t:w:hardware", "not json");
      await raw.set("wkr:t:w:config", NOT_UTF8);
      await raw.set("wkr:t:w:gen", "12x");
      await raw.set("wkr:t:w:stats", "[1, 2]");
      await raw.hset("wkr:t:w:state", "state", "SLEEPING");
      await raw.hset("wkr:t:w:state", "last_seen", "soon");
      await raw.hset("wkr:t:w:state", "last_error", NOT_UTF8);
      const w = await be.workerGet("t", "w");
      expect(w).toMatchObject({ hardware: null, config: null, configGen: null, stats: null, state: null, lastSeen: null, lastError: null });
      expect([...w!.corrupt].sort()).toEqual(["config", "config_gen", "hardware", "last_error", "last_seen", "state", "stats"]);
      const [many] = await be.workersGet([{ automationType: "t", workerId: "w" }]);
      expect(many).toEqual(w);
    });

    it("reports a worker key of the wrong Redis type as corrupt, never throwing", async () => {
      await be.workerRegister("t", "w", {});
      await raw.del("wkr:t:w:hardware");
      await raw.hset("wkr:t:w:hardware", "f", "v");
      await raw.rpush("wkr:t:w:stats", "x");
      await raw.set("wkr:t:w:stats:history", "nope");
      await raw.set("wkr:t:w:state", "IDLE");
      const w = await be.workerGet("t", "w");
      expect(w).toMatchObject({ hardware: null, stats: null, config: {}, configGen: 0, historyLen: 0, state: null, lastSeen: null });
      // the key exists but cannot be read as what Fleet writes there: corrupt, not absent
      expect([...w!.corrupt].sort()).toEqual(["hardware", "state", "stats"]);
      expect((await be.workersGet([{ automationType: "t", workerId: "w" }]))[0]).toEqual(w);
    });

    it("names missing state fields as corrupt and keeps the rest", async () => {
      await be.workerRegister("t", "w", { a: 1 });
      await raw.hset("wkr:t:w:state", "state", "ERROR");
      const w = await be.workerGet("t", "w");
      expect(w).toMatchObject({ hardware: { a: 1 }, state: "ERROR", lastSeen: null, lastError: null });
      expect([...w!.corrupt].sort()).toEqual(["last_error", "last_seen"]);
      await raw.hset("wkr:t:w:state", "last_seen", "1700000000");
      await raw.hset("wkr:t:w:state", "last_error", "");
      const w2 = await be.workerGet("t", "w");
      expect(w2).toMatchObject({ state: "ERROR", lastSeen: 1700000000, lastError: null, corrupt: [] });
    });

    it("lists workers of one type or of all types", async () => {
      await be.workerRegister("a", "1", {});
      await be.workerRegister("a", "x:y", {});
      await be.workerRegister("b", "1", {});
      await raw.sadd("wkrs:all", "junk-without-bar");
      const sortRefs = (r: WorkerRef[]) => r.map((x) => `${x.automationType}|${x.workerId}`).sort();
      expect(sortRefs(await be.workerList())).toEqual(["a|1", "a|x:y", "b|1"]);
      expect(sortRefs(await be.workerList("a"))).toEqual(["a|1", "a|x:y"]);
      expect(await be.workerList("none")).toEqual([]);
    });

    it("gets many workers in the order asked, unregistered ones included", async () => {
      const refs: WorkerRef[] = [];
      for (let i = 0; i < 500; i++) refs.push({ automationType: i % 2 ? "odd" : "even", workerId: `w${i}` });
      await Promise.all(refs.map((r, i) => be.workerRegister(r.automationType, r.workerId, { i })));
      await Promise.all(refs.map((r, i) => be.workerSetState(r.automationType, r.workerId, "IDLE", null, 1000 + i)));
      const shuffled = [...refs].sort((x, y) => (x.workerId.length % 3) - (y.workerId.length % 3) || y.workerId.localeCompare(x.workerId));
      shuffled.splice(250, 0, { automationType: "even", workerId: "ghost" });
      const got = await be.workersGet(shuffled);
      expect(got.map((w) => `${w.automationType}|${w.workerId}`)).toEqual(shuffled.map((r) => `${r.automationType}|${r.workerId}`));
      for (const w of got) {
        if (w.workerId === "ghost") continue;
        const i = Number(w.workerId.slice(1));
        expect(w).toMatchObject({ registered: true, hardware: { i }, lastSeen: 1000 + i, state: "IDLE", corrupt: [] });
      }
      expect(got[250]).toEqual({
        automationType: "even",
        workerId: "ghost",
        registered: false,
        hardware: null,
        config: null,
        configGen: null,
        state: null,
        lastSeen: null,
        lastError: null,
        stats: null,
        historyLen: 0,
        corrupt: [],
      });
      expect(await be.workersGet([])).toEqual([]);
    });

    it("indexes workers: membership, state, last_seen and hostname, in the order asked", async () => {
      await be.workerRegister("b", "w2", { hostname: "host-two", cpus: 2 });
      await be.workerRegister("a", "w1", { hostname: "host-ü", extra: [1] });
      await be.workerSetState("a", "w1", "RUNNING", "boom", 1700000000.5);
      await be.workerSetState("b", "w2", "IDLE", null, 3);
      await be.workerSetConfig("a", "w1", { slots: 9 });
      await be.workerSetStats("a", "w1", { done: 1 });
      const refs: WorkerRef[] = [
        { automationType: "b", workerId: "w2" },
        { automationType: "a", workerId: "ghost" },
        { automationType: "a", workerId: "w1" },
      ];
      expect(await be.workersIndex(refs, { hostname: true })).toEqual([
        { automationType: "b", workerId: "w2", registered: true, state: "IDLE", lastSeen: 3, hostname: "host-two", corrupt: [] },
        { automationType: "a", workerId: "ghost", registered: false, state: null, lastSeen: null, hostname: null, corrupt: [] },
        { automationType: "a", workerId: "w1", registered: true, state: "RUNNING", lastSeen: 1700000000.5, hostname: "host-ü", corrupt: [] },
      ]);
      // without hostname: the hardware is not read at all
      expect((await be.workersIndex(refs)).map((e) => e.hostname)).toEqual([null, null, null]);
      expect(await be.workersIndex([])).toEqual([]);
      expect(await be.workersIndex([], { hostname: true })).toEqual([]);
    });

    it("reads workers whose type and id are not ASCII (multi-byte and astral characters)", async () => {
      const refs: WorkerRef[] = [
        { automationType: "tÿpe-ü", workerId: "wörker-😀" },
        { automationType: "tÿpe-ü", workerId: "plain" },
        { automationType: "ascii", workerId: "日本語:id" },
      ];
      for (const [i, r] of refs.entries()) {
        await be.workerRegister(r.automationType, r.workerId, { hostname: `h-${r.workerId}` });
        await be.workerSetState(r.automationType, r.workerId, "IDLE", null, 10 + i);
        await be.workerSetStats(r.automationType, r.workerId, { i });
      }
      expect(await raw.get("wkr:tÿpe-ü:wörker-😀:stats")).toEqual(b('{"i": 0}'));
      const got = await be.workersGet(refs);
      expect(got.map((w) => [w.workerId, w.registered, w.lastSeen, w.stats, w.hardware?.hostname])).toEqual(
        refs.map((r, i) => [r.workerId, true, 10 + i, { i }, `h-${r.workerId}`]),
      );
      const index = await be.workersIndex(refs, { hostname: true });
      expect(index.map((w) => [w.workerId, w.registered, w.state, w.lastSeen, w.hostname])).toEqual(refs.map((r, i) => [r.workerId, true, "IDLE", 10 + i, `h-${r.workerId}`]));
    });

    it("indexes corrupt and wrong-typed workers exactly as workersGet reads them", async () => {
      const cases: Array<[string, (id: string) => Promise<void>]> = [
        ["fine", async () => undefined],
        ["bad-state", async (id) => raw.hset(`wkr:t:${id}:state`, "state", "SLEEPING")],
        ["bad-seen", async (id) => raw.hset(`wkr:t:${id}:state`, "last_seen", "soon")],
        ["not-utf8-seen", async (id) => raw.hset(`wkr:t:${id}:state`, "last_seen", NOT_UTF8)],
        [
          "only-error",
          async (id) => {
            await raw.del(`wkr:t:${id}:state`);
            await raw.hset(`wkr:t:${id}:state`, "last_error", "x");
          },
        ],
        [
          "no-error-field",
          async (id) => {
            await raw.del(`wkr:t:${id}:state`);
            await raw.hset(`wkr:t:${id}:state`, "state", "ERROR");
            await raw.hset(`wkr:t:${id}:state`, "last_seen", "7");
          },
        ],
        [
          "state-string",
          async (id) => {
            await raw.del(`wkr:t:${id}:state`);
            await raw.set(`wkr:t:${id}:state`, "IDLE");
          },
        ],
        [
          "hardware-hash",
          async (id) => {
            await raw.del(`wkr:t:${id}:hardware`);
            await raw.hset(`wkr:t:${id}:hardware`, "hostname", "h");
          },
        ],
        ["hardware-not-json", async (id) => raw.set(`wkr:t:${id}:hardware`, '{"hostname": "h"')],
        ["hardware-not-utf8", async (id) => raw.set(`wkr:t:${id}:hardware`, Buffer.concat([b('{"hostname": "'), NOT_UTF8, b('"}')]))],
        ["hardware-array", async (id) => raw.set(`wkr:t:${id}:hardware`, '[{"hostname": "h"}]')],
        ["hostname-number", async (id) => raw.set(`wkr:t:${id}:hardware`, '{"hostname": 7}')],
        ["hostname-escaped", async (id) => raw.set(`wkr:t:${id}:hardware`, '{"host\\u006eame": "caf\\u00e9", "hostname ": 1}')],
        ["hardware-bom", async (id) => raw.set(`wkr:t:${id}:hardware`, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b('{"hostname": "bom"}')]))],
        ["hardware-absent", async (id) => raw.del(`wkr:t:${id}:hardware`)],
        [
          "unlisted",
          async (id) => {
            await be.workerRemove("t", id);
            await be.workerSetState("t", id, "IDLE", null, 5);
          },
        ],
      ];
      for (const [id, spoil] of cases) {
        await be.workerRegister("t", id, { hostname: `host-${id}` });
        await be.workerSetState("t", id, "RUNNING", null, 100);
        await spoil(id);
      }
      const refs = cases.map(([id]) => ({ automationType: "t", workerId: id }));
      const records = await be.workersGet(refs);
      for (const hostname of [false, true]) {
        const index = await be.workersIndex(refs, { hostname });
        const expected = records.map((r) => {
          const h = r.hardware?.hostname;
          return {
            automationType: r.automationType,
            workerId: r.workerId,
            registered: r.registered,
            state: r.state,
            lastSeen: r.lastSeen,
            hostname: hostname && typeof h === "string" ? h : null,
            corrupt: r.corrupt.filter((f) => f === "state" || f === "last_seen" || (hostname && f === "hardware")).sort(),
          };
        });
        expect(index.map((e) => ({ ...e, corrupt: [...e.corrupt].sort() }))).toEqual(expected);
      }
      // spot checks, so that the comparison above cannot pass by both reads being wrong alike
      const byId = new Map((await be.workersIndex(refs, { hostname: true })).map((e) => [e.workerId, e]));
      expect(byId.get("fine")).toMatchObject({ state: "RUNNING", lastSeen: 100, hostname: "host-fine", corrupt: [] });
      expect(byId.get("bad-state")).toMatchObject({ state: null, lastSeen: 100, corrupt: ["state"] });
      expect(byId.get("not-utf8-seen")).toMatchObject({ state: "RUNNING", lastSeen: null, corrupt: ["last_seen"] });
      expect([...byId.get("only-error")!.corrupt].sort()).toEqual(["last_seen", "state"]);
      expect(byId.get("no-error-field")).toMatchObject({ state: "ERROR", lastSeen: 7, corrupt: [] });
      expect(byId.get("state-string")).toMatchObject({ state: null, lastSeen: null, corrupt: ["state"] });
      expect(byId.get("hardware-hash")).toMatchObject({ hostname: null, corrupt: ["hardware"] });
      expect(byId.get("hardware-not-utf8")).toMatchObject({ hostname: null, corrupt: ["hardware"] });
      expect(byId.get("hostname-number")).toMatchObject({ hostname: null, corrupt: [] });
      expect(byId.get("hostname-escaped")).toMatchObject({ hostname: "café", corrupt: [] });
      expect(byId.get("hardware-bom")).toMatchObject({ hostname: "bom", corrupt: [] });
      expect(byId.get("hardware-absent")).toMatchObject({ hostname: null, corrupt: [] });
      expect(byId.get("unlisted")).toMatchObject({ registered: false, state: "IDLE", lastSeen: 5, hostname: null });
    });

    it("indexes the last_error text when asked, as workersLastError reads it, in the same read", async () => {
      const refs: WorkerRef[] = [];
      for (let i = 0; i < 30; i++) refs.push({ automationType: "t", workerId: `w${i}` });
      for (const [i, r] of refs.entries()) {
        await be.workerRegister(r.automationType, r.workerId, {});
        await be.workerSetState(r.automationType, r.workerId, i % 2 ? "ERROR" : "IDLE", i % 2 ? `failed ${i}` : null, 100 + i);
      }
      await raw.del("wkr:t:w3:state");
      await raw.hset("wkr:t:w3:state", "last_error", "only an error");
      await raw.hset("wkr:t:w5:state", "last_error", NOT_UTF8);
      await raw.del("wkr:t:w7:state");
      await raw.set("wkr:t:w7:state", "not a hash");
      await raw.del("wkr:t:w9:state");
      const plain = await be.workersIndex(refs);
      const withErrors = await be.workersIndex(refs, { lastError: true });
      const texts = await be.workersLastError(refs);
      expect(withErrors.map((e) => e.lastError)).toEqual(texts);
      expect(withErrors.map(({ lastError: _, ...e }) => e)).toEqual(plain);
      for (const e of plain) expect(e).not.toHaveProperty("lastError");
      expect(withErrors.slice(0, 4).map((e) => e.lastError)).toEqual([null, "failed 1", null, "only an error"]);
      expect(withErrors[3]).toMatchObject({ state: null, lastSeen: null });
      expect(withErrors[7]).toMatchObject({ lastError: null, corrupt: ["state"] });
      expect(withErrors[9]).toMatchObject({ lastError: null, state: null, corrupt: [] });
    });

    it("reads worker rows (workersRows) exactly as workersGet reads the records, without the history's length", async () => {
      // more workers of one type than one batched call holds, a second type, and keys of every odd kind
      const refs: WorkerRef[] = [];
      for (let i = 0; i < 700; i++) refs.push({ automationType: i % 5 === 0 ? "other" : "main", workerId: `w${i}` });
      for (let at = 0; at < refs.length; at += 100) {
        await Promise.all(
          refs.slice(at, at + 100).map(async (r, j) => {
            const i = at + j;
            await be.workerRegister(r.automationType, r.workerId, { hostname: `h${i}` });
            await be.workerSetState(r.automationType, r.workerId, i % 3 === 0 ? "ERROR" : "RUNNING", i % 3 === 0 ? `boom ${i}` : null, 1000 + i);
            if (i % 2 === 0) await be.workerSetStats(r.automationType, r.workerId, { n: i });
            if (i % 7 === 0) await be.workerStatsPush(r.automationType, r.workerId, 1000 + i, { n: i });
          }),
        );
      }
      await raw.set("wkr:main:w1:stats:history", "not a zset");
      await raw.set("wkr:main:w2:state", "IDLE");
      await raw.set("wkr:main:w3:config", "{nope");
      await raw.del("wkr:main:w4:stats");
      await raw.hset("wkr:main:w4:stats", "n", "1");
      await raw.set("wkr:main:w6:gen", "x");
      await be.workerRemove("main", "w8");
      await be.workerSetState("main", "w8", "IDLE", null, 5);
      const asked = [...refs, { automationType: "main", workerId: "ghost" }];
      const records = await be.workersGet(asked);
      const rows = await be.workersRows(asked);
      expect(rows).toEqual(records.map(({ historyLen: _, ...row }) => row));
      for (const row of rows) expect(row).not.toHaveProperty("historyLen");
      // spot checks, so that the comparison cannot pass by both reads being wrong alike
      const byId = new Map(rows.map((r) => [r.workerId, r]));
      expect(byId.get("w0")).toMatchObject({
        automationType: "other",
        registered: true,
        state: "ERROR",
        lastError: "boom 0",
        lastSeen: 1000,
        stats: { n: 0 },
        hardware: { hostname: "h0" },
      });
      expect(byId.get("w1")).toMatchObject({ state: "RUNNING", lastError: null, stats: null, corrupt: [] });
      expect(byId.get("w2")!.corrupt).toEqual(["state"]);
      expect(byId.get("w3")).toMatchObject({ config: null, corrupt: ["config"] });
      expect(byId.get("w4")).toMatchObject({ stats: null, corrupt: ["stats"] });
      expect(byId.get("w6")).toMatchObject({ configGen: null, corrupt: ["config_gen"] });
      expect(byId.get("w8")).toMatchObject({ registered: false, lastSeen: 5 });
      expect(byId.get("ghost")).toMatchObject({ registered: false, hardware: null, state: null });
      expect(records[7]!.historyLen).toBe(1);
      expect(await be.workersRows([])).toEqual([]);
    });

    it("removes every key of one worker, never a worker whose id extends it", async () => {
      for (const id of ["a", "a:b", "a*", "a[1]", "ab"]) {
        await be.workerRegister("t", id, { id });
        await be.workerSetState("t", id, "IDLE", null, 1);
        await be.workerSetStats("t", id, {});
        await be.workerStatsPush("t", id, 1, {});
      }
      const others = (await snapshot(raw)) as Record<string, { value: unknown }>;
      expect(await be.workerRemove("t", "a")).toBe(true);
      const after = (await snapshot(raw)) as Record<string, { value: unknown }>;
      expect(Object.keys(after).filter((k) => k.startsWith("wkr:t:a:") && !k.startsWith("wkr:t:a:b:"))).toEqual([]);
      for (const [k, v] of Object.entries(others)) {
        if (k.startsWith("wkr:t:a:") && !k.startsWith("wkr:t:a:b:")) continue;
        if (k.startsWith("wkrs:")) continue;
        expect(after[k], k).toEqual(v);
      }
      expect(await raw.smembers("wkrs:t")).toEqual(["a*", "a:b", "a[1]", "ab"]);
      expect(await raw.smembers("wkrs:all")).toEqual(["t|a*", "t|a:b", "t|a[1]", "t|ab"]);
      expect(await be.workerGet("t", "a")).toBeNull();
      expect((await be.workerGet("t", "a:b"))?.hardware).toEqual({ id: "a:b" });
      expect(await be.workerRemove("t", "a")).toBe(false);
      expect(await be.workerRemove("t", "a*")).toBe(true);
      expect((await be.workerGet("t", "a[1]"))?.historyLen).toBe(1);
    });

    it("removes what a half-registered worker left behind", async () => {
      await be.workerSetState("t", "half", "IDLE", null, 1);
      await be.workerStatsPush("t", "half", 1, {});
      await raw.sadd("wkrs:all", "t|half");
      await raw.sadd("wkrs:all", "t|other");
      expect(await be.workerRemove("t", "half")).toBe(true);
      expect(await raw.keys()).toEqual(["wkrs:all"]);
      expect(await raw.smembers("wkrs:all")).toEqual(["t|other"]);
      expect(await be.workerRemove("t", "half")).toBe(false);
    });
  });
}
