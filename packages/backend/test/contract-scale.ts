// The scale half of the Backend contract (issue 11): dead-letter actions that find their
// entries outside Redis and remove them body by body, chunked actions on long lists, and
// the name discovery. Run by both contract-*.test.ts files beside the main suite, with the
// same fixture; kept in its own file so the two halves can grow without conflicts.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha1Hex } from "../src/codec";
import { pyJsonBytes } from "../src/pyjson";
import type { Backend } from "../src/types";
import type { BackendFixture, RawPlanter } from "./contract";

const body = (id: string | number, payload: unknown = {}) => pyJsonBytes({ id, payload });
const texts = (bufs: Buffer[]) => bufs.map((x) => x.toString("utf8"));

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
  });
}
