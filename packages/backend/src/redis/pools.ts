// The console's reads and deletion of one pool, bounded whatever its size (issue 19.8: pools of
// 100k items; issue 11: no single command may stall the fleet). A page is HSCAN steps of
// O(limit) or, for a small pool, the ids (pool-ids-1.lua, HKEYS only up to a size) and HMGET of
// the page; one item is HGET; a deletion renames the hash in one step and then removes the
// claim keys in chunks. Python's own protocol methods (poolPut's prune, poolList,
// poolClaimAny) still read the whole hash, as backend.py does: see ./index.ts.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";

import { poolItemRecord } from "../codec";
import { consoleKeys, keys } from "../keys";
import type { PoolItemRecord, PoolItemsPage } from "../types";
import { callScript, isWrongTypeError, type RedisConnection } from "./connection";
import { asBuffer, asNumber, hashRecord } from "./replies";

/** Items per pool-delete-chunk-n.lua call (one HSCAN step, one HEXISTS + UNLINK each: well under a millisecond). */
export const POOL_DELETE_CHUNK = 500;
/** HSCAN steps one page may take at most (a sparse stretch of the table answers fewer items). */
const SCAN_STEPS = 8;
const nowSeconds = () => Date.now() / 1000;

/** The claims (PTTL) of `ids`, one pipelined round trip; -2 for an error (a wrong-typed claim key reads as no claim). */
async function claimPttls(conn: RedisConnection, r: Redis, name: string, ids: string[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const p = r.pipeline();
  for (const id of ids) p.pttl(keys.poolClaim(name, id));
  const res = await conn.exec(p);
  return res.map(([err, v]) => (err ? -2 : asNumber(v)));
}

export async function redisPoolItemIds(r: Redis, name: string, max: number): Promise<string[] | null> {
  const res = await callScript(r, "poolIds", [keys.pool(name)], [String(Math.max(0, Math.floor(max)))], { buffer: true });
  if (!Array.isArray(res)) return null;
  return res.map((b) => asBuffer(b)!.toString("utf8")).sort();
}

export async function redisPoolItemsByIds(conn: RedisConnection, r: Redis, name: string, ids: string[]): Promise<PoolItemRecord[]> {
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

export async function redisPoolItemsScan(conn: RedisConnection, r: Redis, name: string, cursor: string, limit: number): Promise<PoolItemsPage> {
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
export async function redisPoolScanAll(r: Redis, name: string): Promise<Record<string, Buffer>> {
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

export async function redisPoolDelete(conn: RedisConnection, r: Redis, name: string): Promise<{ deleted: boolean; items: number }> {
  await finishLeftOver(conn, r);
  const deleting = consoleKeys.poolDeleting(randomBytes(16).toString("hex"));
  const n = asNumber(await callScript(r, "poolDeleteBegin", [keys.pool(name), consoleKeys.poolDeletes, deleting], [name]));
  if (n < 0) return { deleted: false, items: 0 };
  await finishPoolDelete(conn, r, deleting, name);
  return { deleted: true, items: n };
}
