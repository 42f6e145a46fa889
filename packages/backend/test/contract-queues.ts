// The Backend contract on queues and their dead letters: push, reserve, ack/nack/fail, sweep,
// dead letters, names, depths, detail. A part of describeBackendContract (./contract.ts), run on
// both implementations by contract-memory.test.ts and contract-redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import { sha1Hex } from "../src/codec";
import { keys } from "../src/keys";
import { pyFloatRepr } from "../src/pyjson";
import { taskIdOfBody } from "../src/task-body";
import type { Backend } from "../src/types";
import { b, body, NOT_UTF8, now, sleep, snapshot, texts, type ContractState, type RawPlanter } from "./contract-support";
import { TASK_ID_CASES } from "./task-ids";

export function queuesContract(state: ContractState): void {
  describe("queues", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("pushes by priority (int or name) onto the high, normal and low lists", async () => {
      await be.queuePush("q", "n1");
      await be.queuePush("q", "h1", { priority: 5 });
      await be.queuePush("q", "l1", { priority: -1 });
      await be.queuePush("q", "h2", { priority: "high" });
      await be.queuePush("q", "n2", { priority: 0 });
      await be.queuePush("q", "l2", { priority: "low" });
      await be.queuePush("q", NOT_UTF8, { priority: "normal" });
      expect(texts(await raw.lrange("fleet:queue:q:high"))).toEqual(["h1", "h2"]);
      expect((await raw.lrange("fleet:queue:q")).slice(0, 2).map(String)).toEqual(["n1", "n2"]);
      expect((await raw.lrange("fleet:queue:q"))[2]).toEqual(NOT_UTF8);
      expect(texts(await raw.lrange("fleet:queue:q:low"))).toEqual(["l1", "l2"]);
      expect(await be.queueSize("q")).toBe(7);
      expect(texts(await be.queuePeek("q", 3))).toEqual(["h1", "h2", "n1"]);
      expect((await be.queuePeek("q", 10)).length).toBe(7);
      expect(await be.queuePeek("q", 0)).toEqual([]);
      expect(await be.queueSize("q")).toBe(7);
    });

    it("pushes many at once, in order, each to its priority list", async () => {
      await be.queuePushMany("q", [{ body: "a" }, { body: "b", priority: "high" }, { body: "c", priority: "low" }, { body: "d", priority: "normal" }]);
      expect(texts(await raw.lrange("fleet:queue:q"))).toEqual(["a", "d"]);
      expect(texts(await raw.lrange("fleet:queue:q:high"))).toEqual(["b"]);
      expect(texts(await raw.lrange("fleet:queue:q:low"))).toEqual(["c"]);
      await be.queuePushMany("q", []);
      expect(await be.queueSize("q")).toBe(4);
    });

    it("reserves high, then normal, then low, FIFO within each", async () => {
      await be.queuePush("q", body("l"), { priority: -1 });
      await be.queuePush("q", body("n1"));
      await be.queuePush("q", body("h1"), { priority: 1 });
      await be.queuePush("q", body("n2"));
      await be.queuePush("q", body("h2"), { priority: 1 });
      const got: string[] = [];
      for (let i = 0; i < 5; i++) got.push(JSON.parse(String(await be.queueReserve("q", 0, 30))).id as string);
      expect(got).toEqual(["h1", "h2", "n1", "n2", "l"]);
      expect(await be.queueReserve("q", 0, 30)).toBeNull();
    });

    it("registers a reserved body in :processing with its deadline and in :processing:body", async () => {
      const bd = body("t1", { x: 1 });
      await be.queuePush("q", bd);
      const t0 = now();
      expect(await be.queueReserve("q", 0, 30)).toEqual(bd);
      const t1 = now();
      const proc = await raw.zrange("fleet:queue:q:processing");
      expect(proc.map((e) => e.member.toString())).toEqual(["t1"]);
      // 30 s after the reserve, which happened between t0 and t1
      expect(proc[0]!.score).toBeGreaterThanOrEqual(t0 + 29.9);
      expect(proc[0]!.score).toBeLessThanOrEqual(t1 + 30.01);
      expect(await raw.hgetall("fleet:queue:q:processing:body")).toEqual({ t1: bd });
      expect(await raw.type("fleet:queue:q")).toBe("none");
      await be.queuePush("q", '{"id": true}');
      await be.queuePush("q", '{"id": 1.5}');
      await be.queueReserve("q", 0, 30);
      await be.queueReserve("q", 0, 30);
      // str(envelope["id"]) as Python writes it
      expect(Object.keys(await raw.hgetall("fleet:queue:q:processing:body")).sort()).toEqual(["1.5", "True", "t1"]);
      await be.queueAck("q", "True");
      await be.queueAck("q", "1.5");
      await be.queuePush("q", '{"id": 7, "payload": null}');
      await be.queueReserve("q", 0, 0);
      const p2 = await raw.zrange("fleet:queue:q:processing");
      expect(p2.map((e) => e.member.toString()).sort()).toEqual(["7", "t1"]);
      // Python gives at least one second of visibility
      expect(p2.find((e) => e.member.toString() === "7")!.score).toBeGreaterThanOrEqual(t0 + 0.99);
    });

    it("delivers a body with no usable id once and leaves it unregistered", async () => {
      const bad = [b("not json"), b('{"payload": 1}'), b('{"id": "", "payload": 1}'), b('{"id": [1]}'), b("[1, 2]"), NOT_UTF8];
      for (const x of bad) await be.queuePush("q", x);
      for (const x of bad) expect(await be.queueReserve("q", 0, 30)).toEqual(x);
      expect(await be.queueReserve("q", 0, 30)).toBeNull();
      expect(await raw.keys()).toEqual([]);
      expect((await be.queueDepths(["q"]))[0]!.processing).toBe(0);
    });

    it("registers the one task id of src/task-body.ts for every body of the shared table", async () => {
      // one queue per case: several cases share an id ("inf", "-0.0")
      const q = (i: number) => `ids:${i}`;
      for (const [i, c] of TASK_ID_CASES.entries()) await be.queuePush(q(i), c.body);
      for (const [i, c] of TASK_ID_CASES.entries()) {
        expect(await be.queueReserve(q(i), 0, 30), c.name).toEqual(c.body);
        const registered = await raw.hgetall(keys.queueProcessingBody(q(i)));
        expect(registered, c.name).toEqual(c.id === null ? {} : { [c.id]: c.body });
        expect(taskIdOfBody(c.body), c.name).toBe(c.id);
      }
    });

    it("registers float ids as Python's repr of the float, for any double", async () => {
      const xs = Array.from({ length: 300 }, (_, i) => (i % 2 ? -1 : 1) * Math.random() * 10 ** Math.floor(Math.random() * 60 - 30));
      xs.push(0.1, 0.2 + 0.1, 1 / 3, 2 ** 53, 2 ** 53 + 2, 1e15 + 0.3, 123456789.125, 5e-324, 2.2250738585072014e-308, Number.MAX_VALUE);
      const literal = (x: number) => (/[.e]/.test(String(x)) ? String(x) : `${x}.0`);
      for (const x of xs) await be.queuePush("f", `{"id": ${literal(x)}}`);
      for (let i = 0; i < xs.length; i++) await be.queueReserve("f", 0, 30);
      const ids = Object.keys(await raw.hgetall(keys.queueProcessingBody("f"))).sort();
      expect(ids).toEqual([...new Set(xs.map((x) => pyFloatRepr(x)))].sort());
    });

    it("waits up to the timeout for a body, and wakes for a push", async () => {
      // timeout 0 does not wait: it answers long before the 10 s this guards against (no latency claim)
      let start = Date.now();
      expect(await be.queueReserve("q", 0, 30)).toBeNull();
      expect(Date.now() - start).toBeLessThan(10_000);
      // a timeout is waited out in full: timers never fire early, so this bound holds under any load
      start = Date.now();
      expect(await be.queueReserve("q", 0.4, 30)).toBeNull();
      expect(Date.now() - start).toBeGreaterThanOrEqual(350);
      // the push wakes it: the reserve is still waiting when the body is pushed, and answers
      // the body, which it could not after its 30 s timeout (then it answers null)
      let settled = false;
      const reserving = be.queueReserve("q", 30, 30).finally(() => (settled = true));
      await sleep(200); // shapes the race (the reserver is waiting by now); proves nothing
      expect(settled).toBe(false);
      await be.queuePush("q", body("w"));
      expect(await reserving).toEqual(body("w"));
      expect((await raw.zrange("fleet:queue:q:processing")).map((e) => String(e.member))).toEqual(["w"]);
    });

    it("hands each body to exactly one of many concurrent reservers", async () => {
      for (let i = 0; i < 20; i++) await be.queuePush("q", body(`t${i}`));
      const got = await Promise.all(Array.from({ length: 25 }, () => be.queueReserve("q", 0, 30)));
      const ids = got.filter((g) => g !== null).map((g) => String(JSON.parse(String(g)).id));
      expect(ids.length).toBe(20);
      expect(new Set(ids).size).toBe(20);
      expect((await raw.zrange("fleet:queue:q:processing")).length).toBe(20);
    });

    it("drains due :scheduled bodies onto the normal list on reserve, keeping future ones", async () => {
      await raw.zadd("fleet:queue:q:scheduled", now() - 10, body("due1"));
      await raw.zadd("fleet:queue:q:scheduled", now() - 5, body("due2"));
      await raw.zadd("fleet:queue:q:scheduled", now() + 100, body("future"));
      await be.queuePush("q", body("n"));
      await be.queuePush("q", body("h"), { priority: "high" });
      expect(await be.queueReserve("q", 0, 30)).toEqual(body("h"));
      expect(texts(await raw.lrange("fleet:queue:q"))).toEqual([body("n"), body("due1"), body("due2")].map(String));
      expect((await raw.zrange("fleet:queue:q:scheduled")).map((e) => e.member)).toEqual([body("future")]);
      expect(await be.queueReserve("q", 0, 30)).toEqual(body("n"));
      expect(await be.queueReserve("q", 0, 30)).toEqual(body("due1"));
      expect(await be.queueReserve("q", 0, 30)).toEqual(body("due2"));
      expect(await be.queueReserve("q", 0, 30)).toBeNull();
    });

    it("acks: ends the reservation once", async () => {
      await be.queuePush("q", body("a"));
      await be.queueReserve("q", 0, 30);
      expect(await be.queueAck("q", "a")).toBe(true);
      expect(await be.queueAck("q", "a")).toBe(false);
      expect(await raw.keys()).toEqual([]);
    });

    it("nacks: straight back to the tail of the normal list, or into :scheduled with a delay", async () => {
      await be.queuePush("q", body("a"));
      await be.queuePush("q", body("b"));
      await be.queuePush("q", body("c"));
      const a = (await be.queueReserve("q", 0, 30))!;
      expect(await be.queueNack("q", "a", a, { delaySeconds: 0 })).toBe(true);
      expect(texts(await raw.lrange("fleet:queue:q"))).toEqual([body("b"), body("c"), body("a")].map(String));
      expect(await raw.type("fleet:queue:q:processing")).toBe("none");
      const bb = (await be.queueReserve("q", 0, 30))!;
      const t0 = now();
      expect(await be.queueNack("q", "b", bb, { delaySeconds: 30 })).toBe(true);
      const t1 = now();
      const sched = await raw.zrange("fleet:queue:q:scheduled");
      expect(sched.map((e) => e.member)).toEqual([body("b")]);
      expect(sched[0]!.score).toBeGreaterThanOrEqual(t0 + 29.9);
      expect(sched[0]!.score).toBeLessThanOrEqual(t1 + 30.01);
      expect(await raw.type("fleet:queue:q:processing:body")).toBe("none");
      // not due yet: the reserve takes c and leaves b scheduled
      expect(await be.queueReserve("q", 0, 30)).toEqual(body("c"));
      expect(await be.queueReserve("q", 0, 30)).toEqual(body("a"));
      expect(await be.queueReserve("q", 0, 30)).toBeNull();
    });

    it("fails a reservation: ended and dead-lettered together", async () => {
      await be.queuePush("q", body("a"));
      const a = (await be.queueReserve("q", 0, 30))!;
      expect(await be.queueFail("q", "a", a)).toBe(true);
      expect(await raw.keys()).toEqual(["fleet:queue:q:dead"]);
      expect(await raw.lrange("fleet:queue:q:dead")).toEqual([a]);
    });

    it("sweeps expired reservations back, dropping and reporting orphans", async () => {
      for (const id of ["a", "b", "c"]) await be.queuePush("q", body(id));
      await be.queuePush("q", body("n"));
      for (let i = 0; i < 3; i++) await be.queueReserve("q", 0, 30);
      await raw.zadd("fleet:queue:q:processing", 1000, "ghost");
      const t = now();
      expect(await be.queueSweepExpired("q", t)).toEqual({ requeued: 0, orphaned: ["ghost"] });
      expect((await raw.zrange("fleet:queue:q:processing")).map((e) => String(e.member))).toEqual(["a", "b", "c"]);
      const r = await be.queueSweepExpired("q", t + 100);
      expect(r).toEqual({ requeued: 3, orphaned: [] });
      const normal = texts(await raw.lrange("fleet:queue:q"));
      expect(normal[0]).toBe(String(body("n")));
      expect(normal.slice(1).sort()).toEqual([body("a"), body("b"), body("c")].map(String).sort());
      expect(await raw.type("fleet:queue:q:processing")).toBe("none");
      expect(await raw.type("fleet:queue:q:processing:body")).toBe("none");
      expect(await be.queueSweepExpired("q")).toEqual({ requeued: 0, orphaned: [] });
    });

    it("sweeps with the current time by default", async () => {
      await be.queuePush("q", body("a"));
      await be.queueReserve("q", 0, 30);
      await raw.zadd("fleet:queue:q:processing", now() - 1, "a");
      expect(await be.queueSweepExpired("q")).toEqual({ requeued: 1, orphaned: [] });
      expect(await raw.lrange("fleet:queue:q")).toEqual([body("a")]);
    });

    it("keeps dead letters: push, peek, range, pop, length, clear", async () => {
      for (const x of ["a", "b", "c", "d"]) await be.queueDead("q", x);
      expect(texts(await raw.lrange("fleet:queue:q:dead"))).toEqual(["a", "b", "c", "d"]);
      expect(await be.dlqLength("q")).toBe(4);
      expect(texts(await be.dlqPeek("q", 2))).toEqual(["a", "b"]);
      expect(await be.dlqRange("q", 1, 2)).toEqual({ total: 4, items: [b("b"), b("c")] });
      expect(await be.dlqRange("q", 3, 10)).toEqual({ total: 4, items: [b("d")] });
      expect(await be.dlqRange("q", 9, 10)).toEqual({ total: 4, items: [] });
      expect(texts(await be.dlqPop("q", 3))).toEqual(["a", "b", "c"]);
      expect(texts(await be.dlqPop("q", 3))).toEqual(["d"]);
      expect(await be.dlqPop("q", 3)).toEqual([]);
      await be.queueDead("q", "x");
      await be.queueDead("q", "y");
      expect(await be.dlqClear("q")).toBe(2);
      expect(await be.dlqClear("q")).toBe(0);
      expect(await be.dlqLength("q")).toBe(0);
      expect(await raw.keys()).toEqual([]);
    });

    it("requeues dead letters by content ref, every copy, onto the normal list tail", async () => {
      const [A, B, C] = [body("a"), body("b"), NOT_UTF8];
      for (const x of [A, B, A, C]) await be.queueDead("q", x);
      await be.queuePush("q", body("pending"));
      await be.queuePush("q", body("hi"), { priority: "high" });
      const missingRef = sha1Hex("gone");
      const r = await be.dlqRequeue("q", { refs: [sha1Hex(A), missingRef, sha1Hex(C)] });
      expect(r.requeued).toBe(3);
      expect(r.missing).toEqual([missingRef]);
      expect(await raw.lrange("fleet:queue:q:dead")).toEqual([B]);
      const normal = await raw.lrange("fleet:queue:q");
      expect(normal[0]).toEqual(body("pending"));
      expect(
        normal
          .slice(1)
          .map((x) => x.toString("base64"))
          .sort(),
      ).toEqual([A, A, C].map((x) => x.toString("base64")).sort());
      expect(await raw.lrange("fleet:queue:q:high")).toEqual([body("hi")]);
      expect(await be.dlqRequeue("q", { refs: [sha1Hex(A)] })).toEqual({ requeued: 0, missing: [sha1Hex(A)] });
      expect(await be.dlqRequeue("q", { all: true })).toEqual({ requeued: 1, missing: [] });
      expect(await raw.type("fleet:queue:q:dead")).toBe("none");
      expect((await raw.lrange("fleet:queue:q")).at(-1)).toEqual(B);
      expect(await be.dlqRequeue("q", { all: true })).toEqual({ requeued: 0, missing: [] });
    });

    it("requeues all dead letters in order", async () => {
      for (const x of ["a", "b", "a"]) await be.queueDead("q", x);
      expect(await be.dlqRequeue("q", { all: true })).toEqual({ requeued: 3, missing: [] });
      expect(texts(await raw.lrange("fleet:queue:q"))).toEqual(["a", "b", "a"]);
    });

    it("deletes dead letters by content ref, every copy, or all", async () => {
      for (const x of ["a", "b", "a", "c"]) await be.queueDead("q", x);
      // a ref named twice is still one selection, reported missing once
      const r = await be.dlqDelete("q", { refs: [sha1Hex("a"), sha1Hex("zz"), sha1Hex("a"), sha1Hex("zz")] });
      expect(r).toEqual({ deleted: 2, missing: [sha1Hex("zz")] });
      expect(texts(await raw.lrange("fleet:queue:q:dead"))).toEqual(["b", "c"]);
      expect(await raw.type("fleet:queue:q")).toBe("none");
      expect(await be.dlqDelete("q", { all: true })).toEqual({ deleted: 2, missing: [] });
      expect(await raw.keys()).toEqual([]);
      expect(await be.dlqDelete("q", { refs: [sha1Hex("b")] })).toEqual({ deleted: 0, missing: [sha1Hex("b")] });
    });

    it("names every queue that has any key, sorted, names with ':' and glob characters included", async () => {
      await be.queuePush("n1", "x");
      await be.queuePush("q:2", "x", { priority: "high" });
      await be.queuePush("low", "x", { priority: "low" });
      await be.queueDead("q*", "x");
      await raw.zadd("fleet:queue:q[x:scheduled", now() + 100, "x");
      await raw.zadd("fleet:queue:proc:processing", now() + 100, "id");
      await raw.hset("fleet:queue:pb:processing:body", "id", "x");
      expect(await be.queueNames()).toEqual(["low", "n1", "pb", "proc", "q*", "q:2", "q[x"]);
      await be.dlqClear("q*");
      await be.queueReserve("n1", 0, 30);
      expect(await be.queueNames()).toEqual(["low", "pb", "proc", "q:2", "q[x"]);
    });

    it("reports depths: pending by priority, processing and overdue, scheduled and due, dead", async () => {
      const t = now();
      await be.queuePush("q", body("h"), { priority: "high" });
      await be.queuePush("q", body("n1"));
      await be.queuePush("q", body("n2"));
      await be.queuePush("q", body("l"), { priority: "low" });
      await raw.zadd("fleet:queue:q:processing", t - 50, "over");
      await raw.zadd("fleet:queue:q:processing", t + 50, "ok");
      await raw.zadd("fleet:queue:q:scheduled", t - 50, "due");
      await raw.zadd("fleet:queue:q:scheduled", t + 50, "later1");
      await raw.zadd("fleet:queue:q:scheduled", t + 60, "later2");
      await be.queueDead("q", "d");
      const [d, empty] = await be.queueDepths(["q", "none"], t);
      expect(d).toEqual({
        name: "q",
        pending: { high: 1, normal: 2, low: 1, total: 4 },
        processing: 2,
        overdue: 1,
        scheduled: 3,
        due: 1,
        dead: 1,
      });
      expect(empty).toEqual({
        name: "none",
        pending: { high: 0, normal: 0, low: 0, total: 0 },
        processing: 0,
        overdue: 0,
        scheduled: 0,
        due: 0,
        dead: 0,
      });
      const [later] = await be.queueDepths(["q"], t + 55);
      expect(later!.overdue).toBe(2);
      expect(later!.due).toBe(2);
      expect(await be.queueDepths([])).toEqual([]);
    });

    it("details a queue without changing it", async () => {
      const t = now();
      await be.queuePush("q", "l1", { priority: "low" });
      for (const x of ["n1", "n2", "n3"]) await be.queuePush("q", x);
      await be.queuePush("q", body("r1"), { priority: "high" });
      await be.queuePush("q", body("r2"), { priority: "high" });
      await be.queueReserve("q", 0, 30);
      await be.queueReserve("q", 0, 60);
      await raw.zadd("fleet:queue:q:processing", t - 5, "orphan");
      await raw.zadd("fleet:queue:q:scheduled", t + 20, "s2");
      await raw.zadd("fleet:queue:q:scheduled", t + 10, "s1");
      const before = await snapshot(raw);
      const d = await be.queueDetail("q", 3, t);
      expect(d.depths).toEqual((await be.queueDepths(["q"], t))[0]);
      expect(d.depths.pending).toEqual({ high: 0, normal: 3, low: 1, total: 4 });
      expect(d.depths.overdue).toBe(1);
      expect(d.pending.map((p) => [p.priority, String(p.body)])).toEqual([
        ["normal", "n1"],
        ["normal", "n2"],
        ["normal", "n3"],
      ]);
      expect(d.processing.map((p) => [p.id, p.body === null ? null : String(p.body)])).toEqual([
        ["orphan", null],
        ["r1", String(body("r1"))],
        ["r2", String(body("r2"))],
      ]);
      expect(d.processing[0]!.deadline).toBe(t - 5);
      expect(d.processing[1]!.deadline).toBeGreaterThan(t + 29);
      expect(d.scheduled).toEqual([
        { readyAt: t + 10, body: b("s1") },
        { readyAt: t + 20, body: b("s2") },
      ]);
      const all = await be.queueDetail("q", 100, t);
      expect(all.pending.map((p) => [p.priority, String(p.body)])).toEqual([
        ["normal", "n1"],
        ["normal", "n2"],
        ["normal", "n3"],
        ["low", "l1"],
      ]);
      expect(await snapshot(raw)).toEqual(before);
    });
  });
}
