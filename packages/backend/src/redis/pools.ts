// Pools (fleet:pool:<name>, its claim keys) over Redis: the PoolsBackend part of the contract.
// Pruning follows Python's pool_put exactly (../codec.ts poolPruneVictims).
//
// The console's reads and deletion of one pool are bounded whatever its size (issue 19.8:
// pools of 100k items; issue 11: no single command may stall the fleet). A page is HSCAN steps
// of O(limit) or, for a small pool, the ids (pool-ids-1.lua, HKEYS only up to a size) and HMGET
// of the page; one item is HMGET; a small pool's exact counts come from HSCAN steps, never one
// HGETALL; a deletion renames the hash in one step and then removes the claim keys in chunks.
// Python's own protocol methods (poolPut's prune, poolList, poolClaimAny) still read the whole
// hash, as backend.py does.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { encodePoolItem, poolCounts, poolItemRecord, poolPruneVictims, scalePoolCounts, tagsMatch } from "../codec";
import { checkHoldSeconds } from "../errors";
import { consoleKeys, keys, poolNameOfKey, POOL_EXACT_UP_TO, POOL_SAMPLE } from "../keys";
import type { PoolsBackend, BytesLike, JsonObject, PoolItemRecord, PoolItemsPage, PoolSummary, RawItem } from "../types";
import { nowSeconds, toPx } from "../shared";
import { callScript, isWrongTypeError, mapRedisError, type RedisConnection } from "./connection";
import { scanKeys, type RedisContext } from "./context";
import { asBuffer, asNumber, hashRecord } from "./replies";

async function readPool(ctx: RedisContext, r: Redis, name: string, now: number): Promise<PoolItemRecord[]> {
  const all = hashRecord(await r.hgetallBuffer(keys.pool(name)));
  const ids = Object.keys(all).sort();
  if (ids.length === 0) return [];
  const p = r.pipeline();
  for (const id of ids) p.pttl(keys.poolClaim(name, id));
  const res = await ctx.conn.exec(p);
  return ids.map((id, i) => poolItemRecord(id, all[id]!, res[i]![0] ? -2 : asNumber(res[i]![1]), now));
}

/** Items per pool-delete-chunk-n.lua call (one HSCAN step, one HEXISTS + UNLINK each: well under a millisecond). */
export const POOL_DELETE_CHUNK = 500;
/** HSCAN steps one page may take at most (a sparse stretch of the table answers fewer items). */
const SCAN_STEPS = 8;

/** The claims (PTTL) of `ids`, one pipelined round trip; -2 for an error (a wrong-typed claim key reads as no claim). */
async function claimPttls(conn: RedisConnection, r: Redis, name: string, ids: string[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const p = r.pipeline();
  for (const id of ids) p.pttl(keys.poolClaim(name, id));
  const res = await conn.exec(p);
  return res.map(([err, v]) => (err ? -2 : asNumber(v)));
}

async function poolItemIds(r: Redis, name: string, max: number): Promise<string[] | null> {
  const res = await callScript(r, "poolIds", [keys.pool(name)], [String(Math.max(0, Math.floor(max)))], { buffer: true });
  if (!Array.isArray(res)) return null;
  return res.map((b) => asBuffer(b)!.toString("utf8")).sort();
}

async function poolItemsByIds(conn: RedisConnection, r: Redis, name: string, ids: string[]): Promise<PoolItemRecord[]> {
  if (ids.length === 0) return [];
  const now = nowSeconds();
  const p = r.pipeline().hmgetBuffer(keys.pool(name), ...ids);
  for (const id of ids) p.pttl(keys.poolClaim(name, id));
  const res = await conn.exec(p);
  const [err, values] = res[0]!;
  if (err) throw err;
  const raws = values as Array<Buffer | null>;
  const out: PoolItemRecord[] = [];
  ids.forEach((id, i) => {
    const raw = raws[i];
    if (!raw) return;
    const [cerr, pttl] = res[i + 1]!;
    out.push(poolItemRecord(id, raw, cerr ? -2 : asNumber(pttl), now));
  });
  return out;
}

async function poolItemsScan(conn: RedisConnection, r: Redis, name: string, cursor: string, limit: number): Promise<PoolItemsPage> {
  if (!/^\d{1,20}$/.test(cursor)) throw new RangeError("a pool cursor is a decimal number answered by an earlier page");
  const want = Math.max(1, Math.floor(limit));
  const found = new Map<string, Buffer>();
  let next = cursor;
  for (let step = 0; step < SCAN_STEPS; step++) {
    const count = Math.max(10, want - found.size);
    let reply: [Buffer, Buffer[]];
    try {
      reply = (await r.hscanBuffer(keys.pool(name), next, "COUNT", count)) as [Buffer, Buffer[]];
    } catch (err) {
      // a cursor Redis does not take (beyond 2^64)
      if (err instanceof Error && /invalid cursor/i.test(err.message)) throw new RangeError("a pool cursor is a decimal number answered by an earlier page");
      throw err;
    }
    next = reply[0].toString("latin1");
    for (const [id, raw] of Object.entries(hashRecord(reply[1]))) found.set(id, raw);
    if (next === "0" || found.size >= want) break;
  }
  const ids = [...found.keys()].sort();
  const now = nowSeconds();
  const pttls = await claimPttls(conn, r, name, ids);
  return { items: ids.map((id, i) => poolItemRecord(id, found.get(id)!, pttls[i]!, now)), cursor: next };
}

/** Items per HSCAN step when a small pool is read whole for its exact counts (poolSummaries). */
export const POOL_SCAN_CHUNK = 500;

/**
 * Every item of a pool (poolSummaries calls it for pools of at most POOL_EXACT_UP_TO), in
 * HSCAN steps of POOL_SCAN_CHUNK: one HGETALL of 5,000 items of 4 KB held Redis 18 ms, and
 * the event hub reads every pool's summary each second. An item changed during the walk may
 * be seen twice (kept once) or, if removed meanwhile, not at all.
 */
async function poolScanAll(r: Redis, name: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  let cursor = "0";
  do {
    const [next, flat] = (await r.hscanBuffer(keys.pool(name), cursor, "COUNT", POOL_SCAN_CHUNK)) as [Buffer, Buffer[]];
    cursor = next.toString("latin1");
    Object.assign(out, hashRecord(flat));
  } while (cursor !== "0");
  return out;
}

/** Removes a deleted pool's claim keys in chunks, then its renamed hash and its note. */
async function finishPoolDelete(conn: RedisConnection, r: Redis, deleting: string, name: string): Promise<void> {
  const live = keys.pool(name);
  let cursor = "0";
  // every item is seen within one full pass (HSCAN's guarantee) and removed; a second pass
  // only finds what someone else added to this key meanwhile, a third gives up on it
  for (let pass = 0; pass < 3; ) {
    let reply: [Buffer, Buffer[]];
    try {
      reply = (await r.hscanBuffer(deleting, cursor, "COUNT", POOL_DELETE_CHUNK)) as [Buffer, Buffer[]];
    } catch (err) {
      // not a hash (someone wrote there): nothing of ours to finish but the note
      if (!isWrongTypeError(err)) throw err;
      break;
    }
    cursor = reply[0].toString("latin1");
    const ids = Object.keys(hashRecord(reply[1]));
    if (ids.length > 0) {
      await callScript(r, "poolDeleteChunk", [live, deleting, ...ids.map((id) => keys.poolClaim(name, id))], ids);
    }
    if (cursor === "0") {
      pass++;
      if ((await r.exists(deleting)) === 0) break;
    }
  }
  await conn.execValues(r.multi().unlink(deleting).hdel(consoleKeys.poolDeletes, deleting));
}

/** Deletions a process began and did not finish (it died midway): finished here, before a new one. */
async function finishLeftOver(conn: RedisConnection, r: Redis): Promise<void> {
  let cursor = "0";
  do {
    const [next, flat] = (await r.hscanBuffer(consoleKeys.poolDeletes, cursor, "COUNT", 100)) as [Buffer, Buffer[]];
    cursor = next.toString("latin1");
    for (const [deleting, name] of Object.entries(hashRecord(flat))) await finishPoolDelete(conn, r, deleting, name.toString("utf8"));
  } while (cursor !== "0");
}

async function poolDelete(conn: RedisConnection, r: Redis, name: string): Promise<{ deleted: boolean; items: number }> {
  await finishLeftOver(conn, r);
  const deleting = consoleKeys.poolDeleting(randomBytes(16).toString("hex"));
  const n = asNumber(await callScript(r, "poolDeleteBegin", [keys.pool(name), consoleKeys.poolDeletes, deleting], [name]));
  if (n < 0) return { deleted: false, items: 0 };
  await finishPoolDelete(conn, r, deleting, name);
  return { deleted: true, items: n };
}

export function redisPools(ctx: RedisContext): PoolsBackend {
  const api: PoolsBackend = {
    async poolPut(name: string, itemId: string, payload: BytesLike, tags: JsonObject, ttlSeconds?: number | null): Promise<void> {
      const now = nowSeconds();
      const expiresAt = ttlSeconds != null && ttlSeconds > 0 ? now + ttlSeconds : null;
      const encoded = encodePoolItem(payload, tags, expiresAt);
      const hash = keys.pool(name);
      await ctx.run(async (r) => {
        const [, all] = await ctx.conn.execValues(r.pipeline().hset(hash, itemId, encoded).hgetallBuffer(hash));
        // Python prunes what it cannot decode and what has expired on every put (and nothing
        // else); the script only removes values still equal to what was judged here, so a
        // concurrent re-put survives.
        const items = hashRecord(all);
        const prune: Buffer[] = [];
        for (const id of poolPruneVictims(Object.entries(items), now)) prune.push(Buffer.from(id, "utf8"), items[id]!);
        if (prune.length > 0) await callScript(r, "poolPrune", [hash], prune);
      });
    },

    async poolList(name: string): Promise<RawItem[]> {
      const now = nowSeconds();
      return ctx.run(async (r) => {
        const items = await readPool(ctx, r, name, now);
        return items
          .filter((it) => !it.corrupt && !it.expired)
          .map((it) => ({ id: it.id, payload: it.payload!, tags: it.tags!, expiresAt: it.expiresAt, inUseUntil: it.inUseUntil }));
      });
    },

    async poolRemove(name: string, itemId: string): Promise<boolean> {
      return ctx.run(async (r) => {
        const [deleted] = await ctx.conn.execValues(r.multi().hdel(keys.pool(name), itemId).del(keys.poolClaim(name, itemId)));
        return asNumber(deleted) > 0;
      });
    },

    async poolRelease(name: string, itemId: string): Promise<boolean> {
      return ctx.run(async (r) => (await r.del(keys.poolClaim(name, itemId))) > 0);
    },

    async poolClaimAny(name: string, where: JsonObject, holdSeconds: number): Promise<RawItem | null> {
      checkHoldSeconds(holdSeconds);
      const items = await api.poolList(name);
      // Python: newest expiry first (no expiry counts as 0), stable.
      items.sort((a, b) => (b.expiresAt ?? 0) - (a.expiresAt ?? 0));
      return ctx.run(async (r) => {
        for (const item of items) {
          if (item.inUseUntil !== null || !tagsMatch(item.tags, where)) continue;
          // SET NX is the claim; losing a race only moves on to the next candidate.
          const ok = await r.set(keys.poolClaim(name, item.id), "1", "PX", toPx(holdSeconds), "NX");
          if (ok === "OK") return item;
        }
        return null;
      });
    },

    async poolSize(name: string): Promise<number> {
      return ctx.run((r) => r.hlen(keys.pool(name)));
    },

    async poolNames(): Promise<string[]> {
      return ctx.run(async (r) => {
        const names = new Set<string>();
        for (const k of await scanKeys(r, "fleet:pool:*")) {
          const n = poolNameOfKey(k);
          if (n !== null) names.add(n);
        }
        return [...names].sort();
      });
    },

    async poolSummaries(names: string[], opts: { exactUpTo?: number } = {}): Promise<PoolSummary[]> {
      if (names.length === 0) return [];
      const exactUpTo = opts.exactUpTo ?? POOL_EXACT_UP_TO;
      const now = nowSeconds();
      return ctx.run(async (r) => {
        // HLEN first: a small pool is read whole, a big one through a random sample of
        // POOL_SAMPLE items (HRANDFIELD is O(count)), so no request reads 100k items for counts
        const lens = await ctx.conn.exec(names.reduce((p, n) => p.hlen(keys.pool(n)), r.pipeline()));
        // a small pool is read whole in HSCAN steps (poolScanAll), never one HGETALL
        const exact = (i: number) => !lens[i]![0] && asNumber(lens[i]![1]) <= exactUpTo;
        const read = r.pipeline();
        names.forEach((n, i) => {
          if (lens[i]![0] || exact(i)) read.echo("");
          else read.hrandfieldBuffer(keys.pool(n), POOL_SAMPLE, "WITHVALUES");
        });
        const [got, wholes] = await Promise.all([
          ctx.conn.exec(read),
          Promise.all(
            names.map((n, i) =>
              exact(i)
                ? poolScanAll(r, n).then(
                    (v): [Error | null, unknown] => [null, v],
                    (e: Error): [Error | null, unknown] => [e, null],
                  )
                : null,
            ),
          ),
        ]);
        names.forEach((_, i) => {
          if (wholes[i]) got[i] = wholes[i]!;
        });
        const samples = names.map((_, i) => {
          const [err, v] = got[i]!;
          if (lens[i]![0] || err) return {} as Record<string, Buffer>;
          return exact(i) ? (v as Record<string, Buffer>) : hashRecord(v);
        });
        const claimP = r.pipeline();
        names.forEach((n, i) => {
          for (const id of Object.keys(samples[i]!)) claimP.exists(keys.poolClaim(n, id));
        });
        const claims = claimP.length > 0 ? await ctx.conn.exec(claimP) : [];
        let c = 0;
        return names.map((name, i) => {
          const err = lens[i]![0] ?? got[i]![0];
          if (err && !isWrongTypeError(err)) throw mapRedisError(ctx.rawUrl, err);
          if (err) return { name, size: 0, live: 0, expired: 0, claimed: 0, free: 0, corrupt: ["items"] };
          const records = Object.entries(samples[i]!).map(([id, raw]) => {
            const [cerr, exists] = claims[c++]!;
            // EXISTS, not PTTL: a claim key without a TTL blocks claims as well
            return poolItemRecord(id, raw, !cerr && asNumber(exists) > 0 ? 1 : -2, now);
          });
          const size = asNumber(lens[i]![1]);
          if (size <= exactUpTo) return { name, size: records.length, ...poolCounts(records) };
          return { name, size, ...scalePoolCounts(poolCounts(records), records.length, size), estimated: { sampled: records.length } };
        });
      });
    },

    async poolItems(name: string): Promise<PoolItemRecord[]> {
      const now = nowSeconds();
      return ctx.run((r) => readPool(ctx, r, name, now));
    },

    async poolItemIds(name: string, max: number): Promise<string[] | null> {
      return ctx.run((r) => poolItemIds(r, name, max));
    },

    async poolItemsByIds(name: string, ids: string[]): Promise<PoolItemRecord[]> {
      return ctx.run((r) => poolItemsByIds(ctx.conn, r, name, ids));
    },

    async poolItemsScan(name: string, cursor: string, limit: number): Promise<PoolItemsPage> {
      return ctx.run((r) => poolItemsScan(ctx.conn, r, name, cursor, limit));
    },

    async poolDelete(name: string): Promise<{ deleted: boolean; items: number }> {
      return ctx.run((r) => poolDelete(ctx.conn, r, name));
    },
  };
  return api;
}
