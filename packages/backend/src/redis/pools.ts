// Pools (fleet:pool:<name>, its claim keys) over Redis: the PoolsBackend part of the contract.
// Pruning follows Python's pool_put exactly (../codec.ts poolPruneVictims).
import type { Redis } from "ioredis";
import { encodePoolItem, poolCounts, poolItemRecord, poolPruneVictims, scalePoolCounts, tagsMatch } from "../codec";
import { CorruptDataError, checkHoldSeconds } from "../errors";
import { keys, poolNameOfKey, POOL_EXACT_UP_TO, POOL_SAMPLE } from "../keys";
import type { PoolsBackend, BytesLike, JsonObject, PoolItemRecord, PoolSummary, RawItem } from "../types";
import { nowSeconds, toPx } from "../shared";
import { callScript, isWrongTypeError, mapRedisError } from "./connection";
import { scanKeys, type RedisContext } from "./context";
import { asNumber, hashRecord } from "./replies";

async function readPool(ctx: RedisContext, r: Redis, name: string, now: number): Promise<PoolItemRecord[]> {
  const all = hashRecord(await r.hgetallBuffer(keys.pool(name)));
  const ids = Object.keys(all).sort();
  if (ids.length === 0) return [];
  const p = r.pipeline();
  for (const id of ids) p.pttl(keys.poolClaim(name, id));
  const res = await ctx.conn.exec(p);
  return ids.map((id, i) => poolItemRecord(id, all[id]!, res[i]![0] ? -2 : asNumber(res[i]![1]), now));
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
        const read = r.pipeline();
        names.forEach((n, i) => {
          const [err, len] = lens[i]!;
          if (err) read.echo("");
          else if (asNumber(len) <= exactUpTo) read.hgetallBuffer(keys.pool(n));
          else read.hrandfieldBuffer(keys.pool(n), POOL_SAMPLE, "WITHVALUES");
        });
        const got = await ctx.conn.exec(read);
        const samples = names.map((_, i) => {
          const [err, v] = got[i]!;
          if (lens[i]![0] || err) return {} as Record<string, Buffer>;
          return hashRecord(v);
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

    async poolDelete(name: string): Promise<{ deleted: boolean; items: number }> {
      const hash = keys.pool(name);
      return ctx.run(async (r) => {
        // Optimistic: the script deletes only if the item set is still the one read here.
        for (let attempt = 0; attempt < 10; attempt++) {
          const ids = await r.hkeys(hash);
          if (ids.length === 0) {
            const deleted = await r.del(hash);
            return { deleted: deleted > 0, items: 0 };
          }
          const n = asNumber(await callScript(r, "poolDelete", [hash, ...ids.map((id) => keys.poolClaim(name, id))], ids));
          if (n >= 0) return { deleted: true, items: n };
        }
        throw new CorruptDataError(`pool ${name} kept changing while it was being deleted`);
      });
    },
  };
  return api;
}
