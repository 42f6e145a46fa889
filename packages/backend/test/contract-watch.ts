// The watch part of the Backend contract (src/watch-types.ts), as one suite for both
// implementations: queue probes (depths, tails, marks), history rings (SETRANGE/GETRANGE,
// TTL, the latest hash), the alert rules' compare-and-set, and the alert state's atomic change.
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { StaleGenerationError } from "../src/errors";
import { consoleKeys, keys } from "../src/keys";
import type { Backend } from "../src/types";
import type { BackendFixture } from "./contract";

const b = (s: string) => Buffer.from(s, "utf8");
const texts = (bufs: Buffer[]) => bufs.map((x) => x.toString("utf8"));

export function describeWatchContract(name: string, factory: () => Promise<BackendFixture>): void {
  describe(`watch contract: ${name}`, () => {
    let f: BackendFixture;
    let backend: Backend;
    beforeEach(async () => {
      f = await factory();
      backend = f.backend;
    });
    afterEach(async () => {
      await f.cleanup();
    });

    describe("queueWatch", () => {
      it("answers depths and each pending list's length and tail; empty lists have no tail", async () => {
        await backend.queuePush("q", b("n1"));
        await backend.queuePush("q", b("n2"));
        await backend.queuePush("q", b("h1"), { priority: "high" });
        await backend.queueDead("q", b("d1"));
        const [w] = await backend.queueWatch([{ name: "q" }], { maxTailBytes: 100, maxScan: 100 });
        expect(w!.depths).toMatchObject({ name: "q", pending: { high: 1, normal: 2, low: 0, total: 3 }, dead: 1 });
        expect(w!.lists.normal).toEqual({ length: 2, tail: b("n2"), tailBytes: 2, found: null });
        expect(w!.lists.high).toEqual({ length: 1, tail: b("h1"), tailBytes: 2, found: null });
        expect(w!.lists.low).toEqual({ length: 0, tail: null, tailBytes: 0, found: null });
      });

      it("a tail longer than maxTailBytes comes back as null with its length", async () => {
        await backend.queuePush("q", b("x".repeat(50)));
        const [w] = await backend.queueWatch([{ name: "q" }], { maxTailBytes: 49, maxScan: 100 });
        expect(w!.lists.normal).toMatchObject({ length: 1, tail: null, tailBytes: 50 });
      });

      it("finds the oldest mark still in the list, skipping marks that left, within maxScan", async () => {
        for (const s of ["a", "b", "c", "d", "e"]) await backend.queuePush("q", b(s));
        // "gone" was never there (reserved long ago); "b" is at position 1
        const marks = { normal: [b("gone"), b("b"), b("d")] };
        let [w] = await backend.queueWatch([{ name: "q", marks }], { maxTailBytes: 100, maxScan: 100 });
        expect(w!.lists.normal.found).toEqual({ mark: 1, position: 1 });
        await backend.queueReserve("q", 0, 30);
        await backend.queueReserve("q", 0, 30);
        [w] = await backend.queueWatch([{ name: "q", marks }], { maxTailBytes: 100, maxScan: 100 });
        expect(w!.lists.normal.found).toEqual({ mark: 2, position: 1 });
        // only the first 1 entry is looked at: "d" is at 1
        [w] = await backend.queueWatch([{ name: "q", marks }], { maxTailBytes: 100, maxScan: 1 });
        expect(w!.lists.normal.found).toBeNull();
      });

      it("reads many queues in one call, in the order asked, unknown queues as zeros", async () => {
        await backend.queuePush("a", b("1"));
        await backend.queuePush("c", b("1"), { priority: "low" });
        const w = await backend.queueWatch([{ name: "c" }, { name: "nope" }, { name: "a" }], { maxTailBytes: 10, maxScan: 10 });
        expect(w.map((x) => [x.depths.name, x.depths.pending.total, x.lists.low.length])).toEqual([
          ["c", 1, 1],
          ["nope", 0, 0],
          ["a", 1, 0],
        ]);
      });
    });

    describe("history rings", () => {
      it("writes slots at offsets, reads ranges back, missing rings read as empty", async () => {
        await backend.historyWrite(
          [
            { series: "q", tier: "10s", offset: 8, bytes: b("BBBB") },
            { series: "q", tier: "10s", offset: 0, bytes: b("AAAA") },
            { series: null, tier: "5m", offset: 4, bytes: b("FF") },
          ],
          { ttlSeconds: 60 },
        );
        const [q, fleet, none] = await backend.historyRead([
          { series: "q", tier: "10s", offset: 0, length: 12 },
          { series: null, tier: "5m", offset: 0, length: 6 },
          { series: "other", tier: "10s", offset: 0, length: 12 },
        ]);
        expect(q).toEqual(Buffer.concat([b("AAAA"), Buffer.alloc(4), b("BBBB")]));
        expect(fleet).toEqual(Buffer.concat([Buffer.alloc(4), b("FF")]));
        expect(none!.length).toBe(0);
        // a read past the end is cut at the end
        const [tail] = await backend.historyRead([{ series: "q", tier: "10s", offset: 8, length: 100 }]);
        expect(tail).toEqual(b("BBBB"));
      });

      it("overwrites a slot in place and gives every ring written a TTL", async () => {
        await backend.historyWrite([{ series: "q", tier: "5m", offset: 0, bytes: b("old!") }], { ttlSeconds: 3600 });
        await backend.historyWrite([{ series: "q", tier: "5m", offset: 0, bytes: b("new!") }], { ttlSeconds: 3600 });
        const [v] = await backend.historyRead([{ series: "q", tier: "5m", offset: 0, length: 4 }]);
        expect(v!.toString()).toBe("new!");
        const ttl = await f.plantRaw.pttl(consoleKeys.history("5m", "q"));
        expect(ttl).toBeGreaterThan(3_500_000);
        expect(ttl).toBeLessThanOrEqual(3_600_000);
        expect(await f.plantRaw.keys()).toEqual([consoleKeys.history("5m", "q")]);
      });

      it("replaces the latest hash as a whole", async () => {
        await backend.historyWrite([], {
          ttlSeconds: 60,
          latest: new Map([
            ["a", b("1")],
            ["b", b("2")],
          ]),
        });
        await backend.historyWrite([], { ttlSeconds: 60, latest: new Map([["b", b("3")]]) });
        expect(Object.fromEntries([...(await backend.historyLatest())].map(([k, v]) => [k, v.toString()]))).toEqual({ b: "3" });
      });

      it("a ring key of another type fails the write and changes nothing", async () => {
        await f.plantRaw.rpush(consoleKeys.history("10s", "bad"), "x");
        await expect(
          backend.historyWrite(
            [
              { series: "ok", tier: "10s", offset: 0, bytes: b("1") },
              { series: "bad", tier: "10s", offset: 0, bytes: b("1") },
            ],
            { ttlSeconds: 60 },
          ),
        ).rejects.toThrow();
        // Redis runs the rest of a MULTI after a failed command; the memory backend checks
        // first. Either way the wrong-typed key is left as it was.
        expect(await f.plantRaw.type(consoleKeys.history("10s", "bad"))).toBe("list");
      });
    });

    describe("alert rules", () => {
      it("starts at generation 0 with no document; each write needs the current generation", async () => {
        expect(await backend.alertRulesGet()).toEqual({ doc: null, gen: 0 });
        expect(await backend.alertRulesSet(b('{"rules": []}'), 0)).toEqual({ gen: 1 });
        await expect(backend.alertRulesSet(b('{"rules": [1]}'), 0)).rejects.toBeInstanceOf(StaleGenerationError);
        expect(await backend.alertRulesSet(b('{"rules": [2]}'), 1)).toEqual({ gen: 2 });
        const got = await backend.alertRulesGet();
        expect([got.doc?.toString(), got.gen]).toEqual(['{"rules": [2]}', 2]);
      });

      it("a stale write leaves the stored document as it was", async () => {
        await backend.alertRulesSet(b("one"), 0);
        await expect(backend.alertRulesSet(b("two"), 5)).rejects.toThrow(/generation is 1, not 5/);
        expect((await backend.alertRulesGet()).doc?.toString()).toBe("one");
      });
    });

    describe("alert state", () => {
      it("sets and deletes firing alerts and outbox entries and appends history, capped, newest first", async () => {
        await backend.alertStateWrite({
          firingSet: new Map([
            ["r1|q", b("f1")],
            ["r2|q", b("f2")],
          ]),
          outboxSet: new Map([["d1", b("o1")]]),
          history: [b("h1"), b("h2"), b("h3")],
          historyMax: 2,
        });
        let s = await backend.alertStateRead(10);
        expect([...s.firing.keys()].sort()).toEqual(["r1|q", "r2|q"]);
        expect(texts([...s.outbox.values()])).toEqual(["o1"]);
        expect(texts(s.history)).toEqual(["h3", "h2"]);
        expect(s.historyTotal).toBe(2);
        await backend.alertStateWrite({ firingDel: ["r1|q"], outboxDel: ["d1"], history: [b("h4")], historyMax: 2 });
        s = await backend.alertStateRead(1);
        expect([...s.firing.keys()]).toEqual(["r2|q"]);
        expect(s.outbox.size).toBe(0);
        expect(texts(s.history)).toEqual(["h4"]);
        expect(s.historyTotal).toBe(2);
      });

      it("touches only the console's alert keys", async () => {
        await backend.queuePush("q", b("x"));
        await backend.alertStateWrite({ firingSet: new Map([["a", b("1")]]), history: [b("h")], historyMax: 5 });
        expect(await f.plantRaw.keys()).toEqual([consoleKeys.alertFiring, consoleKeys.alertHistory, keys.queue("q")].sort());
      });
    });
  });
}
