// A pool a page or a few items at a time over the in-memory key space, with the Redis
// implementation's rules (src/redis/pools.ts): ids sorted in code-unit order; the scan's cursor
// is the position of the page's first id in that order (opaque to callers, "0" to start and
// at the end). A key of another type fails as on Redis (WRONGTYPE, a CorruptDataError).
import { poolItemRecord } from "../codec";
import { keys } from "../keys";
import type { PoolItemRecord, PoolItemsPage } from "../types";
import type { MemoryStore } from "./store";

const nowSeconds = () => Date.now() / 1000;
const sorted = (ids: Iterable<string>) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export function memoryPoolItemIds(raw: MemoryStore, name: string, max: number): string[] | null {
  const key = keys.pool(name);
  if (raw.hlen(key) > Math.max(0, Math.floor(max))) return null;
  return sorted(raw.hgetall(key).keys());
}

export function memoryPoolItemsByIds(raw: MemoryStore, name: string, ids: string[]): PoolItemRecord[] {
  const key = keys.pool(name);
  const now = nowSeconds();
  const out: PoolItemRecord[] = [];
  for (const id of ids) {
    const v = raw.hget(key, id);
    if (v) out.push(poolItemRecord(id, v, raw.pttl(keys.poolClaim(name, id)), now));
  }
  return out;
}

export function memoryPoolItemsScan(raw: MemoryStore, name: string, cursor: string, limit: number): PoolItemsPage {
  if (!/^\d{1,20}$/.test(cursor)) throw new RangeError("a pool cursor is a decimal number answered by an earlier page");
  const from = Number(cursor);
  const all = sorted(raw.hgetall(keys.pool(name)).keys());
  const ids = all.slice(from, from + Math.max(1, Math.floor(limit)));
  const next = from + ids.length;
  return { items: memoryPoolItemsByIds(raw, name, ids), cursor: next < all.length ? String(next) : "0" };
}
