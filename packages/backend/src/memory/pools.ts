// Pools (fleet:pool:<name>, its claim keys) in memory: the PoolsBackend part of the contract,
// pruning as Python's pool_put does (../codec.ts poolPruneVictims).

import { decodePoolItem, encodePoolItem, poolCounts, poolItemRecord, scalePoolCounts, poolPruneVictims, tagsMatch } from "../codec";
import { checkHoldSeconds } from "../errors";
import { POOL_EXACT_UP_TO, POOL_SAMPLE, keys, poolNameOfKey } from "../keys";
import type { PoolsBackend, BytesLike, JsonObject, PoolItemRecord, PoolSummary, RawItem } from "../types";
import { cmp, nowSeconds } from "../shared";
import { wrongTypeAs, type MemoryContext } from "./context";

function liveItems(ctx: MemoryContext, name: string): RawItem[] {
  const now = nowSeconds();
  const out: RawItem[] = [];
  for (const [id, raw] of ctx.raw.hgetall(keys.pool(name))) {
    const d = decodePoolItem(raw);
    if (!d || (d.expiresAt !== null && d.expiresAt < now)) continue;
    const pttl = ctx.raw.pttl(keys.poolClaim(name, id));
    out.push({ id, payload: d.payload, tags: d.tags, expiresAt: d.expiresAt, inUseUntil: pttl > 0 ? now + pttl / 1000 : null });
  }
  // by id, as the Redis implementation lists them (Python's order is Redis's hash order)
  return out.sort((a, b) => cmp(a.id, b.id));
}

function poolRecords(ctx: MemoryContext, name: string): PoolItemRecord[] {
  const now = nowSeconds();
  return [...ctx.raw.hgetall(keys.pool(name))].map(([id, raw]) => poolItemRecord(id, raw, ctx.raw.pttl(keys.poolClaim(name, id)), now)).sort((a, b) => cmp(a.id, b.id));
}

export function memoryPools(ctx: MemoryContext): PoolsBackend {
  const { raw } = ctx;
  return {
    async poolPut(name: string, itemId: string, payload: BytesLike, tags: JsonObject, ttlSeconds?: number | null): Promise<void> {
      const now = nowSeconds();
      const expiresAt = ttlSeconds != null && ttlSeconds > 0 ? now + ttlSeconds : null;
      const key = keys.pool(name);
      raw.hset(key, { [itemId]: encodePoolItem(payload, tags, expiresAt) });
      // Python prunes on every put: what it cannot decode and what has expired, nothing else.
      const doomed = poolPruneVictims(raw.hgetall(key), now);
      if (doomed.length) raw.hdel(key, ...doomed);
    },

    async poolList(name: string): Promise<RawItem[]> {
      return liveItems(ctx, name);
    },

    async poolRemove(name: string, itemId: string): Promise<boolean> {
      const removed = raw.hdel(keys.pool(name), itemId) > 0;
      raw.del(keys.poolClaim(name, itemId));
      return removed;
    },

    async poolRelease(name: string, itemId: string): Promise<boolean> {
      return raw.del(keys.poolClaim(name, itemId)) > 0;
    },

    async poolClaimAny(name: string, where: JsonObject, holdSeconds: number): Promise<RawItem | null> {
      checkHoldSeconds(holdSeconds);
      // Python's order: latest expiry first, never-expiring items last (stable sort).
      const items = liveItems(ctx, name).sort((a, b) => (b.expiresAt ?? 0) - (a.expiresAt ?? 0));
      for (const item of items) {
        if (item.inUseUntil !== null || !tagsMatch(item.tags, where)) continue;
        if (raw.set(keys.poolClaim(name, item.id), "1", { nx: true, ttlMs: holdSeconds * 1000 })) return item;
      }
      return null;
    },

    async poolSize(name: string): Promise<number> {
      return raw.hlen(keys.pool(name));
    },

    async poolNames(): Promise<string[]> {
      const names = new Set<string>();
      for (const k of raw.keysWithPrefix("fleet:pool:")) {
        const n = poolNameOfKey(k);
        // any type, as Redis's SCAN finds it: a key of another type is listed, and read as corrupt
        if (n !== null) names.add(n);
      }
      return [...names].sort(cmp);
    },

    async poolSummaries(names: string[], opts: { exactUpTo?: number } = {}): Promise<PoolSummary[]> {
      const exactUpTo = opts.exactUpTo ?? POOL_EXACT_UP_TO;
      return names.map((name) => {
        const all = wrongTypeAs(null, () => poolRecords(ctx, name));
        if (all === null) return { name, size: 0, live: 0, expired: 0, claimed: 0, free: 0, corrupt: ["items"] };
        if (all.length <= exactUpTo) return { name, size: all.length, ...poolCounts(all) };
        // as Redis does for a big pool: a random sample of distinct items, scaled
        const sample = [...all];
        for (let i = sample.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [sample[i], sample[j]] = [sample[j]!, sample[i]!];
        }
        sample.length = Math.min(POOL_SAMPLE, sample.length);
        return { name, size: all.length, ...scalePoolCounts(poolCounts(sample), sample.length, all.length), estimated: { sampled: sample.length } };
      });
    },

    async poolItems(name: string): Promise<PoolItemRecord[]> {
      return poolRecords(ctx, name);
    },

    async poolDelete(name: string): Promise<{ deleted: boolean; items: number }> {
      const key = keys.pool(name);
      const ids = [...raw.hgetall(key).keys()];
      raw.del(...ids.map((id) => keys.poolClaim(name, id)));
      return { deleted: raw.del(key) > 0, items: ids.length };
    },
  };
}
