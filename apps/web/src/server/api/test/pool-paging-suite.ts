// Pools of any size through the routes (issue 19.8): the pool page is read a page at a time
// (offset or `o<n>` cursor for a small pool, `s<n>` HSCAN cursor for a large one), an item by
// itself, and a pool deleted in chunks; on Redis, no request of these sends a command that
// reads the whole pool (MONITOR).
import { POOL_EXACT_UP_TO } from "@fleet/backend";
import { describe, expect, it } from "vitest";

import * as pool from "@/app/api/v1/pools/[name]/route";
import * as poolItem from "@/app/api/v1/pools/[name]/items/[id]/route";
import * as poolRelease from "@/app/api/v1/pools/[name]/items/[id]/release/route";
import * as poolReveal from "@/app/api/v1/pools/[name]/items/[id]/reveal/route";

import type { BulkOp, Harness } from "./harness";

const id = (i: number) => `item-${String(i).padStart(5, "0")}`;
const item = (i: number) => JSON.stringify({ p: Buffer.from(`payload ${i}`).toString("base64"), t: { n: i }, x: null });

/** Reads a whole-pool command would send (HGETALL, HKEYS, HVALS of the pool hash). */
const WHOLE = new Set(["hgetall", "hkeys", "hvals"]);

export function poolPagingSuite(h: Harness): void {
  async function plantPool(name: string, n: number): Promise<string[]> {
    const ops: BulkOp[] = [];
    for (let i = 0; i < n; i += 500) {
      const fields: Record<string, string> = {};
      for (let j = i; j < Math.min(n, i + 500); j++) fields[id(j)] = item(j);
      ops.push(["hset", `fleet:pool:${name}`, fields]);
    }
    await h.plant.bulk(ops);
    await h.plant.set(`fleet:pool:${name}:claim:${id(3)}`, "1");
    return Array.from({ length: n }, (_, i) => id(i));
  }

  /** Every page from cursor=0 on: the ids in answer order, the pages and the totals seen. */
  async function pageAll(name: string, limit: number): Promise<{ ids: string[]; pages: number; totals: Set<number> }> {
    const ids: string[] = [];
    const totals = new Set<number>();
    let cursor: string | null = "0";
    let pages = 0;
    while (cursor !== null && pages < 500) {
      const res = await h.call(pool.GET, "GET", `/pools/${name}?limit=${limit}&cursor=${cursor}`);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      const pageIds = res.json.items.map((i: { id: string }) => i.id);
      expect(pageIds).toEqual([...pageIds].sort());
      ids.push(...pageIds);
      totals.add(res.json.total);
      cursor = res.json.next_cursor;
      pages++;
    }
    return { ids, pages, totals };
  }

  describe("pools of any size (issue 19.8)", () => {
    it("a small pool pages by offset, as API.md says, and by an offset cursor, sorted across pages", async () => {
      const ids = await plantPool("small", 250);
      const first = await h.call(pool.GET, "GET", "/pools/small?limit=100");
      expect(first.json.total).toBe(250);
      expect(first.json.items.map((i: { id: string }) => i.id)).toEqual(ids.slice(0, 100));
      expect(first.json.next_cursor).toBeUndefined();
      const last = await h.call(pool.GET, "GET", "/pools/small?limit=100&offset=200");
      expect(last.json.items.map((i: { id: string }) => i.id)).toEqual(ids.slice(200));
      const paged = await pageAll("small", 100);
      expect(paged.ids).toEqual(ids);
      expect(paged.pages).toBe(3);
      expect(paged.totals).toEqual(new Set([250]));
    });

    it(`a pool of over ${POOL_EXACT_UP_TO} items: the first page offers next_cursor; offset is refused, naming cursor; the cursor reaches every item once`, async () => {
      const n = POOL_EXACT_UP_TO + 400;
      const ids = await plantPool("large", n);
      const first = await h.call(pool.GET, "GET", "/pools/large?limit=200");
      expect(first.status).toBe(200);
      expect(first.json.total).toBe(n);
      expect(first.json.items.length).toBeGreaterThan(0);
      expect(first.json.next_cursor).toMatch(/^s\d+$/);
      const offset = await h.call(pool.GET, "GET", "/pools/large?limit=200&offset=200");
      expect(offset.status).toBe(400);
      expect(offset.json.error.message).toMatch(/cursor=0/);
      expect((await h.call(pool.GET, "GET", "/pools/large?cursor=o200")).status).toBe(400);
      const paged = await pageAll("large", 1000);
      expect(paged.pages).toBeGreaterThan(3);
      expect([...paged.ids].sort()).toEqual(ids);
      expect(new Set(paged.ids).size).toBe(n);
      expect(paged.totals).toEqual(new Set([n]));
    });

    it("refuses a malformed cursor with 400 and changes nothing", async () => {
      await plantPool("small", 20);
      await h.unchanged(async () => {
        for (const c of ["abc", "o", "s", "s-1", "o1x", "s1.5", "1"]) {
          const res = await h.call(pool.GET, "GET", `/pools/small?cursor=${encodeURIComponent(c)}`);
          expect(res.status, c).toBe(400);
          expect(res.json.error.code, c).toBe("bad_request");
        }
      });
    });

    it("one item by itself: read, revealed, released and deleted with 404s that say whether the pool or the item is missing", async () => {
      await plantPool("large", POOL_EXACT_UP_TO + 10);
      const one = await h.call(poolItem.GET, "GET", `/pools/large/items/${id(3)}`);
      expect(one.status).toBe(200);
      expect(one.json).toMatchObject({ id: id(3), tags: { n: 3 }, payload: { text: "payload 3" } });
      expect((await h.call(poolReveal.POST, "POST", `/pools/large/items/${id(4)}/reveal`)).json).toMatchObject({ id: id(4) });
      const gone = await h.call(poolItem.GET, "GET", "/pools/large/items/ghost");
      expect(gone.status).toBe(404);
      expect(gone.json.error.message).toMatch(/has no item 'ghost'/);
      const noPool = await h.call(poolItem.GET, "GET", "/pools/none/items/x");
      expect(noPool.status).toBe(404);
      expect(noPool.json.error.message).toMatch(/no pool named 'none'/);
      expect((await h.call(poolRelease.POST, "POST", `/pools/large/items/${id(3)}/release`)).json).toEqual({ released: true });
      expect((await h.call(poolItem.DELETE, "DELETE", `/pools/large/items/${id(5)}`)).json).toEqual({ deleted: true });
      expect((await h.call(poolItem.GET, "GET", `/pools/large/items/${id(5)}`)).status).toBe(404);
    });

    it("deletes a large pool and every claim of it; a put afterwards starts a new pool", async () => {
      const n = POOL_EXACT_UP_TO + 100;
      await plantPool("large", n);
      const del = await h.call(pool.DELETE, "DELETE", "/pools/large");
      expect(del.json).toEqual({ deleted: true, items: n });
      expect(await h.plant.exists("fleet:pool:large")).toBe(false);
      expect(await h.plant.exists(`fleet:pool:large:claim:${id(3)}`)).toBe(false);
      expect((await h.call(pool.GET, "GET", "/pools/large")).status).toBe(404);
      await h.backend.poolPut("large", "fresh", "x", {});
      expect((await h.call(pool.GET, "GET", "/pools/large")).json.total).toBe(1);
    });

    // Redis alone: what reaches the server is what is watched (the memory backend has no commands)
    if (h.kind === "redis")
      it("never reads the whole pool to answer a page, an item or a deletion (Redis: MONITOR)", async () => {
        await plantPool("large", POOL_EXACT_UP_TO + 100);
        const sent = await h.monitor(async () => {
          await h.call(pool.GET, "GET", "/pools/large?limit=100");
          await h.call(pool.GET, "GET", "/pools/large?limit=100&cursor=0");
          await h.call(poolItem.GET, "GET", `/pools/large/items/${id(7)}`);
          await h.call(poolReveal.POST, "POST", `/pools/large/items/${id(7)}/reveal`);
          await h.call(poolRelease.POST, "POST", `/pools/large/items/${id(7)}/release`);
          await h.call(poolItem.DELETE, "DELETE", `/pools/large/items/${id(8)}`);
          await h.call(pool.DELETE, "DELETE", "/pools/large");
        });
        const whole = sent!.filter((c) => WHOLE.has(c[0]!) && c[1] === "fleet:pool:large");
        expect(whole).toEqual([]);
        expect(sent!.some((c) => c[0] === "hscan")).toBe(true);
      });
  });
}
