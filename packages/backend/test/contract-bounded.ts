// The bounded half of the Backend contract (issue 11: no single command or script the console
// or a worker sends may run long enough to stall the fleet; issue 19.8: pools of 100k items):
// a reserve moves a bounded chunk of due retries and never reads a large body in Redis, yet
// registers the very id a small body would get; pools are read a page or an item at a time and
// deleted in chunks. Run by both contract-*.test.ts files beside the main suite.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CorruptDataError } from "../src/errors";
import { keys } from "../src/keys";
import { pyJsonBytes } from "../src/pyjson";
import { RESERVE_LUA_PARSE_MAX_BYTES, SCHEDULED_DRAIN_MAX } from "../src/queue-bounds";
import { taskIdOfBody } from "../src/task-body";
import type { Backend } from "../src/types";
import type { BackendFixture, RawPlanter } from "./contract";
import { TASK_ID_CASES } from "./task-ids";

const body = (id: string | number, payload: unknown = {}) => pyJsonBytes({ id, payload });
const now = () => Date.now() / 1000;
const idOf = (b: Buffer | null) => (b === null ? null : taskIdOfBody(b));
/** Bytes as text, for comparing large buffers (vitest's deep equality walks a Buffer byte by byte). */
const text = (b: Buffer | null | undefined) => (b == null ? b : b.toString("latin1"));
const textRecord = (r: Record<string, Buffer>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, text(v)]));

/** `b` made longer than the reserve script reads, with a meaning Python's json.loads gives it unchanged (trailing whitespace). */
export function padPastLuaBound(b: Buffer): Buffer {
  return Buffer.concat([b, Buffer.alloc(RESERVE_LUA_PARSE_MAX_BYTES + 1, 0x20)]);
}

export function describeBoundedContract(name: string, factory: () => Promise<BackendFixture>): void {
  describe(`Backend contract, bounded: ${name}`, () => {
    let be: Backend;
    let raw: RawPlanter;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ backend: be, plantRaw: raw, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    describe("reserve", () => {
      it(`moves at most ${SCHEDULED_DRAIN_MAX} due retries per reserve; the rest follow on later reserves, soonest first, each once`, async () => {
        const n = SCHEDULED_DRAIN_MAX + 40;
        const t = now();
        for (let i = 0; i < n; i++) await raw.zadd(keys.queueScheduled("q"), t - 10_000 + i, body(`due${i}`));
        await raw.zadd(keys.queueScheduled("q"), t + 3600, body("future"));
        expect(idOf(await be.queueReserve("q", 0, 30))).toBe("due0");
        // one chunk moved (its first body reserved at once), the rest still scheduled
        expect((await raw.lrange(keys.queue("q"))).length).toBe(SCHEDULED_DRAIN_MAX - 1);
        expect((await raw.zrange(keys.queueScheduled("q"))).length).toBe(n - SCHEDULED_DRAIN_MAX + 1);
        const got: Array<string | null> = [];
        for (let i = 1; i < n; i++) got.push(idOf(await be.queueReserve("q", 0, 30)));
        expect(got).toEqual(Array.from({ length: n - 1 }, (_, i) => `due${i + 1}`));
        expect(await be.queueReserve("q", 0, 30)).toBeNull();
        expect((await raw.zrange(keys.queueScheduled("q"))).map((e) => e.member)).toEqual([body("future")]);
        expect((await raw.zrange(keys.queueProcessing("q"))).length).toBe(n);
      });

      it("moves about a megabyte of due retries per reserve at most (slices of 16)", async () => {
        // 20 bodies of 70 KB: the first slice of 16 passes the budget, the other 4 wait
        const big = (i: number) => Buffer.concat([body(`big${i}`), Buffer.alloc(70_000, 0x20)]);
        for (let i = 0; i < 20; i++) await raw.zadd(keys.queueScheduled("q"), now() - 100 + i, big(i));
        expect(text(await be.queueReserve("q", 0, 30))).toBe(text(big(0)));
        expect((await raw.lrange(keys.queue("q"))).length).toBe(15);
        expect((await raw.zrange(keys.queueScheduled("q"))).length).toBe(4);
        for (let i = 1; i < 20; i++) expect(text(await be.queueReserve("q", 0, 30))).toBe(text(big(i)));
        expect(await raw.keys()).toEqual([keys.queueProcessing("q"), keys.queueProcessingBody("q")]);
        expect(Object.keys(await raw.hgetall(keys.queueProcessingBody("q"))).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `big${i}`).sort());
      });

      it(`registers a body over ${RESERVE_LUA_PARSE_MAX_BYTES} bytes under the id of the shared table, as a small one, with nothing else left in :processing`, async () => {
        const q = (i: number) => `big-ids:${i}`;
        for (const [i, c] of TASK_ID_CASES.entries()) await be.queuePush(q(i), padPastLuaBound(c.body));
        for (const [i, c] of TASK_ID_CASES.entries()) {
          const padded = padPastLuaBound(c.body);
          const got = await be.queueReserveLease(q(i), 0, 30);
          expect(text(got?.body), c.name).toBe(text(padded));
          expect(got?.lease === null, c.name).toBe(c.id === null);
          expect(textRecord(await raw.hgetall(keys.queueProcessingBody(q(i)))), c.name).toEqual(c.id === null ? {} : { [c.id]: text(padded) });
          const processing = await raw.zrange(keys.queueProcessing(q(i)));
          expect(
            processing.map((e) => e.member.toString("utf8")),
            c.name,
          ).toEqual(c.id === null ? [] : [c.id]);
          if (c.id !== null) expect(String(processing[0]!.score), c.name).toBe(String(Number(got!.lease)));
          expect(taskIdOfBody(padded), c.name).toBe(c.id);
        }
      });

      it("a large body's lease extends, acks and loses exactly as a small body's", async () => {
        const big = padPastLuaBound(body("L"));
        await be.queuePush("q", big);
        const got = (await be.queueReserveLease("q", 0, 30))!;
        expect(text(got.body)).toBe(text(big));
        const next = await be.queueExtend("q", "L", got.lease!, 60);
        expect(next).not.toBeNull();
        expect(await be.queueAck("q", "L", { lease: got.lease! })).toBe(false);
        expect(await be.queueAck("q", "L", { lease: next! })).toBe(true);
        expect(await raw.keys()).toEqual([]);
      });

      it("hands each large body to exactly one of many concurrent reservers", async () => {
        for (let i = 0; i < 12; i++) await be.queuePush("q", i % 2 ? padPastLuaBound(body(`t${i}`)) : body(`t${i}`));
        const got = await Promise.all(Array.from({ length: 16 }, () => be.queueReserve("q", 0, 30)));
        const ids = got.filter((g) => g !== null).map((g) => idOf(g));
        expect(ids.length).toBe(12);
        expect(new Set(ids).size).toBe(12);
        expect((await raw.zrange(keys.queueProcessing("q"))).map((e) => e.member.toString()).sort()).toEqual([...new Set(ids)].sort());
      });
    });

    describe("pools, a page or an item at a time", () => {
      const item = (i: number, extra: { x?: number | null } = {}) => pyJsonBytes({ p: Buffer.from(`payload ${i}`).toString("base64"), t: { n: i }, x: extra.x ?? null });
      const id = (i: number) => `item-${String(i).padStart(5, "0")}`;
      /** A pool of `n` items (planted raw, as another program writes them), 3 claimed, one expired, one corrupt. */
      async function plantPool(n: number): Promise<string[]> {
        for (let i = 0; i < n; i++) await raw.hset(keys.pool("big"), id(i), i === 7 ? item(i, { x: now() - 60 }) : i === 8 ? Buffer.from("not json") : item(i));
        for (const i of [1, 2, 3]) await raw.set(keys.poolClaim("big", id(i)), "1", { ttlSeconds: 600 });
        return Array.from({ length: n }, (_, i) => id(i));
      }

      it("pages a pool of any size with a cursor: every item once, each page sorted, records as the whole read gives them", async () => {
        const ids = await plantPool(1200);
        const whole = new Map((await be.poolItems("big")).map((r) => [r.id, r]));
        const seen: string[] = [];
        let cursor = "0";
        let pages = 0;
        do {
          const page = await be.poolItemsScan("big", cursor, 100);
          const pageIds = page.items.map((r) => r.id);
          expect(pageIds).toEqual([...pageIds].sort());
          for (const r of page.items) {
            const w = whole.get(r.id)!;
            expect({ ...r, raw: text(r.raw), payload: text(r.payload), inUseUntil: r.inUseUntil !== null }).toEqual({
              ...w,
              raw: text(w.raw),
              payload: text(w.payload),
              inUseUntil: w.inUseUntil !== null,
            });
          }
          seen.push(...pageIds);
          cursor = page.cursor;
          pages++;
        } while (cursor !== "0" && pages < 1000);
        expect(pages).toBeGreaterThan(3);
        expect([...seen].sort()).toEqual(ids);
        expect(new Set(seen).size).toBe(ids.length);
        expect(whole.get(id(7))!.expired).toBe(true);
        expect(whole.get(id(8))!.corrupt).toBe(true);
      });

      it("answers a small pool's ids sorted, and nothing for a pool over the bound", async () => {
        const ids = await plantPool(30);
        expect(await be.poolItemIds("big", 30)).toEqual(ids);
        expect(await be.poolItemIds("big", 29)).toBeNull();
        expect(await be.poolItemIds("nothing", 10)).toEqual([]);
      });

      it("reads given items with their claims, in the order given, leaving out ids not in the pool", async () => {
        await plantPool(20);
        const got = await be.poolItemsByIds("big", [id(3), "missing", id(0), id(8)]);
        expect(got.map((r) => r.id)).toEqual([id(3), id(0), id(8)]);
        expect(got[0]!.inUseUntil).toBeGreaterThan(now() + 500);
        expect(got[1]!.inUseUntil).toBeNull();
        expect(text(got[1]!.payload)).toBe("payload 0");
        expect(got[2]!.corrupt).toBe(true);
        expect(await be.poolItemsByIds("big", [])).toEqual([]);
        expect(await be.poolItemsByIds("nothing", [id(0)])).toEqual([]);
      });

      it("refuses a cursor it never answered, and reads a pool key of another type as corrupt data", async () => {
        await plantPool(5);
        await expect(be.poolItemsScan("big", "not a cursor", 10)).rejects.toThrow(RangeError);
        await expect(be.poolItemsScan("big", "-1", 10)).rejects.toThrow(RangeError);
        await raw.set(keys.pool("str"), "x");
        await expect(be.poolItemsScan("str", "0", 10)).rejects.toThrow(CorruptDataError);
        await expect(be.poolItemsByIds("str", ["a"])).rejects.toThrow(CorruptDataError);
        await expect(be.poolItemIds("str", 10)).rejects.toThrow(CorruptDataError);
        expect(await raw.get(keys.pool("str"))).toEqual(Buffer.from("x"));
      });

      it("deletes a pool of 1,200 items and every claim of them, leaving nothing behind, other pools' claims kept", async () => {
        await plantPool(1200);
        await raw.set(keys.poolClaim("other", id(1)), "1", { ttlSeconds: 600 });
        expect(await be.poolDelete("big")).toEqual({ deleted: true, items: 1200 });
        expect(await raw.keys()).toEqual([keys.poolClaim("other", id(1))]);
        expect(await be.poolDelete("big")).toEqual({ deleted: false, items: 0 });
        expect(await be.poolSize("big")).toBe(0);
      });
    });
  });
}
