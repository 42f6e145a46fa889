// The scale half of the Backend contract (issue 11): dead-letter actions that find their
// entries outside Redis and remove them body by body, chunked actions on long lists, and
// the name discovery. Run by both contract-*.test.ts files beside the main suite, with the
// same fixture; kept in its own file so the two halves can grow without conflicts.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha1Hex } from "../src/codec";
import { pyJsonBytes } from "../src/pyjson";
import { NameDiscovery } from "../src/discovery/name-discovery";
import { noteWrites } from "../src/discovery/note-writes";
import type { Backend } from "../src/types";
import type { BackendFixture, RawPlanter } from "./contract";

const body = (id: string | number, payload: unknown = {}) => pyJsonBytes({ id, payload });
const texts = (bufs: Buffer[]) => bufs.map((x) => x.toString("utf8"));
const now = () => Date.now() / 1000;

/** Small SCAN steps (several per pass even on a test's few keys), no pauses between passes worth waiting for. */
function smallSteps(be: Backend, extra: ConstructorParameters<typeof NameDiscovery>[1] = {}): NameDiscovery {
  return new NameDiscovery(be, { stepIntervalMs: 5, minCount: 2, maxCount: 3, minPassIntervalMs: 5, liveEvents: false, ...extra });
}

/** One key of every kind, plus keys of other applications around them. */
async function plantEveryKind(raw: RawPlanter): Promise<void> {
  await raw.rpush("fleet:queue:jobs:dead", "x");
  await raw.zadd("fleet:queue:q:2:processing", now() + 60, "id");
  await raw.hset("fleet:queue:stray:processing:body", "id", "x");
  await raw.hset("fleet:pool:proxies", "p1", "x");
  await raw.set("fleet:pool:ghost:claim:p1", "1");
  await raw.zadd("stream:scraper", 1, "e");
  await raw.set("fleet:lock:nightly", "token");
  await raw.set("fleet:counter:hits", "3");
  await raw.set("fleet:kv:settings:site:main", "1");
  await raw.set("fleet:kv:settings:motd", "2");
  await raw.set("fleet:kv:other:k", "3");
  for (const k of ["app:1", "sessions:abc", "fleetish", "streams", "slrat:x", "fleet:catalog", "fleet:console:audit"]) await raw.set(k, "foreign");
}

export function describeScaleContract(name: string, factory: () => Promise<BackendFixture>): void {
  describe(`Backend contract, scale: ${name}`, () => {
    let be: Backend;
    let raw: RawPlanter;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ backend: be, plantRaw: raw, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    describe("dead letters by ref", () => {
      it("locates each ref's first occurrence, across chunks, and names the missing ones in the order given", async () => {
        const bodies = Array.from({ length: 2600 }, (_, i) => body(`d${i}`));
        await raw.rpush("fleet:queue:q:dead", ...bodies);
        const gone = sha1Hex("gone");
        const res = await be.dlqLocate("q", [sha1Hex(bodies[2550]!), gone, sha1Hex(bodies[3]!).toUpperCase(), gone]);
        expect(res.missing).toEqual([gone]);
        expect(res.found.map((m) => [m.ref, m.index, m.body.toString()]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
          [sha1Hex(bodies[3]!), 3, bodies[3]!.toString()],
          [sha1Hex(bodies[2550]!), 2550, bodies[2550]!.toString()],
        ]);
        // locating changes nothing
        expect(await be.dlqLength("q")).toBe(2600);
      });

      it("never removes a body that changed at its place meanwhile: the ref is reported missing", async () => {
        const [a, b, c] = [body("a"), body("b"), body("c")];
        await raw.rpush("fleet:queue:q:dead", a, b, c);
        const { found } = await be.dlqLocate("q", [sha1Hex(b)]);
        expect(found.map((m) => m.index)).toEqual([1]);
        // another writer replaces the entry at index 1 between the two steps
        const changed = body("b", { retried: true });
        await raw.del("fleet:queue:q:dead");
        await raw.rpush("fleet:queue:q:dead", a, changed, c);
        expect(await be.dlqTake("q", found, "delete")).toEqual({ count: 0, missing: [sha1Hex(b)] });
        expect(await be.dlqTake("q", found, "requeue")).toEqual({ count: 0, missing: [sha1Hex(b)] });
        expect(texts(await raw.lrange("fleet:queue:q:dead"))).toEqual(texts([a, changed, c]));
        expect(await raw.type("fleet:queue:q")).toBe("none");
      });

      it("reports a body moved away meanwhile as missing and still takes the others, found by their bytes wherever they moved", async () => {
        const [a, b, c] = [body("a"), body("b"), body("c")];
        await raw.rpush("fleet:queue:q:dead", a, b, c);
        const { found } = await be.dlqLocate("q", [sha1Hex(a), sha1Hex(c)]);
        // meanwhile: `a` is popped (requeued elsewhere), two new dead letters arrive in front
        expect(texts(await be.dlqPop("q", 1))).toEqual(texts([a]));
        await raw.del("fleet:queue:q:dead");
        await raw.rpush("fleet:queue:q:dead", body("x"), body("y"), b, c);
        expect(await be.dlqTake("q", found, "requeue")).toEqual({ count: 1, missing: [sha1Hex(a)] });
        expect(texts(await raw.lrange("fleet:queue:q:dead"))).toEqual(texts([body("x"), body("y"), b]));
        expect(texts(await raw.lrange("fleet:queue:q"))).toEqual(texts([c]));
      });

      it("requeues every copy, refs in the order of their first occurrence, each body moved whole", async () => {
        const [a, b, c] = [body("a"), body("b"), body("c")];
        await raw.rpush("fleet:queue:q:dead", c, a, b, a, c, c);
        const res = await be.dlqRequeue("q", { refs: [sha1Hex(a), sha1Hex(c)] });
        expect(res).toEqual({ requeued: 5, missing: [] });
        expect(texts(await raw.lrange("fleet:queue:q"))).toEqual(texts([c, c, c, a, a]));
        expect(texts(await raw.lrange("fleet:queue:q:dead"))).toEqual(texts([b]));
      });

      it("deletes by ref deep in a long list and leaves every other entry in order", async () => {
        const bodies = Array.from({ length: 3000 }, (_, i) => body(`d${i}`));
        await raw.rpush("fleet:queue:q:dead", ...bodies);
        const res = await be.dlqDelete("q", { refs: [sha1Hex(bodies[2999]!), sha1Hex(bodies[1500]!)] });
        expect(res).toEqual({ deleted: 2, missing: [] });
        const left = await raw.lrange("fleet:queue:q:dead");
        expect(left.length).toBe(2998);
        expect(texts(left)).toEqual(texts(bodies.filter((_, i) => i !== 1500 && i !== 2999)));
      });

      it("takes every copy of a body wherever it is in a long list (head, middle, tail), everything else left in order", async () => {
        const bodies = Array.from({ length: 3000 }, (_, i) => body(`d${i}`));
        const dup = body("dup");
        bodies[0] = dup;
        bodies[1500] = dup;
        bodies[2999] = dup;
        const other = bodies[2000]!;
        await raw.rpush("fleet:queue:q:dead", ...bodies);
        expect(await be.dlqDelete("q", { refs: [sha1Hex(dup), sha1Hex(other)] })).toEqual({ deleted: 4, missing: [] });
        expect(texts(await raw.lrange("fleet:queue:q:dead"))).toEqual(texts(bodies.filter((b, i) => b !== dup && i !== 2000)));
        await raw.rpush("fleet:queue:q:dead", dup, dup);
        expect(await be.dlqRequeue("q", { refs: [sha1Hex(dup)] })).toEqual({ requeued: 2, missing: [] });
        expect(texts(await raw.lrange("fleet:queue:q"))).toEqual(texts([dup, dup]));
        expect(await be.dlqLength("q")).toBe(2996);
      });
    });

    describe("actions on whole lists", () => {
      it("requeues all of a long dead-letter list in order, after what was pending", async () => {
        const bodies = Array.from({ length: 2500 }, (_, i) => body(`d${i}`));
        await raw.rpush("fleet:queue:q:dead", ...bodies);
        await raw.rpush("fleet:queue:q", body("pending"));
        expect(await be.dlqRequeue("q", { all: true })).toEqual({ requeued: 2500, missing: [] });
        expect(texts(await raw.lrange("fleet:queue:q"))).toEqual(texts([body("pending"), ...bodies]));
        expect(await raw.type("fleet:queue:q:dead")).toBe("none");
      });

      it("sweeps thousands of expired reservations, orphans included, and leaves the live ones", async () => {
        const past = Date.now() / 1000 - 100;
        for (let i = 0; i < 2300; i++) {
          await raw.zadd("fleet:queue:q:processing", past + i / 100, `t${i}`);
          if (i % 1000 !== 7) await raw.hset("fleet:queue:q:processing:body", `t${i}`, body(`t${i}`));
        }
        await raw.zadd("fleet:queue:q:processing", past + 1e6, "live");
        await raw.hset("fleet:queue:q:processing:body", "live", body("live"));
        const res = await be.queueSweepExpired("q");
        expect(res).toEqual({ requeued: 2297, orphaned: ["t7", "t1007", "t2007"] });
        const normal = texts(await raw.lrange("fleet:queue:q"));
        expect(normal.length).toBe(2297);
        expect(normal[0]).toBe(body("t0").toString());
        expect(normal.at(-1)).toBe(body("t2299").toString());
        expect((await raw.zrange("fleet:queue:q:processing")).map((m) => m.member.toString())).toEqual(["live"]);
        expect(Object.keys(await raw.hgetall("fleet:queue:q:processing:body"))).toEqual(["live"]);
      });

      it("deletes all dead letters, answering how many there were", async () => {
        await raw.rpush("fleet:queue:q:dead", ...Array.from({ length: 1500 }, (_, i) => body(i)));
        expect(await be.dlqDelete("q", { all: true })).toEqual({ deleted: 1500, missing: [] });
        expect(await raw.type("fleet:queue:q:dead")).toBe("none");
      });
    });

    describe("discovery primitives", () => {
      it("walks the key space step by step: every Fleet key once the walk ends, no foreign key", async () => {
        await plantEveryKind(raw);
        const seen: string[] = [];
        let cursor = "0";
        let steps = 0;
        do {
          const page = await be.keyScan(cursor, 2);
          seen.push(...page.keys);
          cursor = page.cursor;
          steps++;
        } while (cursor !== "0" && steps < 10_000);
        expect([...new Set(seen)].sort()).toEqual(
          [
            "fleet:catalog",
            "fleet:console:audit",
            "fleet:counter:hits",
            "fleet:kv:other:k",
            "fleet:kv:settings:motd",
            "fleet:kv:settings:site:main",
            "fleet:lock:nightly",
            "fleet:pool:ghost:claim:p1",
            "fleet:pool:proxies",
            "fleet:queue:jobs:dead",
            "fleet:queue:q:2:processing",
            "fleet:queue:stray:processing:body",
            "stream:scraper",
          ].sort(),
        );
        expect(await be.keyCount()).toBe(18);
      });

      it("counts the worker index without reading it", async () => {
        expect(await be.workerCount()).toBe(0);
        await be.workerRegister("t", "a", {});
        await be.workerRegister("t", "b", {});
        await raw.sadd("wkrs:all", "no-separator");
        expect(await be.workerCount()).toBe(3);
      });

      it("reads live figures of named locks, counters, queues and kv keys, leaving out what does not exist", async () => {
        await plantEveryKind(raw);
        await raw.set("fleet:counter:bad", "x1");
        expect(await be.lockSummaries(["nightly", "gone"])).toEqual([{ name: "nightly", ttlMs: null }]);
        expect((await be.counterSummaries(["hits", "gone", "bad"])).map((c) => [c.name, c.value])).toEqual([
          ["hits", 3],
          ["bad", null],
        ]);
        expect(await be.queuesExist(["jobs", "q:2", "stray", "proxies", "q"])).toEqual([true, true, true, false, false]);
        expect((await be.kvKeySummaries("settings", ["motd", "gone", "site:main"])).map((k) => [k.key, k.bytes])).toEqual([
          ["motd", 1],
          ["site:main", 1],
        ]);
      });

      it("pages a kv namespace with a cursor: every key once, sorted within a page, no key of another namespace", async () => {
        for (let i = 0; i < 25; i++) await raw.set(`fleet:kv:big:k${String(i).padStart(2, "0")}`, "v");
        await raw.set("fleet:kv:bigger:k", "v");
        await raw.set("fleet:kv:b*g:k", "v");
        const got: string[] = [];
        let cursor = "0";
        let pages = 0;
        do {
          const page = await be.kvKeysPage("big", cursor, 4);
          const names = page.keys.map((k) => k.key);
          expect(names).toEqual([...names].sort());
          got.push(...names);
          cursor = page.cursor;
          pages++;
        } while (cursor !== "0" && pages < 1000);
        expect(got.sort()).toEqual(Array.from({ length: 25 }, (_, i) => `k${String(i).padStart(2, "0")}`));
        expect(pages).toBeGreaterThan(1);
        expect((await be.kvKeysPage("b*g", "0", 10)).keys.map((k) => k.key)).toEqual(["k"]);
        await expect(be.kvKeysPage("big", "not a cursor", 4)).rejects.toThrow(/cursor/);
      });
    });

    describe("name discovery", () => {
      let d: NameDiscovery | null = null;
      afterEach(async () => {
        await d?.close();
        d = null;
      });

      it("finds every kind of name by walking, and drops a deleted one with the next pass", async () => {
        await plantEveryKind(raw);
        d = smallSteps(be);
        await d.refresh();
        expect(await d.names("queue")).toEqual(["jobs", "q:2", "stray"]);
        expect(await d.names("pool")).toEqual(["proxies"]);
        expect(await d.names("stream")).toEqual(["scraper"]);
        expect(await d.names("lock")).toEqual(["nightly"]);
        expect(await d.names("counter")).toEqual(["hits"]);
        expect(await d.kvNamespaces()).toEqual([
          { ns: "other", keys: 1 },
          { ns: "settings", keys: 2 },
        ]);
        expect(await d.kvKeys("settings")).toEqual({ keys: ["motd", "site:main"], count: 2 });
        expect(d.status().passes).toBe(1);
        expect(d.status().scanSteps).toBeGreaterThan(3);

        await raw.del("fleet:queue:stray:processing:body");
        await raw.del("fleet:lock:nightly");
        await raw.del("fleet:kv:other:k");
        await raw.set("fleet:counter:new", "1");
        await d.refresh();
        expect(await d.names("queue")).toEqual(["jobs", "q:2"]);
        expect(await d.names("lock")).toEqual([]);
        expect(await d.names("counter")).toEqual(["hits", "new"]);
        expect(await d.kvNamespaces()).toEqual([{ ns: "settings", keys: 2 }]);
      });

      it("keeps walking by itself: a name created by someone else appears, a deleted one goes", async () => {
        d = smallSteps(be);
        expect(await d.names("queue")).toEqual([]);
        await raw.rpush("fleet:queue:late", "x");
        let until = Date.now() + 20_000;
        while (!(await d.names("queue")).includes("late") && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        expect(await d.names("queue")).toEqual(["late"]);
        await raw.del("fleet:queue:late");
        until = Date.now() + 20_000;
        while ((await d.names("queue")).includes("late") && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        expect(await d.names("queue")).toEqual([]);
      });

      it("knows the console's own writes at once, before any further pass", async () => {
        d = smallSteps(be, { minPassIntervalMs: 3_600_000, stepIntervalMs: 3_600_000 });
        await d.refresh();
        const passes = d.status().passes;
        const own = noteWrites(be, d);
        await own.queuePush("jobs", body(1));
        await own.poolPut("proxies", "p1", "x", {});
        await own.streamPush("scraper", "e", { score: now(), maxLen: 10, ttlSeconds: 60 });
        expect(await own.lockAcquire("nightly", 30, 0)).not.toBeNull();
        await own.counterIncr("hits", 1);
        await own.kvSet("settings", "motd", "hi");
        await own.kvSet("settings", "motd", "again");
        expect(await d.names("queue")).toEqual(["jobs"]);
        expect(await d.names("pool")).toEqual(["proxies"]);
        expect(await d.names("stream")).toEqual(["scraper"]);
        expect(await d.names("lock")).toEqual(["nightly"]);
        expect(await d.names("counter")).toEqual(["hits"]);
        expect(await d.kvNamespaces()).toEqual([{ ns: "settings", keys: 1 }]);
        expect(await own.kvDel("settings", "motd")).toBe(true);
        expect(await own.lockForceRelease("nightly")).toBe(true);
        expect(await d.kvNamespaces()).toEqual([]);
        expect(await d.names("lock")).toEqual([]);
        expect(d.status().passes).toBe(passes);
        // the wrapped backend is the backend otherwise
        expect(own.kind).toBe(be.kind);
        expect(await own.queueSize("jobs")).toBe(1);
      });

      it("takes catalog types as queue and stream candidates, and learns a name from the bus at once", async () => {
        await be.catalogSet("scraper", "{}");
        d = smallSteps(be, { minPassIntervalMs: 3_600_000 });
        await d.refresh();
        expect(await d.names("queue")).toEqual(["scraper"]);
        expect(await d.names("stream")).toEqual(["scraper"]);
        d.learn("stream", "emitter");
        expect(await d.names("stream")).toEqual(["emitter", "scraper"]);
      });

      it("drops a learnt name that has no key once a whole pass has not seen it", async () => {
        d = smallSteps(be);
        await d.refresh();
        d.learn("queue", "phantom");
        expect(await d.names("queue")).toEqual(["phantom"]);
        await d.refresh();
        expect(await d.names("queue")).toEqual([]);
      });

      it("keeps the key names of a small kv namespace and only counts a big one", async () => {
        for (let i = 0; i < 6; i++) await raw.set(`fleet:kv:big:k${i}`, "v");
        await raw.set("fleet:kv:small:a", "v");
        d = smallSteps(be, { smallNamespaceKeys: 3 });
        await d.refresh();
        expect(await d.kvKeys("small")).toEqual({ keys: ["a"], count: 1 });
        const big = await d.kvKeys("big");
        expect(big.keys).toBeNull();
        expect(big.count).toBeGreaterThanOrEqual(6);
        expect(await d.kvKeys("none")).toEqual({ keys: [], count: 0 });
      });
    });
  });
}
