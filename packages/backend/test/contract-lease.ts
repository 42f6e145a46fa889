// Leases: a reservation's deadline, as text, names that very reservation. A holder that
// extends, acks, nacks or fails with its lease acts only while the reservation is still its
// own; after a sweep re-queued the task and another holder reserved it, it changes nothing.
// Run on both implementations by contract-memory.test.ts and contract-redis.test.ts.
import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keys } from "../src/keys";
import { pyJsonBytes } from "../src/pyjson";
import type { Backend } from "../src/types";
import type { BackendFixture, RawPlanter } from "./contract";

const body = (id: string, payload: unknown = {}) => pyJsonBytes({ id, payload });
const nowS = () => Date.now() / 1000;

export function describeLeaseContract(name: string, factory: () => Promise<BackendFixture>): void {
  describe(`Backend contract, leases: ${name}`, () => {
    let be: Backend;
    let raw: RawPlanter;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ backend: be, plantRaw: raw, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    /** Makes the current reservation of `id` overdue and sweeps it back onto the queue. */
    const expireAndSweep = async (q: string, id: string) => {
      await raw.zadd(keys.queueProcessing(q), nowS() - 5, id);
      expect((await be.queueSweepExpired(q)).requeued).toBe(1);
    };

    it("reserve answers the body and its deadline as lease text; an unregistered body has none", async () => {
      await be.queuePush("q", body("t1"));
      await be.queuePush("q", Buffer.from("not json"));
      const before = nowS();
      const got = await be.queueReserveLease("q", 0, 30);
      expect(got?.body.toString()).toBe(body("t1").toString());
      const deadline = Number(got!.lease);
      expect(deadline).toBeGreaterThanOrEqual(before + 29);
      const [z] = await raw.zrange(keys.queueProcessing("q"));
      expect(z!.score).toBe(deadline);
      expect(await be.queueReserveLease("q", 0, 30)).toEqual({ body: Buffer.from("not json"), lease: null });
      expect(await be.queueReserveLease("q", 0, 30)).toBeNull();
    });

    it("extend pushes the deadline out and answers the new lease; the old lease then no longer acks", async () => {
      await be.queuePush("q", body("t1"));
      const got = (await be.queueReserveLease("q", 0, 2))!;
      const next = await be.queueExtend("q", "t1", got.lease!, 60);
      expect(next).not.toBeNull();
      expect(Number(next)).toBeGreaterThan(Number(got.lease) + 50);
      expect((await raw.zrange(keys.queueProcessing("q")))[0]!.score).toBe(Number(next));
      // the sweep leaves an extended reservation alone
      expect((await be.queueSweepExpired("q", nowS() + 10)).requeued).toBe(0);
      expect(await be.queueAck("q", "t1", { lease: got.lease })).toBe(false);
      expect(await be.queueAck("q", "t1", { lease: next })).toBe(true);
      expect(await raw.zrange(keys.queueProcessing("q"))).toEqual([]);
      expect(await raw.hgetall(keys.queueProcessingBody("q"))).toEqual({});
    });

    it("extend never shortens a lease", async () => {
      await be.queuePush("q", body("t1"));
      const got = (await be.queueReserveLease("q", 0, 120))!;
      const next = await be.queueExtend("q", "t1", got.lease!, 1);
      expect(Number(next)).toBe(Number(got.lease));
    });

    it("after a sweep and another holder's reserve, the first holder's extend, ack, nack and fail change nothing", async () => {
      await be.queuePush("q", body("t1"));
      const first = (await be.queueReserveLease("q", 0, 30))!;
      await expireAndSweep("q", "t1");
      // swept and not yet reserved again: the lease is lost too
      expect(await be.queueExtend("q", "t1", first.lease!, 30)).toBeNull();
      const second = (await be.queueReserveLease("q", 0, 30))!;
      expect(second.lease).not.toBe(first.lease);
      const processing = await raw.zrange(keys.queueProcessing("q"));

      expect(await be.queueExtend("q", "t1", first.lease!, 30)).toBeNull();
      expect(await be.queueAck("q", "t1", { lease: first.lease })).toBe(false);
      expect(await be.queueNack("q", "t1", body("t1"), { delaySeconds: 0, lease: first.lease })).toBe(false);
      expect(await be.queueNack("q", "t1", body("t1"), { delaySeconds: 5, lease: first.lease })).toBe(false);
      expect(await be.queueFail("q", "t1", body("t1"), { lease: first.lease })).toBe(false);

      // the second holder's reservation is untouched, nothing was pushed anywhere
      expect(await raw.zrange(keys.queueProcessing("q"))).toEqual(processing);
      expect(Object.keys(await raw.hgetall(keys.queueProcessingBody("q")))).toEqual(["t1"]);
      expect(await be.queueSize("q")).toBe(0);
      expect(await raw.zrange(keys.queueScheduled("q"))).toEqual([]);
      expect(await be.dlqLength("q")).toBe(0);
      // and the second holder still acks
      expect(await be.queueAck("q", "t1", { lease: second.lease })).toBe(true);
    });

    it("with its own lease, nack requeues and fail dead-letters", async () => {
      await be.queuePush("q", body("t1"));
      const a = (await be.queueReserveLease("q", 0, 30))!;
      expect(await be.queueNack("q", "t1", body("t1", { retry: 1 }), { delaySeconds: 0, lease: a.lease })).toBe(true);
      expect((await be.queuePeek("q", 5)).map(String)).toEqual([body("t1", { retry: 1 }).toString()]);
      const b2 = (await be.queueReserveLease("q", 0, 30))!;
      expect(await be.queueFail("q", "t1", body("t1", { dead: 1 }), { lease: b2.lease })).toBe(true);
      expect((await be.dlqPeek("q", 5)).map(String)).toEqual([body("t1", { dead: 1 }).toString()]);
      expect(await raw.zrange(keys.queueProcessing("q"))).toEqual([]);
    });

    it("a lock is extended only by its holder's token", async () => {
      const token = (await be.lockAcquire("leader", 2, 0))!;
      expect(token).toBeTruthy();
      expect(await be.lockExtend("leader", "not-the-token", 60)).toBe(false);
      expect(await raw.pttl(keys.lock("leader"))).toBeLessThanOrEqual(2000);
      expect(await be.lockExtend("leader", token, 60)).toBe(true);
      expect(await raw.pttl(keys.lock("leader"))).toBeGreaterThan(50_000);
      expect((await raw.get(keys.lock("leader")))?.toString()).toBe(token);
      await raw.del(keys.lock("leader"));
      expect(await be.lockExtend("leader", token, 60)).toBe(false);
      expect(await raw.type(keys.lock("leader"))).toBe("none");
    });

    it("catalogReplace clears fleet:catalog and writes the given entries", async () => {
      await be.catalogSet("old", Buffer.from('{"config": null}'));
      await be.catalogReplace(
        new Map([
          ["a", Buffer.from('{"config": {}}')],
          ["b", Buffer.from('{"config": null}')],
        ]),
      );
      const all = await be.catalogAll();
      expect([...all.keys()].sort()).toEqual(["a", "b"]);
      expect(all.get("a")?.toString()).toBe('{"config": {}}');
      await be.catalogReplace(new Map());
      expect(await raw.type("fleet:catalog")).toBe("none");
    });

    it("queueWait answers at once when a pending list holds a task, and times out with false when none comes", async () => {
      await be.queuePush("q", body("t1"), { priority: "low" });
      expect(await be.queueWait("q", 30)).toBe(true);
      expect(await be.queueWait("empty", 0.2)).toBe(false);
    });

    for (const priority of ["high", "normal", "low"] as const) {
      it(`queueWait wakes every waiter on a push to the ${priority} list and leaves the list as it was`, async () => {
        // 30 s: only the push can end these waits within the test's own time limit
        const waits = [be.queueWait("q", 30), be.queueWait("q", 30)];
        await new Promise((r) => setTimeout(r, 50)); // let the waits block first
        await be.queuePushMany("q", [
          { body: body("a"), priority },
          { body: body("b"), priority },
        ]);
        expect(await Promise.all(waits)).toEqual([true, true]);
        const key = priority === "high" ? keys.queueHigh("q") : priority === "low" ? keys.queueLow("q") : keys.queue("q");
        expect((await raw.lrange(key)).map(String)).toEqual([body("a").toString(), body("b").toString()]);
        expect(await raw.zrange(keys.queueProcessing("q"))).toEqual([]);
        expect(JSON.parse(String((await be.queueReserve("q", 0, 30))!)).id).toBe("a");
      });
    }

    it("a requeued dead letter gets its attempts back, every other byte kept; keepAttempts keeps them", async () => {
      const dead = (n: number) => Buffer.from(`{"id": "t${n}", "payload": {"big": 12345678901234567890, "r": 1.0}, "attempts": 3, "last_error": "boom ${n}"}`);
      const reset = (n: number) => Buffer.from(`{"id": "t${n}", "payload": {"big": 12345678901234567890, "r": 1.0}, "attempts": 0, "last_error": "boom ${n}"}`);
      const plain = Buffer.from('{"id": "p", "payload": {}}');
      for (const b of [dead(1), dead(2), plain, dead(3)]) await be.queueDead("q", b);
      const refOf = (b: Buffer) => createHash("sha1").update(b).digest("hex");
      // by ref: attempts back to 0; a body without attempts moves as it is
      expect(await be.dlqRequeue("q", { refs: [refOf(dead(2)), refOf(plain)] })).toEqual({ requeued: 2, missing: [] });
      expect((await be.queuePeek("q", 10)).map(String)).toEqual([reset(2), plain].map(String));
      // keepAttempts: as they are
      expect(await be.dlqRequeue("q", { refs: [refOf(dead(3))] }, { keepAttempts: true })).toEqual({ requeued: 1, missing: [] });
      expect(String((await be.queuePeek("q", 10))[2])).toBe(String(dead(3)));
      // all: attempts back to 0, in order
      expect(await be.dlqRequeue("q", { all: true })).toEqual({ requeued: 1, missing: [] });
      expect(String((await be.queuePeek("q", 10))[3])).toBe(String(reset(1)));
      expect(await be.dlqLength("q")).toBe(0);
    });

    it("requeue all gives attempts back in chunks, in order, every body once (1,234 dead letters)", async () => {
      const bodies = Array.from({ length: 1234 }, (_, i) => Buffer.from(`{"id": "t${i}", "payload": {"n": ${i}}, "attempts": ${1 + (i % 3)}}`));
      for (let i = 0; i < bodies.length; i += 200) await raw.rpush(keys.queueDead("q"), ...bodies.slice(i, i + 200));
      expect(await be.dlqRequeue("q", { all: true })).toEqual({ requeued: 1234, missing: [] });
      const pending = await raw.lrange(keys.queue("q"));
      expect(pending.map(String)).toEqual(bodies.map((_, i) => `{"id": "t${i}", "payload": {"n": ${i}}, "attempts": 0}`));
      expect(await raw.type(keys.queueDead("q"))).toBe("none");
      // and with keepAttempts, as they were
      for (let i = 0; i < bodies.length; i += 200) await raw.rpush(keys.queueDead("k"), ...bodies.slice(i, i + 200));
      expect(await be.dlqRequeue("k", { all: true }, { keepAttempts: true })).toEqual({ requeued: 1234, missing: [] });
      expect((await raw.lrange(keys.queue("k"))).map(String)).toEqual(bodies.map(String));
    });

    it("without a lease, ack/nack/fail keep Python's semantics (by id, whoever holds it)", async () => {
      await be.queuePush("q", body("t1"));
      await be.queueReserveLease("q", 0, 30);
      await expireAndSweep("q", "t1");
      await be.queueReserveLease("q", 0, 30);
      expect(await be.queueAck("q", "t1")).toBe(true);
      expect(await be.queueNack("q", "t2", body("t2"), { delaySeconds: 0 })).toBe(true);
      expect(await be.queueSize("q")).toBe(1);
    });
  });
}
