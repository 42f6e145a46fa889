// The Redis implementation of the Backend contract, byte-compatible with the Python
// reference (../shared/spec/backend.py). Multi-step writes that read are Lua scripts
// (src/lua); multi-step writes that do not read are MULTI; console reads are pipelined.
import { randomBytes } from "node:crypto";
import type { Redis, ChainableCommander, Command } from "ioredis";
import {
  configFromRaw,
  genFromRaw,
  encodePoolItem,
  encodeUnixFloat,
  escapeGlob,
  sha1Hex,
  isJsonObject,
  parseIntStrict,
  parseJsonBytes,
  poolCounts,
  poolItemRecord,
  poolPruneVictims,
  scalePoolCounts,
  statsFrameFromRaw,
  tagsMatch,
  toBuffer,
  workerRecordFromRaw,
  decodeUtf8,
} from "../codec";
import { CorruptDataError, StaleGenerationError, checkCounterValue, checkHoldSeconds } from "../errors";
import {
  AUDIT_LIST,
  CATALOG_HASH,
  consoleKeys,
  REFUSAL_COUNTER_KEEP_MS,
  DISCOVERY_SCAN_MATCH,
  WORKER_ALL_INDEX,
  WORKER_FIELDS,
  keys,
  kvPartsOfKey,
  parseWorkerAllMember,
  poolNameOfKey,
  POOL_EXACT_UP_TO,
  POOL_SAMPLE,
  priorityFromInt,
  queueKeyForPriority,
  queueNameOfKey,
  type Priority,
  type WorkerField,
} from "../keys";
import { leaseNowSeconds } from "../lease-clock";
import { pyFloatRepr, pyJsonBytes } from "../pyjson";
import { RESERVE_LUA_PARSE_MAX_BYTES, PROVISIONAL_TASK_ID_PREFIX, SCHEDULED_DRAIN_MAX, SCHEDULED_DRAIN_MAX_BYTES } from "../queue-bounds";
import { taskIdOfBody, withAttemptsReset } from "../task-body";
import type {
  BulkJobRecord,
  QueueScanChunk,
  QueueScanPart,
  TakeMatchesChunk,
  Backend,
  BusMessage,
  BytesLike,
  ConfigWrite,
  CounterSummary,
  DeadLetterMatch,
  DeadLetterSelector,
  HealthInfo,
  JsonObject,
  KeyScanPage,
  KeyspaceEvents,
  KvKeySummary,
  KvKeysPage,
  KvNamespaceSummary,
  LockSummary,
  PoolItemRecord,
  PoolItemsPage,
  PoolSummary,
  QueueDepths,
  QueueDetail,
  RawItem,
  StatsFrame,
  StreamEntry,
  StreamSummary,
  Subscription,
  SweepResult,
  WorkerErrorWrite,
  WorkerIndexEntry,
  WorkerRecord,
  WorkerRef,
  LeaseOption,
  ReservedTask,
  AuditWrite,
  RefusalSlot,
  SignInPolicy,
  SignInReservation,
  RequeueOptions,
} from "../types";
import type { AlertStateChange, AlertStateRead, HistoryRangeRead, HistorySlotWrite, PendingListWatch, QueueWatch, QueueWatchOptions, QueueWatchRequest } from "../watch-types";
import { workerIndexEntryFromRaw } from "../worker-index";
import type { OfflineRemoval, WorkerStateEntry } from "../types";
import { readWorkersState, removeOfflineWorkers } from "./worker-bulk";
import { callScript, isWrongTypeError, mapRedisError, RedisConnection, type PipelineResults, type RedisConnectionOptions } from "./connection";
import { EncodedCommand, keyAround, RespArgs, type KeyAround } from "./encoded-command";
import { unpack, type Packed } from "./msgpack";
import { QueueWaker } from "./queue-waker";
import { redisPoolDelete, redisPoolItemIds, redisPoolItemsByIds, redisPoolItemsScan, redisPoolScanAll } from "./pools";
import { redisBulkJobCreate, redisBulkJobGet, redisBulkJobIds, redisBulkJobSet, redisQueueScan, redisQueueTakeMatches } from "./search";
import { luaScripts } from "./scripts.generated";
import { asBuffer, asBufferArray, asNumber, hashRecord, parseInfo, scoredPairs } from "./replies";

export type { RedisConnectionOptions } from "./connection";

/**
 * Workers per MULTI in workersGet and workersIndex. Chunks let Redis work on the next one
 * while the client decodes the last, and keep each MULTI short, since Redis runs it alone
 * (on 10,000 workers 250, 500 and 1,000 measured alike; 2,500 was slower).
 */
export const WORKERS_PER_CALL = 500;
const SCAN_COUNT = 1000;
/**
 * Dead letters per LRANGE while locating refs, and per atomic chunk of "requeue all"
 * (a script of 1,000 LMOVEs runs for about a millisecond).
 */
export const DLQ_CHUNK = 1000;
/** SCAN COUNT ceiling and the slots one kv page may look at (a few milliseconds of Redis in all). */
const KV_PAGE_MAX_COUNT = 10_000;
const KV_PAGE_SCAN_BUDGET = 200_000;
/** Expired reservations requeued per sweep-3.lua call. */
export const SWEEP_CHUNK = 1000;
/** "Requeue all" with attempts back: bodies per chunk, and about this many bytes of arguments. */
const DLQ_RESET_CHUNK = 500;
const DLQ_RESET_CHUNK_BYTES = 1 << 20;

/** The string keys workersGet MGETs per worker, and the record fields they fill. */
const STRING_KEYS = ["hardware", "config", "gen", "stats"] as const;
const STRING_FIELDS = ["hardware", "config", "config_gen", "stats"] as const;
/** The part of a queue each reply of queueDepthCommands reads, as QueueDepths.corrupt names it. */
const DEPTH_PARTS = ["high", "normal", "low", "processing", "processing", "scheduled", "scheduled", "dead"] as const;
/** workers-read-n.lua's wrong-type bit for the state hash (a wrong-typed history only reads as empty). */
const WRONG_STATE = 1;
const EMPTY = Buffer.alloc(0);

/** How many of the ascending `sorted` are below `q`. */
function countBelow(sorted: number[], q: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < q) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function markCorrupt(rec: { corrupt: string[] }, field: string): void {
  if (!rec.corrupt.includes(field)) rec.corrupt.push(field);
}

/** EVAL of workers-read-n.lua up to its keys: the text, the key count, wkrs:<type>. */
function workersReadArgs(type: string, workerKeys: number, keyBytes: number): RespArgs {
  const lua = luaScripts.workersRead.lua;
  return new RespArgs(lua.length + keyBytes + 256)
    .add(lua)
    .add(String(workerKeys + 1))
    .add(keys.workerTypeIndex(type));
}

/** The fixed parts of `wkr:<type>:<id>:<field>` for each field, from the one module that owns key names. */
function workerKeysAround(type: string, fields: readonly WorkerField[]): KeyAround[] {
  return fields.map((f) => keyAround((id) => keys.worker(type, id, f)));
}

/** Bytes one encoded worker key is likely to take (room for the longest field, `$<len>\r\n`, `\r\n` and some UTF-8). */
function keyBytesEstimate(type: string, ids: string[]): number {
  return 48 + 2 * (type.length + (ids[0]?.length ?? 0));
}

/** Positions of `refs` grouped by automation type, in chunks of at most `size`. */
function chunksByType(refs: WorkerRef[], size: number): Array<{ type: string; positions: number[] }> {
  const byType = new Map<string, number[]>();
  refs.forEach((ref, i) => {
    const list = byType.get(ref.automationType);
    if (list) list.push(i);
    else byType.set(ref.automationType, [i]);
  });
  const chunks: Array<{ type: string; positions: number[] }> = [];
  for (const [type, positions] of byType) {
    for (let i = 0; i < positions.length; i += size) chunks.push({ type, positions: positions.slice(i, i + size) });
  }
  return chunks;
}

const nowSeconds = () => Date.now() / 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Python's `time.time() + ttl`-style durations, as milliseconds Redis accepts (PX >= 1). */
const toPx = (seconds: number) => Math.max(1, Math.round(seconds * 1000));

function ttlMsOf(pttl: unknown): number | null {
  const n = asNumber(pttl);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

export function createRedisBackend(url: string, opts: RedisConnectionOptions = {}): RedisBackend {
  return new RedisBackend(url, opts);
}

export class RedisBackend implements Backend {
  readonly kind = "redis" as const;
  private readonly conn: RedisConnection;
  private readonly subscriptions = new Set<Subscription>();
  private readonly wakers = new Map<string, QueueWaker>();

  constructor(
    private readonly rawUrl: string,
    private readonly opts: RedisConnectionOptions = {},
  ) {
    this.conn = new RedisConnection(rawUrl, opts);
  }

  get url(): string {
    return this.conn.url;
  }

  /** The underlying ioredis client, for tests and benchmarks that need to look beneath the contract. */
  get client(): Redis {
    return this.conn.client;
  }

  private run<T>(fn: (r: Redis) => Promise<T>): Promise<T> {
    return this.conn.run(fn);
  }

  async close(): Promise<void> {
    await Promise.all([...this.wakers.values()].map((w) => w.close()));
    this.wakers.clear();
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.conn.close();
  }

  async health(): Promise<HealthInfo> {
    return this.run(async (r) => {
      const t0 = performance.now();
      await r.ping();
      const latencyMs = performance.now() - t0;
      const [server, persistence, memory] = (await this.conn.execValues(r.pipeline().info("server").info("persistence").info("memory"))) as string[];
      const info = parseInfo(`${server}\n${persistence}\n${memory}`);
      const used = Number(info.get("used_memory"));
      const aof = info.get("aof_enabled");
      return {
        version: info.get("redis_version") ?? "unknown",
        latencyMs,
        aofEnabled: aof === undefined ? null : aof === "1",
        usedMemoryBytes: Number.isFinite(used) ? used : null,
      };
    });
  }

  // ---- SCAN helpers

  private async scanKeys(r: Redis, pattern: string): Promise<string[]> {
    const found = new Set<string>();
    let cursor = "0";
    do {
      const [next, batch] = await r.scan(cursor, "MATCH", pattern, "COUNT", SCAN_COUNT);
      for (const k of batch) found.add(k);
      cursor = next;
    } while (cursor !== "0");
    return [...found].sort();
  }

  // ---- kv

  async kvSet(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<void> {
    const k = keys.kv(ns, key);
    await this.run(async (r) => {
      if (ttlSeconds != null && ttlSeconds > 0) await r.set(k, toBuffer(value), "PX", toPx(ttlSeconds));
      else await r.set(k, toBuffer(value));
    });
  }

  async kvSetNx(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<boolean> {
    const k = keys.kv(ns, key);
    return this.run(async (r) => {
      const res = ttlSeconds != null && ttlSeconds > 0 ? await r.set(k, toBuffer(value), "PX", toPx(ttlSeconds), "NX") : await r.set(k, toBuffer(value), "NX");
      return res === "OK";
    });
  }

  async kvGet(ns: string, key: string): Promise<Buffer | null> {
    return this.run((r) => r.getBuffer(keys.kv(ns, key)));
  }

  async kvDel(ns: string, key: string): Promise<boolean> {
    return this.run(async (r) => (await r.del(keys.kv(ns, key))) > 0);
  }

  async kvGetEntry(ns: string, key: string): Promise<{ value: Buffer; ttlMs: number | null } | null> {
    const k = keys.kv(ns, key);
    return this.run(async (r) => {
      const [value, pttl] = await this.conn.execValues(r.pipeline().getBuffer(k).pttl(k));
      const buf = asBuffer(value);
      return buf === null ? null : { value: buf, ttlMs: ttlMsOf(pttl) };
    });
  }

  async kvNamespaces(): Promise<KvNamespaceSummary[]> {
    return this.run(async (r) => {
      const counts = new Map<string, number>();
      for (const k of await this.scanKeys(r, "fleet:kv:*")) {
        const parts = kvPartsOfKey(k);
        if (parts) counts.set(parts.ns, (counts.get(parts.ns) ?? 0) + 1);
      }
      return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([ns, n]) => ({ ns, keys: n }));
    });
  }

  async kvKeys(ns: string): Promise<KvKeySummary[]> {
    return this.run(async (r) => {
      const found = (await this.scanKeys(r, `fleet:kv:${escapeGlob(ns)}:*`)).filter((k) => kvPartsOfKey(k)?.ns === ns);
      if (found.length === 0) return [];
      const p = r.pipeline();
      for (const k of found) p.pttl(k).strlen(k);
      const res = await this.conn.exec(p);
      const out: KvKeySummary[] = [];
      found.forEach((k, i) => {
        const [pErr, pttl] = res[2 * i]!;
        const [sErr, len] = res[2 * i + 1]!;
        if (pErr || asNumber(pttl) === -2) return; // vanished between SCAN and read
        out.push({ key: kvPartsOfKey(k)!.key, ttlMs: ttlMsOf(pttl), bytes: sErr ? 0 : asNumber(len) });
      });
      return out;
    });
  }

  async kvKeySummaries(ns: string, names: string[]): Promise<KvKeySummary[]> {
    if (names.length === 0) return [];
    return this.run(async (r) => {
      const p = r.pipeline();
      for (const key of names) p.pttl(keys.kv(ns, key)).strlen(keys.kv(ns, key));
      const res = await this.conn.exec(p);
      const out: KvKeySummary[] = [];
      names.forEach((key, i) => {
        const [pErr, pttl] = res[2 * i]!;
        const [sErr, len] = res[2 * i + 1]!;
        if (pErr || asNumber(pttl) === -2) return;
        out.push({ key, ttlMs: ttlMsOf(pttl), bytes: sErr ? 0 : asNumber(len) });
      });
      return out;
    });
  }

  async kvKeysPage(ns: string, cursor: string, limit: number, opts: { budget?: number; density?: number } = {}): Promise<KvKeysPage> {
    const budget = opts.budget ?? KV_PAGE_SCAN_BUDGET;
    if (!/^\d+$/.test(cursor)) throw new RangeError(`not a kv page cursor: '${cursor}'`);
    const match = `fleet:kv:${escapeGlob(ns)}:*`;
    const found = new Set<string>();
    let next = cursor;
    await this.run(async (r) => {
      // A dense namespace fills the page in a step or two; a sparse one grows the step
      // (fewer round trips) up to KV_PAGE_MAX_COUNT, and the page ends after
      // KV_PAGE_SCAN_BUDGET slots looked at, answering what it has and where to go on.
      const density = opts.density !== undefined && opts.density > 0 ? Math.min(1, opts.density) : 1;
      let count = Math.max(10, Math.min(Math.ceil(limit / density), KV_PAGE_MAX_COUNT, budget));
      let looked = 0;
      do {
        const [c, batch] = await r.scan(next, "MATCH", match, "COUNT", count);
        next = c;
        looked += count;
        for (const k of batch) {
          const parts = kvPartsOfKey(k);
          if (parts?.ns === ns) found.add(parts.key);
        }
        if (batch.length < count / 4) count = Math.min(count * 4, KV_PAGE_MAX_COUNT);
      } while (next !== "0" && found.size < limit && looked < budget);
    });
    const sorted = [...found].sort();
    return { keys: await this.kvKeySummaries(ns, sorted), cursor: next };
  }

  // ---- pools

  async poolPut(name: string, itemId: string, payload: BytesLike, tags: JsonObject, ttlSeconds?: number | null): Promise<void> {
    const now = nowSeconds();
    const expiresAt = ttlSeconds != null && ttlSeconds > 0 ? now + ttlSeconds : null;
    const encoded = encodePoolItem(payload, tags, expiresAt);
    const hash = keys.pool(name);
    await this.run(async (r) => {
      const [, all] = await this.conn.execValues(r.pipeline().hset(hash, itemId, encoded).hgetallBuffer(hash));
      // Python prunes what it cannot decode and what has expired on every put (and nothing
      // else); the script only removes values still equal to what was judged here, so a
      // concurrent re-put survives.
      const items = hashRecord(all);
      const prune: Buffer[] = [];
      for (const id of poolPruneVictims(Object.entries(items), now)) prune.push(Buffer.from(id, "utf8"), items[id]!);
      if (prune.length > 0) await callScript(r, "poolPrune", [hash], prune);
    });
  }

  private async readPool(r: Redis, name: string, now: number): Promise<PoolItemRecord[]> {
    const all = hashRecord(await r.hgetallBuffer(keys.pool(name)));
    const ids = Object.keys(all).sort();
    if (ids.length === 0) return [];
    const p = r.pipeline();
    for (const id of ids) p.pttl(keys.poolClaim(name, id));
    const res = await this.conn.exec(p);
    return ids.map((id, i) => poolItemRecord(id, all[id]!, res[i]![0] ? -2 : asNumber(res[i]![1]), now));
  }

  async poolList(name: string): Promise<RawItem[]> {
    const now = nowSeconds();
    return this.run(async (r) => {
      const items = await this.readPool(r, name, now);
      return items
        .filter((it) => !it.corrupt && !it.expired)
        .map((it) => ({ id: it.id, payload: it.payload!, tags: it.tags!, expiresAt: it.expiresAt, inUseUntil: it.inUseUntil }));
    });
  }

  async poolRemove(name: string, itemId: string): Promise<boolean> {
    return this.run(async (r) => {
      const [deleted] = await this.conn.execValues(r.multi().hdel(keys.pool(name), itemId).del(keys.poolClaim(name, itemId)));
      return asNumber(deleted) > 0;
    });
  }

  async poolRelease(name: string, itemId: string): Promise<boolean> {
    return this.run(async (r) => (await r.del(keys.poolClaim(name, itemId))) > 0);
  }

  async poolClaimAny(name: string, where: JsonObject, holdSeconds: number): Promise<RawItem | null> {
    checkHoldSeconds(holdSeconds);
    const items = await this.poolList(name);
    // Python: newest expiry first (no expiry counts as 0), stable.
    items.sort((a, b) => (b.expiresAt ?? 0) - (a.expiresAt ?? 0));
    return this.run(async (r) => {
      for (const item of items) {
        if (item.inUseUntil !== null || !tagsMatch(item.tags, where)) continue;
        // SET NX is the claim; losing a race only moves on to the next candidate.
        const ok = await r.set(keys.poolClaim(name, item.id), "1", "PX", toPx(holdSeconds), "NX");
        if (ok === "OK") return item;
      }
      return null;
    });
  }

  async poolSize(name: string): Promise<number> {
    return this.run((r) => r.hlen(keys.pool(name)));
  }

  async poolNames(): Promise<string[]> {
    return this.run(async (r) => {
      const names = new Set<string>();
      for (const k of await this.scanKeys(r, "fleet:pool:*")) {
        const n = poolNameOfKey(k);
        if (n !== null) names.add(n);
      }
      return [...names].sort();
    });
  }

  async poolSummaries(names: string[], opts: { exactUpTo?: number } = {}): Promise<PoolSummary[]> {
    if (names.length === 0) return [];
    const exactUpTo = opts.exactUpTo ?? POOL_EXACT_UP_TO;
    const now = nowSeconds();
    return this.run(async (r) => {
      // HLEN first: a small pool is read whole, a big one through a random sample of
      // POOL_SAMPLE items (HRANDFIELD is O(count)), so no request reads 100k items for counts
      const lens = await this.conn.exec(names.reduce((p, n) => p.hlen(keys.pool(n)), r.pipeline()));
      // a small pool is read whole in HSCAN steps (./pools.ts), never one HGETALL
      const exact = (i: number) => !lens[i]![0] && asNumber(lens[i]![1]) <= exactUpTo;
      const read = r.pipeline();
      names.forEach((n, i) => {
        if (lens[i]![0] || exact(i)) read.echo("");
        else read.hrandfieldBuffer(keys.pool(n), POOL_SAMPLE, "WITHVALUES");
      });
      const [got, wholes] = await Promise.all([
        this.conn.exec(read),
        Promise.all(
          names.map((n, i) =>
            exact(i)
              ? redisPoolScanAll(r, n).then(
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
      const claims = claimP.length > 0 ? await this.conn.exec(claimP) : [];
      let c = 0;
      return names.map((name, i) => {
        const err = lens[i]![0] ?? got[i]![0];
        if (err && !isWrongTypeError(err)) throw mapRedisError(this.rawUrl, err);
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
  }

  async poolItems(name: string): Promise<PoolItemRecord[]> {
    const now = nowSeconds();
    return this.run((r) => this.readPool(r, name, now));
  }

  async poolItemIds(name: string, max: number): Promise<string[] | null> {
    return this.run((r) => redisPoolItemIds(r, name, max));
  }

  async poolItemsByIds(name: string, ids: string[]): Promise<PoolItemRecord[]> {
    return this.run((r) => redisPoolItemsByIds(this.conn, r, name, ids));
  }

  async poolItemsScan(name: string, cursor: string, limit: number): Promise<PoolItemsPage> {
    return this.run((r) => redisPoolItemsScan(this.conn, r, name, cursor, limit));
  }

  async poolDelete(name: string): Promise<{ deleted: boolean; items: number }> {
    return this.run((r) => redisPoolDelete(this.conn, r, name));
  }

  // ---- locks

  async lockAcquire(name: string, holdSeconds: number, waitSeconds: number): Promise<string | null> {
    const key = keys.lock(name);
    const token = randomBytes(16).toString("hex");
    const deadline = performance.now() + Math.max(0, waitSeconds) * 1000;
    let backoff = 50;
    for (;;) {
      const ok = await this.run((r) => r.set(key, token, "PX", toPx(Math.max(1, holdSeconds)), "NX"));
      if (ok === "OK") return token;
      const left = deadline - performance.now();
      if (left <= 0) return null;
      await sleep(Math.min(backoff, left));
      backoff = Math.min(backoff * 2, 500);
    }
  }

  async lockRelease(name: string, token: string): Promise<boolean> {
    return this.run(async (r) => asNumber(await callScript(r, "lockRelease", [keys.lock(name)], [token])) > 0);
  }

  async lockExtend(name: string, token: string, holdSeconds: number): Promise<boolean> {
    const ms = String(Math.max(1, Math.round(holdSeconds * 1000)));
    return this.run(async (r) => asNumber(await callScript(r, "lockExtend", [keys.lock(name)], [token, ms])) > 0);
  }

  async lockList(): Promise<LockSummary[]> {
    return this.run(async (r) => {
      const found = await this.scanKeys(r, "fleet:lock:*");
      if (found.length === 0) return [];
      const p = r.pipeline();
      for (const k of found) p.pttl(k);
      const res = await this.conn.exec(p);
      const out: LockSummary[] = [];
      found.forEach((k, i) => {
        const [err, pttl] = res[i]!;
        if (err || asNumber(pttl) === -2) return;
        out.push({ name: k.slice("fleet:lock:".length), ttlMs: ttlMsOf(pttl) });
      });
      return out;
    });
  }

  async lockSummaries(names: string[]): Promise<LockSummary[]> {
    if (names.length === 0) return [];
    return this.run(async (r) => {
      const p = r.pipeline();
      for (const n of names) p.pttl(keys.lock(n));
      const res = await this.conn.exec(p);
      const out: LockSummary[] = [];
      names.forEach((name, i) => {
        const [err, pttl] = res[i]!;
        if (err || asNumber(pttl) === -2) return;
        out.push({ name, ttlMs: ttlMsOf(pttl) });
      });
      return out;
    });
  }

  async lockForceRelease(name: string): Promise<boolean> {
    return this.run(async (r) => (await r.del(keys.lock(name))) > 0);
  }

  // ---- counters

  async counterIncr(name: string, by: number): Promise<number> {
    return this.run(async (r) => {
      try {
        return await r.incrby(keys.counter(name), by);
      } catch (err) {
        const mapped = mapRedisError(this.rawUrl, err);
        if (mapped instanceof Error && /not an integer|overflow/i.test(mapped.message)) {
          throw new CorruptDataError(`counter ${name} does not hold an integer`);
        }
        throw mapped;
      }
    });
  }

  async counterGet(name: string): Promise<number> {
    return this.run(async (r) => {
      const raw = await r.getBuffer(keys.counter(name));
      if (raw === null) return 0;
      const text = decodeUtf8(raw);
      const n = text === null ? null : parseIntStrict(text);
      if (n === null) throw new CorruptDataError(`counter ${name} does not hold an integer`);
      return n;
    });
  }

  async counterSet(name: string, value: number): Promise<void> {
    checkCounterValue(value);
    await this.run((r) => r.set(keys.counter(name), String(value)));
  }

  async counterDel(name: string): Promise<boolean> {
    return this.run(async (r) => (await r.del(keys.counter(name))) > 0);
  }

  async counterList(): Promise<CounterSummary[]> {
    return this.run(async (r) => {
      const found = await this.scanKeys(r, "fleet:counter:*");
      if (found.length === 0) return [];
      const p = r.pipeline();
      for (const k of found) p.getBuffer(k);
      const res = await this.conn.exec(p);
      const out: CounterSummary[] = [];
      found.forEach((k, i) => {
        const [err, v] = res[i]!;
        const raw = err ? Buffer.alloc(0) : asBuffer(v);
        if (raw === null) return;
        const text = err ? null : decodeUtf8(raw);
        out.push({ name: k.slice("fleet:counter:".length), value: text === null ? null : parseIntStrict(text), raw });
      });
      return out;
    });
  }

  async counterSummaries(names: string[]): Promise<CounterSummary[]> {
    if (names.length === 0) return [];
    return this.run(async (r) => {
      const p = r.pipeline();
      for (const n of names) p.getBuffer(keys.counter(n));
      const res = await this.conn.exec(p);
      const out: CounterSummary[] = [];
      names.forEach((name, i) => {
        const [err, v] = res[i]!;
        // a key of another type (GET answers WRONGTYPE) is a counter that does not hold an integer
        const raw = err ? Buffer.alloc(0) : asBuffer(v);
        if (raw === null) return;
        const text = err ? null : decodeUtf8(raw);
        out.push({ name, value: text === null ? null : parseIntStrict(text), raw });
      });
      return out;
    });
  }

  // ---- queues

  async queuePush(name: string, body: BytesLike, opts: { priority?: number | Priority } = {}): Promise<void> {
    const p = opts.priority ?? 0;
    const priority = typeof p === "number" ? priorityFromInt(p) : p;
    await this.run((r) => r.rpush(queueKeyForPriority(name, priority), toBuffer(body)));
  }

  async queuePushMany(name: string, items: Array<{ body: BytesLike; priority?: Priority }>): Promise<void> {
    if (items.length === 0) return;
    const byList = new Map<string, Buffer[]>();
    for (const it of items) {
      const k = queueKeyForPriority(name, it.priority ?? "normal");
      const list = byList.get(k) ?? [];
      list.push(toBuffer(it.body));
      byList.set(k, list);
    }
    await this.run(async (r) => {
      const m = r.multi();
      for (const [k, bodies] of byList) m.rpush(k, ...bodies);
      await this.conn.execValues(m);
    });
  }

  async queueSize(name: string): Promise<number> {
    return this.run(async (r) => {
      const res = await this.conn.execValues(r.pipeline().llen(keys.queueHigh(name)).llen(keys.queue(name)).llen(keys.queueLow(name)));
      return res.reduce<number>((a, v) => a + asNumber(v), 0);
    });
  }

  async queuePeek(name: string, n: number): Promise<Buffer[]> {
    if (n <= 0) return [];
    return this.run(async (r) => {
      const res = await this.conn.execValues(
        r
          .pipeline()
          .lrangeBuffer(keys.queueHigh(name), 0, n - 1)
          .lrangeBuffer(keys.queue(name), 0, n - 1)
          .lrangeBuffer(keys.queueLow(name), 0, n - 1),
      );
      return res.flatMap((v) => asBufferArray(v)).slice(0, n);
    });
  }

  private reserveOnce(name: string, visibilitySeconds: number): Promise<ReservedTask | "again" | null> {
    return this.run(async (r) => {
      const provisional = `${PROVISIONAL_TASK_ID_PREFIX}${randomBytes(16).toString("hex")}`;
      const res = await callScript(
        r,
        "reserve",
        [keys.queueScheduled(name), keys.queueHigh(name), keys.queue(name), keys.queueLow(name), keys.queueProcessing(name), keys.queueProcessingBody(name)],
        [
          pyFloatRepr(leaseNowSeconds()),
          String(visibilitySeconds),
          provisional,
          String(RESERVE_LUA_PARSE_MAX_BYTES),
          String(SCHEDULED_DRAIN_MAX),
          String(SCHEDULED_DRAIN_MAX_BYTES),
        ],
        { buffer: true },
      );
      if (!Array.isArray(res)) return null;
      const body = asBuffer(res[0]);
      if (!body) return null;
      const lease = asBuffer(res[1])?.toString("latin1") ?? "";
      if (res.length < 3) return { body, lease: lease === "" ? null : lease };
      // A large body, registered under `provisional` without being read in Redis: its id is
      // read here, then the registration re-keyed (or dropped) in a second tiny script.
      const id = taskIdOfBody(body);
      const settled = asNumber(await callScript(r, "reserveSettle", [keys.queueProcessing(name), keys.queueProcessingBody(name)], [provisional, lease, id ?? ""]));
      // swept back onto the queue meanwhile (its deadline passed): someone else's to reserve
      if (settled < 0) return "again";
      return { body, lease: settled > 0 ? lease : null };
    });
  }

  async queueReserve(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<Buffer | null> {
    return (await this.queueReserveLease(name, timeoutSeconds, visibilitySeconds))?.body ?? null;
  }

  async queueReserveLease(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<ReservedTask | null> {
    // Scripts cannot block, so waiting is a poll with a short, growing pause.
    const deadline = performance.now() + Math.max(0, timeoutSeconds) * 1000;
    let pause = 25;
    for (;;) {
      const got = await this.reserveOnce(name, visibilitySeconds);
      if (got === "again") continue;
      if (got !== null) return got;
      const left = deadline - performance.now();
      if (left <= 0) return null;
      await sleep(Math.min(pause, left));
      pause = Math.min(pause * 2, 200);
    }
  }

  async queueWait(name: string, timeoutSeconds: number): Promise<boolean> {
    let waker = this.wakers.get(name);
    if (!waker) {
      waker = new QueueWaker(this.rawUrl, this.opts, [keys.queueHigh(name), keys.queue(name), keys.queueLow(name)]);
      this.wakers.set(name, waker);
    }
    return waker.wait(Math.max(0, timeoutSeconds) * 1000);
  }

  async queueExtend(name: string, taskId: string, lease: string, visibilitySeconds: number): Promise<string | null> {
    return this.run(async (r) => {
      const res = await callScript(r, "extend", [keys.queueProcessing(name)], [taskId, lease, pyFloatRepr(leaseNowSeconds()), String(visibilitySeconds)], {
        buffer: true,
      });
      return asBuffer(res)?.toString("latin1") ?? null;
    });
  }

  async queueAck(name: string, taskId: string, opts: LeaseOption = {}): Promise<boolean> {
    return this.run(async (r) => asNumber(await callScript(r, "ack", [keys.queueProcessing(name), keys.queueProcessingBody(name)], [taskId, opts.lease ?? ""])) > 0);
  }

  async queueNack(name: string, taskId: string, body: BytesLike, opts: { delaySeconds: number } & LeaseOption): Promise<boolean> {
    const res = await this.run((r) =>
      callScript(
        r,
        "nack",
        [keys.queueProcessing(name), keys.queueProcessingBody(name), keys.queueScheduled(name), keys.queue(name)],
        [taskId, toBuffer(body), pyFloatRepr(opts.delaySeconds), pyFloatRepr(nowSeconds()), opts.lease ?? ""],
      ),
    );
    // Python's queue_nack always answers True: the body is back on the queue either way.
    // Only a lost lease (-1) changed nothing.
    return asNumber(res) !== -1;
  }

  async queueFail(name: string, taskId: string, body: BytesLike, opts: LeaseOption = {}): Promise<boolean> {
    return this.run(
      async (r) =>
        asNumber(await callScript(r, "fail", [keys.queueProcessing(name), keys.queueProcessingBody(name), keys.queueDead(name)], [taskId, toBuffer(body), opts.lease ?? ""])) > 0,
    );
  }

  async queueSweepExpired(name: string, now?: number): Promise<SweepResult> {
    const t = pyFloatRepr(now ?? nowSeconds());
    return this.run(async (r) => {
      const result: SweepResult = { requeued: 0, orphaned: [] };
      // Chunks of SWEEP_CHUNK, one atomic script each: a backlog of a million expired
      // reservations never holds Redis for more than a couple of milliseconds at a time.
      for (;;) {
        const res = (await callScript(r, "sweep", [keys.queueProcessing(name), keys.queueProcessingBody(name), keys.queue(name)], [t, String(SWEEP_CHUNK)])) as unknown[];
        result.requeued += asNumber(res[0]);
        for (const v of res.slice(1, -1)) result.orphaned.push(asBuffer(v)?.toString("utf8") ?? "");
        if (asNumber(res[res.length - 1]) < SWEEP_CHUNK) return result;
      }
    });
  }

  async queueDead(name: string, body: BytesLike): Promise<void> {
    await this.run((r) => r.rpush(keys.queueDead(name), toBuffer(body)));
  }

  async dlqPeek(name: string, n: number): Promise<Buffer[]> {
    if (n <= 0) return [];
    return this.run((r) => r.lrangeBuffer(keys.queueDead(name), 0, n - 1));
  }

  async dlqPop(name: string, n: number): Promise<Buffer[]> {
    if (n <= 0) return [];
    return this.run(async (r) => (await r.lpopBuffer(keys.queueDead(name), n)) ?? []);
  }

  async dlqLength(name: string): Promise<number> {
    return this.run((r) => r.llen(keys.queueDead(name)));
  }

  async dlqClear(name: string): Promise<number> {
    return this.run(async (r) => {
      // UNLINK: a list of a million dead letters is freed off Redis' main thread.
      const [len] = await this.conn.execValues(r.multi().llen(keys.queueDead(name)).unlink(keys.queueDead(name)));
      return asNumber(len);
    });
  }

  async dlqRange(name: string, offset: number, limit: number): Promise<{ total: number; items: Buffer[] }> {
    const k = keys.queueDead(name);
    return this.run(async (r) => {
      if (limit <= 0) return { total: await r.llen(k), items: [] };
      const [total, items] = await this.conn.execValues(
        r
          .pipeline()
          .llen(k)
          .lrangeBuffer(k, offset, offset + limit - 1),
      );
      return { total: asNumber(total), items: asBufferArray(items) };
    });
  }

  async dlqLocate(name: string, refs: string[]): Promise<{ found: DeadLetterMatch[]; missing: string[] }> {
    const wanted = new Set(refs.map((x) => x.toLowerCase()));
    const found = new Map<string, DeadLetterMatch>();
    if (wanted.size === 0) return { found: [], missing: [] };
    const k = keys.queueDead(name);
    await this.run(async (r) => {
      // Chunk by chunk, the next one already asked for while this one is hashed here; no
      // chunk costs Redis more than a fraction of a millisecond. Stops once all are found.
      const read = (start: number) => r.lrangeBuffer(k, start, start + DLQ_CHUNK - 1);
      let start = 0;
      let next = read(0);
      for (;;) {
        const chunk = await next;
        if (chunk.length === DLQ_CHUNK) next = read(start + DLQ_CHUNK);
        for (let i = 0; i < chunk.length; i++) {
          const ref = sha1Hex(chunk[i]!);
          if (wanted.has(ref) && !found.has(ref)) found.set(ref, { ref, body: chunk[i]!, index: start + i });
        }
        if (chunk.length < DLQ_CHUNK || found.size === wanted.size) {
          if (chunk.length === DLQ_CHUNK) await next.catch(() => undefined);
          break;
        }
        start += DLQ_CHUNK;
      }
    });
    return { found: [...found.values()], missing: [...wanted].filter((x) => !found.has(x)) };
  }

  async dlqTake(name: string, found: DeadLetterMatch[], action: "requeue" | "delete", opts: RequeueOptions = {}): Promise<{ count: number; missing: string[] }> {
    const dead = keys.queueDead(name);
    const ordered = [...found].sort((a, b) => a.index - b.index);
    let count = 0;
    const missing: string[] = [];
    if (ordered.length === 0) return { count, missing };
    // A token no stored body is: dlq-take-at-2.lua overwrites each copy with it, then removes
    // them by one LREM from the nearer end (never a pass over the whole list).
    const tomb = Buffer.from(`\u0000fleet-console:dead-letter-tombstone:${randomBytes(16).toString("hex")}`);
    await this.run(async (r) => {
      // Every copy's place, read in chunks from the first one found (no copy is before it,
      // unless the list moved meanwhile: then the body is looked for again from the head).
      let places = await this.dlqPlaces(
        r,
        dead,
        ordered.map((m) => m.body),
        ordered[0]!.index,
      );
      for (let i = 0; i < ordered.length; i++) {
        const m = ordered[i]!;
        const pushed = action === "requeue" ? withAttemptsReset(m.body, opts) : EMPTY;
        let taken: number | null = null;
        for (let attempt = 0; attempt < 3 && taken === null; attempt++) {
          if (places[i]!.length === 0 && attempt > 0) break;
          if (places[i]!.length === 0 || attempt > 0) {
            // not where it was found: the list moved; read it again from the head
            const again = await this.dlqPlaces(
              r,
              dead,
              ordered.slice(i).map((x) => x.body),
              0,
            );
            places = [...places.slice(0, i), ...again];
            if (places[i]!.length === 0) break;
          }
          const res = asNumber(await callScript(r, "dlqTakeAt", [dead, keys.queue(name)], [m.body, action, pushed, tomb, ...places[i]!.map(String)]));
          if (res >= 0) taken = res;
        }
        if (taken === null && places[i]!.length > 0) {
          // moving under our feet three times: take it by its bytes in one pass of the list
          // (the way every take went before; correct, only not bounded)
          taken =
            action === "delete"
              ? asNumber(await r.lrem(dead, 0, m.body))
              : asNumber(await callScript(r, "dlqRequeueBody", [dead, keys.queue(name)], pushed.equals(m.body) ? [m.body] : [m.body, pushed]));
          if (i + 1 < ordered.length)
            places = [
              ...places.slice(0, i + 1),
              ...(await this.dlqPlaces(
                r,
                dead,
                ordered.slice(i + 1).map((x) => x.body),
                0,
              )),
            ];
        } else if (taken !== null && taken > 0) {
          // the places of the bodies after this one, in the list without its copies
          const gone = places[i]!;
          for (let j = i + 1; j < ordered.length; j++) places[j] = places[j]!.map((q) => q - countBelow(gone, q));
        }
        if (taken !== null && taken > 0) count += taken;
        else missing.push(m.ref);
      }
    });
    return { count, missing };
  }

  /**
   * Where each body is in the dead-letter list from index `from` on, ascending: the list read
   * in chunks of DLQ_CHUNK (the next asked for while one is compared here), bytes compared
   * in Node (by length first), never in Redis.
   */
  private async dlqPlaces(r: Redis, dead: string, bodies: Buffer[], from: number): Promise<number[][]> {
    const places = bodies.map(() => [] as number[]);
    const byLength = new Map<number, number[]>();
    bodies.forEach((b, i) => {
      const at = byLength.get(b.length);
      if (at) at.push(i);
      else byLength.set(b.length, [i]);
    });
    const read = (start: number) => r.lrangeBuffer(dead, start, start + DLQ_CHUNK - 1);
    let start = Math.max(0, from);
    let next = read(start);
    for (;;) {
      const chunk = await next;
      if (chunk.length === DLQ_CHUNK) next = read(start + DLQ_CHUNK);
      for (let k = 0; k < chunk.length; k++) {
        const candidates = byLength.get(chunk[k]!.length);
        if (!candidates) continue;
        for (const i of candidates) if (chunk[k]!.equals(bodies[i]!)) places[i]!.push(start + k);
      }
      if (chunk.length < DLQ_CHUNK) break;
      start += DLQ_CHUNK;
    }
    return places;
  }

  private async dlqByRef(name: string, refs: string[], action: "requeue" | "delete", opts: RequeueOptions = {}): Promise<{ count: number; missing: string[] }> {
    if (refs.length === 0) return { count: 0, missing: [] };
    const located = await this.dlqLocate(name, refs);
    const taken = located.found.length > 0 ? await this.dlqTake(name, located.found, action, opts) : { count: 0, missing: [] };
    const gone = new Set([...located.missing, ...taken.missing]);
    return { count: taken.count, missing: [...new Set(refs.map((x) => x.toLowerCase()))].filter((x) => gone.has(x)) };
  }

  /** "Requeue all" in atomic chunks of DLQ_CHUNK: what the list held when the call began, never what arrives meanwhile. */
  private async dlqRequeueAll(name: string, opts: RequeueOptions): Promise<number> {
    const dead = keys.queueDead(name);
    if (!opts.keepAttempts) return this.dlqRequeueAllReset(name);
    return this.run(async (r) => {
      let left = await r.llen(dead);
      let moved = 0;
      while (left > 0) {
        const res = (await callScript(r, "dlqMove", [dead, keys.queue(name)], [String(Math.min(DLQ_CHUNK, left))])) as unknown[];
        const n = asNumber(res[0]);
        moved += n;
        left -= n;
        if (n === 0 || asNumber(res[1]) === 0) break;
      }
      return moved;
    });
  }

  /**
   * "Requeue all" giving attempts back: read a chunk of the head (at most DLQ_RESET_CHUNK
   * bodies or about 1 MiB), compute the replacements here, move them while the head is
   * still what was read (dlq-move-reset-2); what the list held when the call began.
   */
  private async dlqRequeueAllReset(name: string): Promise<number> {
    const dead = keys.queueDead(name);
    return this.run(async (r) => {
      let left = await r.llen(dead);
      let moved = 0;
      let stalls = 0;
      while (left > 0) {
        const head = await r.lrangeBuffer(dead, 0, Math.min(DLQ_RESET_CHUNK, left) - 1);
        if (head.length === 0) break;
        const args: Buffer[] = [];
        let bytes = 0;
        for (const body of head) {
          if (args.length > 0 && bytes + body.length > DLQ_RESET_CHUNK_BYTES) break;
          args.push(body, withAttemptsReset(body));
          bytes += body.length * 2;
        }
        const res = (await callScript(r, "dlqMoveReset", [dead, keys.queue(name)], args)) as unknown[];
        const n = asNumber(res[0]);
        moved += n;
        left -= n;
        if (asNumber(res[1]) === 0) break;
        // a head changed meanwhile: read again; twice in a row without progress, give up
        stalls = n === 0 ? stalls + 1 : 0;
        if (stalls >= 2) break;
      }
      return moved;
    });
  }

  async dlqRequeue(name: string, which: DeadLetterSelector, opts: RequeueOptions = {}): Promise<{ requeued: number; missing: string[] }> {
    if ("all" in which) return { requeued: await this.dlqRequeueAll(name, opts), missing: [] };
    const { count, missing } = await this.dlqByRef(name, which.refs, "requeue", opts);
    return { requeued: count, missing };
  }

  async dlqDelete(name: string, which: DeadLetterSelector): Promise<{ deleted: number; missing: string[] }> {
    if ("all" in which) return { deleted: await this.dlqClear(name), missing: [] };
    const { count, missing } = await this.dlqByRef(name, which.refs, "delete");
    return { deleted: count, missing };
  }

  async queueNames(): Promise<string[]> {
    return this.run(async (r) => {
      const names = new Set<string>();
      for (const k of await this.scanKeys(r, "fleet:queue:*")) {
        const n = queueNameOfKey(k);
        if (n !== null) names.add(n);
      }
      return [...names].sort();
    });
  }

  async queuesExist(names: string[]): Promise<boolean[]> {
    if (names.length === 0) return [];
    return this.run(async (r) => {
      const p = r.pipeline();
      for (const n of names) {
        p.exists(keys.queue(n), keys.queueHigh(n), keys.queueLow(n), keys.queueProcessing(n), keys.queueProcessingBody(n), keys.queueScheduled(n), keys.queueDead(n));
      }
      return (await this.conn.execValues(p)).map((v) => asNumber(v) > 0);
    });
  }

  private queueDepthCommands(p: ChainableCommander, name: string, now: number): void {
    const nowArg = pyFloatRepr(now);
    p.llen(keys.queueHigh(name))
      .llen(keys.queue(name))
      .llen(keys.queueLow(name))
      .zcard(keys.queueProcessing(name))
      .zcount(keys.queueProcessing(name), "-inf", nowArg)
      .zcard(keys.queueScheduled(name))
      .zcount(keys.queueScheduled(name), "-inf", nowArg)
      .llen(keys.queueDead(name));
  }

  /**
   * The eight replies of queueDepthCommands as depths. A key of another Redis type reads as
   * empty and its part is listed in `corrupt` (one bad key must not fail a whole page of queues).
   */
  private depthsFrom(name: string, res: PipelineResults): QueueDepths {
    const corrupt: string[] = [];
    const [high, normal, low, processing, overdue, scheduled, due, dead] = res.map(([err, x], i) => {
      if (!err) return asNumber(x);
      if (!isWrongTypeError(err)) throw mapRedisError(this.rawUrl, err);
      if (!corrupt.includes(DEPTH_PARTS[i]!)) corrupt.push(DEPTH_PARTS[i]!);
      return 0;
    }) as number[];
    return {
      name,
      pending: { high: high!, normal: normal!, low: low!, total: high! + normal! + low! },
      processing: processing!,
      overdue: overdue!,
      scheduled: scheduled!,
      due: due!,
      dead: dead!,
      ...(corrupt.length > 0 ? { corrupt } : {}),
    };
  }

  async queueDepths(names: string[], now?: number): Promise<QueueDepths[]> {
    if (names.length === 0) return [];
    const t = now ?? nowSeconds();
    return this.run(async (r) => {
      const p = r.pipeline();
      for (const n of names) this.queueDepthCommands(p, n, t);
      const res = await this.conn.exec(p);
      return names.map((n, i) => this.depthsFrom(n, res.slice(i * 8, i * 8 + 8)));
    });
  }

  async queueDetail(name: string, limit: number, now?: number): Promise<QueueDetail> {
    const t = now ?? nowSeconds();
    const n = Math.max(0, limit);
    return this.run(async (r) => {
      const p = r.pipeline();
      this.queueDepthCommands(p, name, t);
      if (n > 0) {
        p.lrangeBuffer(keys.queueHigh(name), 0, n - 1)
          .lrangeBuffer(keys.queue(name), 0, n - 1)
          .lrangeBuffer(keys.queueLow(name), 0, n - 1)
          .zrangeBuffer(keys.queueProcessing(name), 0, String(n - 1), "WITHSCORES")
          .zrangeBuffer(keys.queueScheduled(name), 0, String(n - 1), "WITHSCORES");
      }
      const res = await this.conn.exec(p);
      const depths = this.depthsFrom(name, res.slice(0, 8));
      if (n === 0) return { depths, pending: [], processing: [], scheduled: [] };
      // an item read fails only on a key of another type, which the depths already list
      const v = res.map(([err, x]) => (err ? [] : x));
      const pending: QueueDetail["pending"] = [];
      (["high", "normal", "low"] as const).forEach((priority, i) => {
        for (const body of asBufferArray(v[8 + i])) pending.push({ priority, body });
      });
      const proc = scoredPairs(v[11]);
      let bodies: Array<Buffer | null> = [];
      if (proc.length > 0) {
        try {
          bodies = await r.hmgetBuffer(keys.queueProcessingBody(name), ...proc.map(([id]) => id));
        } catch (err) {
          if (!isWrongTypeError(err)) throw err;
          depths.corrupt = [...(depths.corrupt ?? []), "processing:body"];
        }
      }
      return {
        depths,
        pending: pending.slice(0, n),
        processing: proc.map(([id, deadline], i) => ({ id: id.toString("utf8"), deadline, body: bodies[i] ?? null })),
        scheduled: scoredPairs(v[12]).map(([body, readyAt]) => ({ readyAt, body })),
      };
    });
  }

  // ---- streams

  async streamPush(name: string, envelope: BytesLike, opts: { score: number; maxLen: number; ttlSeconds: number }): Promise<void> {
    const key = keys.stream(name);
    const score = pyFloatRepr(opts.score);
    await this.run(async (r) => {
      const m = r.multi().zadd(key, score, toBuffer(envelope));
      if (opts.ttlSeconds > 0) m.zremrangebyscore(key, 0, pyFloatRepr(opts.score - opts.ttlSeconds));
      if (opts.maxLen > 0) m.zremrangebyrank(key, 0, -(opts.maxLen + 1));
      // Python publishes str(score): repr of the float.
      m.publish(keys.event(`${name}.emit`), score);
      await this.conn.execValues(m);
    });
  }

  async streamPop(name: string, n: number): Promise<Buffer[]> {
    if (n <= 0) return [];
    return this.run(async (r) => scoredPairs(await r.zpopminBuffer(keys.stream(name), n)).map(([m]) => m));
  }

  async streamPeek(name: string, n: number): Promise<Buffer[]> {
    if (n <= 0) return [];
    return this.run((r) => r.zrangeBuffer(keys.stream(name), 0, String(n - 1)));
  }

  async streamLength(name: string): Promise<number> {
    return this.run((r) => r.zcard(keys.stream(name)));
  }

  async streamTrim(name: string, opts: { maxLen: number; ttlSeconds: number }): Promise<void> {
    const key = keys.stream(name);
    if (opts.ttlSeconds <= 0 && opts.maxLen <= 0) return;
    await this.run(async (r) => {
      const m = r.multi();
      if (opts.ttlSeconds > 0) m.zremrangebyscore(key, 0, pyFloatRepr(nowSeconds() - opts.ttlSeconds));
      if (opts.maxLen > 0) m.zremrangebyrank(key, 0, -(opts.maxLen + 1));
      await this.conn.execValues(m);
    });
  }

  async streamNames(): Promise<string[]> {
    return this.run(async (r) => (await this.scanKeys(r, "stream:*")).map((k) => k.slice("stream:".length)).filter((n) => n.length > 0));
  }

  async streamSummaries(names: string[]): Promise<StreamSummary[]> {
    if (names.length === 0) return [];
    return this.run(async (r) => {
      const p = r.pipeline();
      for (const n of names) p.zcard(keys.stream(n)).zrange(keys.stream(n), 0, "0", "WITHSCORES").zrange(keys.stream(n), -1, "-1", "WITHSCORES");
      const res = await this.conn.exec(p);
      const v = res.map(([, x]) => x);
      return names.map((name, i) => {
        const err = res[3 * i]![0];
        if (err) {
          // a key of another type reads as an empty stream, marked, rather than failing the page
          if (!isWrongTypeError(err)) throw mapRedisError(this.rawUrl, err);
          return { name, length: 0, oldest: null, newest: null, corrupt: ["entries"] };
        }
        const oldest = scoredPairs(v[3 * i + 1])[0];
        const newest = scoredPairs(v[3 * i + 2])[0];
        return { name, length: asNumber(v[3 * i]), oldest: oldest ? oldest[1] : null, newest: newest ? newest[1] : null };
      });
    });
  }

  async streamRange(name: string, limit: number, order: "newest" | "oldest"): Promise<StreamEntry[]> {
    if (limit <= 0) return [];
    const key = keys.stream(name);
    return this.run(async (r) => {
      const reply = order === "newest" ? await r.zrangeBuffer(key, 0, String(limit - 1), "REV", "WITHSCORES") : await r.zrangeBuffer(key, 0, String(limit - 1), "WITHSCORES");
      return scoredPairs(reply).map(([envelope, score]) => ({ score, envelope }));
    });
  }

  // ---- event bus

  async eventPublish(topic: string, body: BytesLike): Promise<void> {
    await this.run((r) => r.publish(keys.event(topic), toBuffer(body)));
  }

  async subscribeEvents(onMessage: (msg: BusMessage) => void): Promise<Subscription> {
    // A dedicated connection: a subscribed connection can do nothing else.
    const conn = new RedisConnection(this.rawUrl, this.opts, { enableOfflineQueue: true, autoResubscribe: true });
    conn.client.on("pmessageBuffer", (_pattern: Buffer, channel: Buffer, message: Buffer) => {
      const ch = channel.toString("utf8");
      onMessage({ topic: ch.startsWith("event:") ? ch.slice("event:".length) : ch, payload: message });
    });
    try {
      await conn.run((r) => r.psubscribe("event:*"));
    } catch (err) {
      await conn.close();
      throw err;
    }
    const sub: Subscription = {
      close: async () => {
        if (!this.subscriptions.delete(sub)) return;
        await conn.close();
      },
    };
    this.subscriptions.add(sub);
    return sub;
  }

  // ---- name discovery primitives

  async keyScan(cursor: string, count: number): Promise<KeyScanPage> {
    if (!/^\d+$/.test(cursor)) throw new RangeError(`not a SCAN cursor: '${cursor}'`);
    return this.run(async (r) => {
      const [next, batch] = await r.scan(cursor, "MATCH", DISCOVERY_SCAN_MATCH, "COUNT", Math.max(1, Math.floor(count)));
      return { cursor: next, keys: batch.filter((k) => k.startsWith("fleet:") || k.startsWith("stream:")) };
    });
  }

  async keyCount(): Promise<number> {
    return this.run((r) => r.dbsize());
  }

  async subscribeKeyspace(onEvent: (key: string, event: string) => void): Promise<KeyspaceEvents | null> {
    let flags: string;
    try {
      const reply = (await this.run((r) => r.config("GET", "notify-keyspace-events"))) as unknown[];
      flags = String(reply[1] ?? "");
    } catch {
      return null; // CONFIG refused (managed Redis, ACL): treated as off
    }
    if (!flags.includes("K")) return null;
    const db = this.client.options.db ?? 0;
    const prefix = `__keyspace@${db}__:`;
    const conn = new RedisConnection(this.rawUrl, this.opts, { enableOfflineQueue: true, autoResubscribe: true });
    conn.client.on("pmessage", (_pattern: string, channel: string, message: string) => {
      if (channel.startsWith(prefix)) onEvent(channel.slice(prefix.length), message);
    });
    try {
      await conn.run((r) => r.psubscribe(`${prefix}fleet:*`, `${prefix}stream:*`));
    } catch (err) {
      await conn.close();
      throw err;
    }
    const sub: Subscription = {
      close: async () => {
        if (!this.subscriptions.delete(sub)) return;
        await conn.close();
      },
    };
    this.subscriptions.add(sub);
    return { subscription: sub, flags };
  }

  async trackKeys(prefixes: readonly string[], onKeys: (keys: string[] | null) => void, onLost: () => void): Promise<Subscription | null> {
    // RESP2 on purpose: with REDIRECT, Redis then delivers invalidations as pub/sub messages
    // on __redis__:invalidate (ioredis drops RESP3 "invalidate" pushes). No automatic
    // resubscribe: a new connection has no tracking, so a drop is reported instead.
    const conn = new RedisConnection(this.rawUrl, this.opts, { protocol: 2, enableOfflineQueue: true, autoResubscribe: false, retryStrategy: () => null });
    let open = true;
    const sub: Subscription = {
      close: async () => {
        open = false;
        if (!this.subscriptions.delete(sub)) return;
        await conn.close();
      },
    };
    try {
      await conn.run(async (r) => {
        const id = await r.client("ID");
        const args: string[] = ["TRACKING", "ON", "REDIRECT", String(id), "BCAST"];
        for (const p of prefixes) args.push("PREFIX", p);
        await r.call("CLIENT", ...args);
        r.on("messageBuffer", (channel: Buffer, message: unknown) => {
          if (channel.toString() !== "__redis__:invalidate") return;
          onKeys(Array.isArray(message) ? message.map((k) => String(k)) : null);
        });
        await r.subscribe("__redis__:invalidate");
      });
    } catch {
      await conn.close();
      return null; // Redis < 6, or CLIENT refused by an ACL: the walk alone, then
    }
    conn.client.once("close", () => {
      if (!open) return;
      open = false;
      this.subscriptions.delete(sub);
      conn.client.disconnect();
      onLost();
    });
    this.subscriptions.add(sub);
    return sub;
  }

  // ---- workers

  private wk(type: string, id: string) {
    return {
      hardware: keys.worker(type, id, "hardware"),
      config: keys.worker(type, id, "config"),
      gen: keys.worker(type, id, "gen"),
      state: keys.worker(type, id, "state"),
      stats: keys.worker(type, id, "stats"),
      history: keys.worker(type, id, "stats:history"),
    };
  }

  async workerRegister(automationType: string, workerId: string, hardware: JsonObject): Promise<void> {
    const k = this.wk(automationType, workerId);
    await this.run(async (r) => {
      await this.conn.execValues(
        r
          .multi()
          .set(k.hardware, pyJsonBytes(hardware))
          .sadd(keys.workerTypeIndex(automationType), workerId)
          .sadd(WORKER_ALL_INDEX, keys.workerAllMember(automationType, workerId))
          .set(k.gen, "0", "NX")
          .set(k.config, "{}", "NX"),
      );
    });
  }

  async workerGetConfig(automationType: string, workerId: string): Promise<{ config: JsonObject; gen: number }> {
    const k = this.wk(automationType, workerId);
    return this.run(async (r) => {
      const [rawCfg, rawGen] = await r.mgetBuffer(k.config, k.gen);
      // absent or empty values read as {} and 0, as Python's worker_get_config reads them
      const config = configFromRaw(rawCfg ?? null);
      if (config === null) throw new CorruptDataError(`config of worker ${automationType}/${workerId} is not a JSON object`);
      const gen = genFromRaw(rawGen ?? null);
      if (gen === null) throw new CorruptDataError(`config generation of worker ${automationType}/${workerId} is not an integer`);
      return { config, gen };
    });
  }

  async workerSetConfig(automationType: string, workerId: string, config: JsonObject, opts: { expectedGen?: number } = {}): Promise<{ config: JsonObject; gen: number }> {
    const k = this.wk(automationType, workerId);
    const expected = opts.expectedGen;
    return this.run(async (r) => {
      const res = (await callScript(r, "configSet", [k.config, k.gen], [pyJsonBytes(config), expected === undefined ? "" : String(expected)])) as unknown[];
      const status = asNumber(res[0]);
      if (status === 1) return { config, gen: asNumber(res[1]) };
      const raw = asBuffer(res[1]);
      if (status === 0) {
        throw new StaleGenerationError(expected ?? 0, genFromRaw(raw));
      }
      if (expected !== undefined) throw new StaleGenerationError(expected, null);
      throw new CorruptDataError(`config generation of worker ${automationType}/${workerId} is not an integer`);
    });
  }

  async workerSetConfigMany(writes: ConfigWrite[]): Promise<Array<{ automationType: string; workerId: string; gen: number }>> {
    if (writes.length === 0) return [];
    const scriptKeys: string[] = [];
    const args: Array<string | Buffer> = [];
    for (const w of writes) {
      const k = this.wk(w.automationType, w.workerId);
      scriptKeys.push(k.config, k.gen);
      args.push(pyJsonBytes(w.config), w.expectedGen === undefined ? "" : String(w.expectedGen));
    }
    return this.run(async (r) => {
      const res = (await callScript(r, "configSetMany", scriptKeys, args)) as unknown[];
      const status = asNumber(res[0]);
      if (status === 1) return writes.map((w, i) => ({ automationType: w.automationType, workerId: w.workerId, gen: asNumber(res[i + 1]) }));
      const w = writes[asNumber(res[1]) - 1]!;
      const raw = asBuffer(res[2]);
      if (status === 0) throw new StaleGenerationError(w.expectedGen ?? 0, genFromRaw(raw));
      if (w.expectedGen !== undefined) throw new StaleGenerationError(w.expectedGen, null);
      throw new CorruptDataError(`config generation of worker ${w.automationType}/${w.workerId} is not an integer`);
    });
  }

  async workerSetState(automationType: string, workerId: string, state: string, lastError: string | null, lastSeen: number): Promise<void> {
    const k = this.wk(automationType, workerId);
    await this.run((r) => r.hset(k.state, "state", state, "last_seen", encodeUnixFloat(lastSeen), "last_error", lastError ?? ""));
  }

  async workerSetStats(automationType: string, workerId: string, stats: JsonObject): Promise<void> {
    await this.run((r) => r.set(keys.worker(automationType, workerId, "stats"), pyJsonBytes(stats)));
  }

  async workerStatsPush(automationType: string, workerId: string, ts: number, frame: JsonObject, opts: { maxEntries?: number } = {}): Promise<void> {
    const key = keys.worker(automationType, workerId, "stats:history");
    const maxEntries = opts.maxEntries ?? 240;
    await this.run(async (r) => {
      const m = r.multi().zadd(key, pyFloatRepr(ts), pyJsonBytes(frame));
      if (maxEntries > 0) m.zremrangebyrank(key, 0, -(maxEntries + 1));
      await this.conn.execValues(m);
    });
  }

  async workerStatsHistory(automationType: string, workerId: string, opts: { since?: number; limit?: number } = {}): Promise<JsonObject[]> {
    const key = keys.worker(automationType, workerId, "stats:history");
    const limit = opts.limit ?? 240;
    if (limit <= 0) return [];
    return this.run(async (r) => {
      const raw = await r.zrangebyscoreBuffer(key, pyFloatRepr(opts.since ?? 0), "+inf", "LIMIT", 0, limit);
      const out: JsonObject[] = [];
      for (const m of raw) {
        const parsed = parseJsonBytes(m);
        if (parsed.ok && isJsonObject(parsed.value)) out.push(parsed.value);
      }
      return out;
    });
  }

  async workerStatsFrames(automationType: string, workerId: string, opts: { since?: number; limit: number }): Promise<StatsFrame[]> {
    const key = keys.worker(automationType, workerId, "stats:history");
    if (opts.limit <= 0) return [];
    const min = opts.since === undefined ? "-inf" : `(${pyFloatRepr(opts.since)}`;
    return this.run(async (r) => {
      const reply = await r.zrangeBuffer(key, "+inf", min, "BYSCORE", "REV", "LIMIT", 0, opts.limit, "WITHSCORES");
      return scoredPairs(reply)
        .reverse()
        .map(([m, ts]) => statsFrameFromRaw(m, ts));
    });
  }

  /**
   * Reads workers per automation type in chunks; results come back in the order given.
   * Each chunk is one MULTI: an MGET of the string keys and one workers-read-n.lua call for
   * the state hash, history length and membership (a snapshot per chunk). Every chunk goes
   * out back to back on the one connection and is decoded as it arrives. A value MGET
   * returned as nil may be a key of another type: only those are looked at again, in one
   * more call per chunk that has any.
   */
  private async readWorkers(r: Redis, refs: WorkerRef[]): Promise<WorkerRecord[]> {
    const out = new Array<WorkerRecord>(refs.length);
    await Promise.all(
      chunksByType(refs, WORKERS_PER_CALL).map(async ({ type, positions }) => {
        const n = positions.length;
        const ids = positions.map((pos) => refs[pos]!.workerId);
        const keyBytes = keyBytesEstimate(type, ids);
        const mget = new RespArgs(4 * n * keyBytes);
        const script = workersReadArgs(type, 2 * n, 2 * n * keyBytes);
        const stringKeys = workerKeysAround(type, STRING_KEYS);
        const scriptKeys = workerKeysAround(type, ["state", "stats:history"]);
        for (const id of ids) {
          mget.addKeys(id, stringKeys);
          script.addKeys(id, scriptKeys);
        }
        const { strings, rows } = await this.readChunk(r, mget, script.add("full"), 6 * n);
        const wrongStrings = await this.wrongTypeStrings(r, strings, (i) => keys.worker(type, ids[i >> 2]!, STRING_KEYS[i & 3]!));
        for (let i = 0; i < n; i++) {
          const ref = refs[positions[i]!]!;
          const o = 6 * i;
          const state: Record<string, Buffer> = {};
          if (rows[o + 1] instanceof Buffer) state.state = rows[o + 1] as Buffer;
          if (rows[o + 2] instanceof Buffer) state.last_seen = rows[o + 2] as Buffer;
          if (rows[o + 3] instanceof Buffer) state.last_error = rows[o + 3] as Buffer;
          const rec = workerRecordFromRaw(ref.automationType, ref.workerId, {
            registered: rows[o] === 1,
            hardware: strings[4 * i]!,
            config: strings[4 * i + 1]!,
            gen: strings[4 * i + 2]!,
            stats: strings[4 * i + 3]!,
            state,
            historyLen: rows[o + 4] as number,
          });
          // a key of the wrong type reads as corrupt rather than failing the whole page
          if (wrongStrings !== null) {
            for (let j = 0; j < 4; j++) if (wrongStrings.has(4 * i + j)) markCorrupt(rec, STRING_FIELDS[j]!);
          }
          if ((rows[o + 5] as number) & WRONG_STATE) markCorrupt(rec, "state");
          out[positions[i]!] = rec;
        }
      }),
    );
    return out;
  }

  private async readWorkersIndex(r: Redis, refs: WorkerRef[], withHostname: boolean): Promise<WorkerIndexEntry[]> {
    const out = new Array<WorkerIndexEntry>(refs.length);
    await Promise.all(
      chunksByType(refs, WORKERS_PER_CALL).map(async ({ type, positions }) => {
        const n = positions.length;
        const ids = positions.map((pos) => refs[pos]!.workerId);
        const keyBytes = keyBytesEstimate(type, ids);
        const mget = withHostname ? new RespArgs(n * keyBytes) : null;
        const script = workersReadArgs(type, n, n * keyBytes);
        const hardwareKey = workerKeysAround(type, ["hardware"]);
        const stateKey = workerKeysAround(type, ["state"]);
        for (const id of ids) {
          mget?.addKeys(id, hardwareKey);
          script.addKeys(id, stateKey);
        }
        const { strings, rows } = await this.readChunk(r, mget, script.add("index"), 5 * n);
        const wrongStrings = mget ? await this.wrongTypeStrings(r, strings, (i) => keys.worker(type, ids[i]!, "hardware")) : null;
        for (let i = 0; i < n; i++) {
          const ref = refs[positions[i]!]!;
          const o = 5 * i;
          const state: Record<string, Buffer> = {};
          if (rows[o + 1] instanceof Buffer) state.state = rows[o + 1] as Buffer;
          if (rows[o + 2] instanceof Buffer) state.last_seen = rows[o + 2] as Buffer;
          if (rows[o + 3] === 1) state.last_error = EMPTY;
          const entry = workerIndexEntryFromRaw(ref, { registered: rows[o] === 1, hardware: mget ? strings[i]! : undefined, state });
          if (wrongStrings?.has(i)) markCorrupt(entry, "hardware");
          if ((rows[o + 4] as number) & WRONG_STATE) markCorrupt(entry, "state");
          out[positions[i]!] = entry;
        }
      }),
    );
    return out;
  }

  /**
   * One chunk's MULTI: the MGET (when given), then the workers-read-n.lua call. The script
   * goes as EVAL with its text: Redis caches it by hash, so no NOSCRIPT can ever fail a
   * MULTI, and a few KB per chunk are nothing beside its keys.
   */
  private async readChunk(r: Redis, mget: RespArgs | null, script: RespArgs, rowLength: number): Promise<{ strings: Array<Buffer | null>; rows: Packed[] }> {
    const m = r.multi() as unknown as ChainableCommander & { sendCommand(c: Command): unknown };
    if (mget) m.sendCommand(new EncodedCommand("mget", mget));
    m.sendCommand(new EncodedCommand("eval", script));
    const replies = await this.conn.execValues(m);
    const strings = mget ? (replies[0] as Array<Buffer | null>) : [];
    const rows = unpack(asBuffer(replies[replies.length - 1]) ?? Buffer.alloc(0));
    if (!Array.isArray(rows) || rows.length !== rowLength || strings.length !== (mget?.count ?? 0)) {
      throw new CorruptDataError(`workers-read-n.lua answered ${Array.isArray(rows) ? rows.length : typeof rows} entries, expected ${rowLength}`);
    }
    return { strings, rows };
  }

  /** Positions of the nil MGET values whose key (`keyAt`) exists with another type; null when there are none. */
  private async wrongTypeStrings(r: Redis, values: Array<Buffer | null>, keyAt: (i: number) => string): Promise<Set<number> | null> {
    const nil: number[] = [];
    for (let i = 0; i < values.length; i++) if (values[i] === null) nil.push(i);
    if (nil.length === 0) return null;
    const flags = (await callScript(r, "keysWrongType", nil.map(keyAt), [])) as unknown[];
    const wrong = new Set<number>();
    nil.forEach((pos, j) => {
      if (asNumber(flags[j]) === 1) wrong.add(pos);
    });
    return wrong.size > 0 ? wrong : null;
  }

  async workerGet(automationType: string, workerId: string): Promise<WorkerRecord | null> {
    return this.run(async (r) => {
      const [rec] = await this.readWorkers(r, [{ automationType, workerId }]);
      return rec!.registered ? rec! : null;
    });
  }

  async workerCount(): Promise<number> {
    return this.run((r) => r.scard(WORKER_ALL_INDEX));
  }

  async workerList(automationType?: string): Promise<WorkerRef[]> {
    return this.run(async (r) => {
      // Sorted by type, then id, in code-unit order: ids grouped per type and sorted by the
      // engine's own string sort, several times faster on 10,000 workers than one sort with
      // a comparator (GET /workers lists the whole fleet on every request).
      const byType = new Map<string, string[]>();
      if (automationType === undefined) {
        for (const m of await r.smembers(WORKER_ALL_INDEX)) {
          const ref = parseWorkerAllMember(m);
          if (ref === null) continue;
          const ids = byType.get(ref.automationType);
          if (ids) ids.push(ref.workerId);
          else byType.set(ref.automationType, [ref.workerId]);
        }
      } else {
        byType.set(automationType, await r.smembers(keys.workerTypeIndex(automationType)));
      }
      const refs: WorkerRef[] = [];
      for (const type of [...byType.keys()].sort()) {
        for (const workerId of byType.get(type)!.sort()) refs.push({ automationType: type, workerId });
      }
      return refs;
    });
  }

  async workersGet(refs: WorkerRef[]): Promise<WorkerRecord[]> {
    if (refs.length === 0) return [];
    return this.run((r) => this.readWorkers(r, refs));
  }

  async workersIndex(refs: WorkerRef[], opts: { hostname?: boolean } = {}): Promise<WorkerIndexEntry[]> {
    if (refs.length === 0) return [];
    return this.run((r) => this.readWorkersIndex(r, refs, opts.hostname === true));
  }

  // issue 14: ./worker-bulk.ts
  async workersState(refs: WorkerRef[]): Promise<WorkerStateEntry[]> {
    if (refs.length === 0) return [];
    return this.run((r) => readWorkersState(r, refs));
  }

  async workersRemoveOffline(refs: WorkerRef[], cutoff: number): Promise<OfflineRemoval[]> {
    if (refs.length === 0) return [];
    return this.run((r) => removeOfflineWorkers(r, refs, cutoff));
  }

  async workerRemove(automationType: string, workerId: string): Promise<boolean> {
    const fieldKeys = WORKER_FIELDS.map((f) => keys.worker(automationType, workerId, f));
    return this.run(async (r) => {
      const [typeRemoved, allRemoved, deleted] = await this.conn.execValues(
        r
          .multi()
          .srem(keys.workerTypeIndex(automationType), workerId)
          .srem(WORKER_ALL_INDEX, keys.workerAllMember(automationType, workerId))
          .del(...fieldKeys),
      );
      return asNumber(typeRemoved) + asNumber(allRemoved) + asNumber(deleted) > 0;
    });
  }

  // ---- catalog

  async catalogSet(automationType: string, doc: BytesLike): Promise<void> {
    await this.run((r) => r.hset(CATALOG_HASH, automationType, toBuffer(doc)));
  }

  async catalogGet(automationType: string): Promise<Buffer | null> {
    return this.run((r) => r.hgetBuffer(CATALOG_HASH, automationType));
  }

  async catalogTypes(): Promise<string[]> {
    return this.run(async (r) => (await r.hkeys(CATALOG_HASH)).sort());
  }

  async catalogAll(): Promise<Map<string, Buffer>> {
    return this.run(async (r) => {
      const rec = hashRecord(await r.hgetallBuffer(CATALOG_HASH));
      return new Map(
        Object.keys(rec)
          .sort()
          .map((k) => [k, rec[k]!]),
      );
    });
  }

  async catalogDelete(automationType: string): Promise<boolean> {
    return this.run(async (r) => (await r.hdel(CATALOG_HASH, automationType)) > 0);
  }

  async catalogReplace(entries: Map<string, BytesLike>): Promise<void> {
    await this.run(async (r) => {
      const m = r.multi().del(CATALOG_HASH);
      if (entries.size > 0) m.hset(CATALOG_HASH, new Map([...entries].map(([k, v]) => [k, toBuffer(v)])));
      const res = await m.exec();
      const failed = res?.find(([err]) => err);
      if (!res || failed) throw failed?.[0] ?? new Error("catalog replace was aborted");
    });
  }

  // ---- audit trail

  // ---- worker error history

  async workerErrorsPush(writes: WorkerErrorWrite[], opts: { maxEntries: number; ttlSeconds: number }): Promise<void> {
    if (writes.length === 0) return;
    const ttl = String(toPx(opts.ttlSeconds));
    await this.run(async (r) => {
      const m = r.multi();
      for (const w of writes) {
        const key = consoleKeys.workerErrors(w.automationType, w.workerId);
        m.lpush(key, toBuffer(w.entry))
          .ltrim(key, 0, Math.max(1, opts.maxEntries) - 1)
          .pexpire(key, ttl);
      }
      // a history key of another type fails its LPUSH alone: that worker's entry is lost, not the others'
      for (const [err] of await this.conn.exec(m)) if (err && !isWrongTypeError(err)) throw mapRedisError(this.rawUrl, err);
    });
  }

  async workerErrorsRead(refs: WorkerRef[], limit: number): Promise<Buffer[][]> {
    if (refs.length === 0) return [];
    return this.run(async (r) => {
      const out: Buffer[][] = [];
      for (let i = 0; i < refs.length; i += 1000) {
        const p = r.pipeline();
        for (const ref of refs.slice(i, i + 1000)) p.lrangeBuffer(consoleKeys.workerErrors(ref.automationType, ref.workerId), 0, Math.max(1, limit) - 1);
        for (const [err, v] of await this.conn.exec(p)) {
          if (err && !isWrongTypeError(err)) throw mapRedisError(this.rawUrl, err);
          out.push(err ? [] : asBufferArray(v));
        }
      }
      return out;
    });
  }

  async workersLastError(refs: WorkerRef[]): Promise<Array<string | null>> {
    if (refs.length === 0) return [];
    return this.run(async (r) => {
      const out: Array<string | null> = [];
      for (let i = 0; i < refs.length; i += 1000) {
        const p = r.pipeline();
        for (const ref of refs.slice(i, i + 1000)) p.hget(keys.worker(ref.automationType, ref.workerId, "state"), "last_error");
        for (const [err, v] of await this.conn.exec(p)) {
          if (err && !isWrongTypeError(err)) throw mapRedisError(this.rawUrl, err);
          out.push(!err && typeof v === "string" && v !== "" ? v : null);
        }
      }
      return out;
    });
  }

  async auditAppend(entry: BytesLike, maxEntries: number): Promise<void> {
    await this.run(async (r) => {
      const m = r.multi().lpush(AUDIT_LIST, toBuffer(entry));
      if (maxEntries > 0) m.ltrim(AUDIT_LIST, 0, maxEntries - 1);
      await this.conn.execValues(m);
    });
  }

  async auditRange(offset: number, limit: number): Promise<{ total: number; items: Buffer[] }> {
    return this.run(async (r) => {
      if (limit <= 0) return { total: await r.llen(AUDIT_LIST), items: [] };
      const [total, items] = await this.conn.execValues(
        r
          .pipeline()
          .llen(AUDIT_LIST)
          .lrangeBuffer(AUDIT_LIST, offset, offset + limit - 1),
      );
      return { total: asNumber(total), items: asBufferArray(items) };
    });
  }

  async auditReplace(old: BytesLike, entry: BytesLike | null, maxEntries: number): Promise<boolean> {
    const args = [toBuffer(old), entry === null ? EMPTY : toBuffer(entry), String(Math.max(0, maxEntries))];
    return this.run(async (r) => asNumber(await callScript(r, "auditReplace", [AUDIT_LIST], args)) === 1);
  }

  async auditRefusalSlot(actor: string, limit: number, windowSeconds: number, nowMs = Date.now()): Promise<RefusalSlot> {
    const windowMs = Math.max(1, Math.round(windowSeconds * 1000));
    const args = [String(Math.round(nowMs)), String(limit), String(windowMs), String(REFUSAL_COUNTER_KEEP_MS)];
    return this.run(async (r) => {
      const [decision, before, start] = (await callScript(r, "auditRefusal", [consoleKeys.auditRefusals(actor)], args)) as unknown[];
      return refusalSlot(asNumber(decision), asNumber(before), asNumber(start));
    });
  }

  // ---- console sessions

  async sessionPut(id: string, user: string, record: BytesLike, ttlSeconds: number, opts: { audit?: AuditWrite } = {}): Promise<void> {
    const keys3 = [AUDIT_LIST, consoleKeys.session(id), consoleKeys.userSessions(user)];
    const args = [
      toBuffer(record),
      String(toPx(ttlSeconds)),
      id,
      String(Date.now()),
      opts.audit ? toBuffer(opts.audit.entry) : EMPTY,
      String(Math.max(0, opts.audit?.maxEntries ?? 0)),
    ];
    await this.run((r) => callScript(r, "sessionPut", keys3, args));
  }

  async sessionGet(id: string): Promise<Buffer | null> {
    return this.run((r) => r.getBuffer(consoleKeys.session(id)));
  }

  async sessionDelete(id: string): Promise<boolean> {
    return this.run(async (r) => (await r.del(consoleKeys.session(id))) > 0);
  }

  async sessionDeleteForUser(user: string): Promise<number> {
    const index = consoleKeys.userSessions(user);
    return this.run(async (r) => {
      let live = 0;
      // Sessions made while this runs land in the index too: read it again until empty
      // (bounded: a user signing in faster than this loop is not a case to wait for).
      for (let round = 0; round < 10; round++) {
        const ids = await r.zrange(index, "0", String(SESSION_BATCH - 1));
        if (ids.length === 0) break;
        live += asNumber(await callScript(r, "sessionDeleteUser", [index, ...ids.map((id) => consoleKeys.session(id))], ids));
      }
      return live;
    });
  }

  // ---- sign-in throttling

  async signInReserve(pairId: string, addressId: string, policy: SignInPolicy, nowMs = Date.now()): Promise<SignInReservation> {
    const args = [
      String(Math.round(nowMs)),
      String(policy.pairFree),
      String(policy.pairForgetMs),
      String(policy.addressFree),
      String(policy.addressWindowMs),
      String(policy.baseDelayMs),
      String(policy.maxDelayMs),
    ];
    return this.run(async (r) => {
      const [ok, wait] = (await callScript(r, "signinReserve", [consoleKeys.signInPair(pairId), consoleKeys.signInAddress(addressId)], args)) as unknown[];
      return asNumber(ok) === 1 ? { allowed: true } : { allowed: false, waitMs: Math.max(1, asNumber(wait)) };
    });
  }

  async signInSettle(pairId: string, addressId: string, outcome: "success" | "refund", policy: SignInPolicy): Promise<void> {
    const args = [outcome, String(policy.pairFree), String(policy.addressFree)];
    await this.run((r) => callScript(r, "signinSettle", [consoleKeys.signInPair(pairId), consoleKeys.signInAddress(addressId)], args));
  }

  // ---- the console's watch (./watch-types: queue history and alerts)

  async queueWatch(queues: QueueWatchRequest[], opts: QueueWatchOptions): Promise<QueueWatch[]> {
    if (queues.length === 0) return [];
    const t = opts.now ?? nowSeconds();
    return this.run(async (r) => {
      // One pipeline for every queue: 8 depth commands and one probe script per pending list,
      // with the oldest mark only. A mark not found costs an LPOS over up to maxScan entries
      // (100,000 of a 1M list: 3 ms; eight in one script took 30 ms, issue 11), so the next
      // marks are probed one per script, in further pipelines, for the lists still unresolved.
      const probe = (p: ChainableCommander, name: string, priority: Priority, marks: Buffer[]) =>
        // queued on the pipeline: its answer comes back from exec()
        void callScript(p as unknown as Redis, "queueProbe", [queueKeyForPriority(name, priority)], [String(opts.maxTailBytes), String(opts.maxScan), ...marks], {
          buffer: true,
        });
      const p = r.pipeline();
      for (const q of queues) {
        this.queueDepthCommands(p, q.name, t);
        for (const priority of WATCH_PRIORITIES) probe(p, q.name, priority, (q.marks?.[priority] ?? []).slice(0, 1));
      }
      const res = await this.conn.exec(p);
      const per = 8 + WATCH_PRIORITIES.length;
      const out = queues.map((q, i) => {
        const row = res.slice(i * per, i * per + per);
        const lists = {} as Record<Priority, PendingListWatch>;
        WATCH_PRIORITIES.forEach((priority, j) => {
          const [err, value] = row[8 + j]!;
          // a pending list of another type (flagged corrupt by the depths) probes as empty
          if (err && !isWrongTypeError(err)) throw mapRedisError(this.rawUrl, err);
          lists[priority] = pendingListWatch(err ? null : value);
        });
        return { depths: this.depthsFrom(q.name, row.slice(0, 8)), lists };
      });
      type Open = { i: number; priority: Priority; next: number };
      let open: Open[] = [];
      queues.forEach((q, i) => {
        for (const priority of WATCH_PRIORITIES) {
          if (out[i]!.lists[priority].found === null && out[i]!.lists[priority].length > 0 && (q.marks?.[priority]?.length ?? 0) > 1) open.push({ i, priority, next: 1 });
        }
      });
      while (open.length > 0) {
        const more = r.pipeline();
        for (const o of open) probe(more, queues[o.i]!.name, o.priority, [queues[o.i]!.marks![o.priority]![o.next]!]);
        const got = await this.conn.exec(more);
        const still: Open[] = [];
        open.forEach((o, k) => {
          const [err, value] = got[k]!;
          if (err && !isWrongTypeError(err)) throw mapRedisError(this.rawUrl, err);
          const w = pendingListWatch(err ? null : value);
          if (w.found !== null) out[o.i]!.lists[o.priority].found = { mark: o.next, position: w.found.position };
          else if (w.length > 0 && o.next + 1 < queues[o.i]!.marks![o.priority]!.length) still.push({ ...o, next: o.next + 1 });
        });
        open = still;
      }
      return out;
    });
  }

  async historyWrite(slots: HistorySlotWrite[], opts: { ttlSeconds: number; latest?: Map<string, Buffer> }): Promise<void> {
    if (slots.length === 0 && !opts.latest) return;
    const ttlMs = String(toPx(opts.ttlSeconds));
    await this.run(async (r) => {
      const m = r.multi();
      const rings = new Set<string>();
      for (const s of slots) {
        const key = consoleKeys.history(s.tier, s.series);
        m.setrange(key, s.offset, s.bytes);
        rings.add(key);
      }
      for (const key of rings) m.pexpire(key, ttlMs);
      if (opts.latest) {
        m.del(consoleKeys.historyLatest);
        if (opts.latest.size > 0) m.hset(consoleKeys.historyLatest, opts.latest);
      }
      await this.conn.execValues(m);
    });
  }

  async historyRead(reads: HistoryRangeRead[]): Promise<Buffer[]> {
    if (reads.length === 0) return [];
    return this.run(async (r) => {
      const p = r.pipeline();
      for (const rd of reads) p.getrangeBuffer(consoleKeys.history(rd.tier, rd.series), rd.offset, rd.offset + Math.max(0, rd.length) - 1);
      const v = await this.conn.execValues(p);
      return v.map((x) => asBuffer(x) ?? EMPTY);
    });
  }

  async historyLatest(): Promise<Map<string, Buffer>> {
    return this.run(async (r) => new Map(Object.entries(hashRecord(await r.hgetallBuffer(consoleKeys.historyLatest)))));
  }

  async alertRulesGet(): Promise<{ doc: Buffer | null; gen: number }> {
    return this.run(async (r) => {
      const [doc, gen] = await r.hmgetBuffer(consoleKeys.alertRules, "doc", "gen");
      const n = gen ? parseIntStrict(gen.toString("utf8")) : 0;
      if (n === null) throw new CorruptDataError(`${consoleKeys.alertRules} has a generation that is not an integer`);
      return { doc: doc ?? null, gen: n };
    });
  }

  async alertRulesSet(doc: BytesLike, expectedGen: number): Promise<{ gen: number }> {
    return this.run(async (r) => {
      const [ok, gen] = (await callScript(r, "alertRulesSet", [consoleKeys.alertRules], [toBuffer(doc), String(expectedGen)])) as unknown[];
      if (asNumber(ok) !== 1) throw new StaleGenerationError(expectedGen, asNumber(gen));
      return { gen: asNumber(gen) };
    });
  }

  async alertStateRead(historyLimit: number): Promise<AlertStateRead> {
    return this.run(async (r) => {
      const p = r.pipeline().hgetallBuffer(consoleKeys.alertFiring).hgetallBuffer(consoleKeys.alertOutbox).llen(consoleKeys.alertHistory);
      if (historyLimit > 0) p.lrangeBuffer(consoleKeys.alertHistory, 0, historyLimit - 1);
      const [firing, outbox, total, history] = await this.conn.execValues(p);
      return {
        firing: new Map(Object.entries(hashRecord(firing))),
        outbox: new Map(Object.entries(hashRecord(outbox))),
        history: asBufferArray(history),
        historyTotal: asNumber(total),
      };
    });
  }

  async alertStateWrite(change: AlertStateChange): Promise<void> {
    await this.run(async (r) => {
      const m = r.multi();
      if (change.firingSet?.size) m.hset(consoleKeys.alertFiring, change.firingSet);
      if (change.firingDel?.length) m.hdel(consoleKeys.alertFiring, ...change.firingDel);
      if (change.outboxSet?.size) m.hset(consoleKeys.alertOutbox, change.outboxSet);
      if (change.outboxDel?.length) m.hdel(consoleKeys.alertOutbox, ...change.outboxDel);
      if (change.history?.length) {
        m.lpush(consoleKeys.alertHistory, ...change.history);
        m.ltrim(consoleKeys.alertHistory, 0, Math.max(1, change.historyMax) - 1);
      }
      await this.conn.execValues(m);
    });
  }

  // ---- search inside a queue (./search.ts)

  async queueScan(name: string, part: QueueScanPart, start: number, count: number): Promise<QueueScanChunk> {
    return this.run((r) => redisQueueScan(this.conn, r, name, part, start, count));
  }

  async bulkJobCreate(id: string, doc: BytesLike, nowMs: number = Date.now()): Promise<void> {
    await this.run((r) => redisBulkJobCreate(this.conn, r, id, toBuffer(doc), nowMs));
  }

  async bulkJobGet(ids: string[]): Promise<Array<BulkJobRecord | null>> {
    return this.run((r) => redisBulkJobGet(this.conn, r, ids));
  }

  async bulkJobIds(limit: number): Promise<string[]> {
    return this.run((r) => redisBulkJobIds(r, limit));
  }

  async bulkJobSet(id: string, fields: Record<string, string>, opts: { ifState?: string; keepSeconds?: number } = {}): Promise<boolean> {
    return this.run((r) => redisBulkJobSet(r, id, fields, opts));
  }

  async queueTakeMatches(name: string, chunk: TakeMatchesChunk): Promise<{ ok: boolean; taken: number; missing: number; cursor: number }> {
    return this.run((r) => redisQueueTakeMatches(r, name, chunk));
  }
}

const WATCH_PRIORITIES: readonly Priority[] = ["high", "normal", "low"];

function pendingListWatch(v: unknown): PendingListWatch {
  const [len, tail, tailBytes, found, pos] = Array.isArray(v) ? v : [];
  const mark = asNumber(found);
  return {
    length: asNumber(len) || 0,
    tail: asBuffer(tail),
    tailBytes: asNumber(tailBytes) || 0,
    found: mark > 0 ? { mark: mark - 1, position: asNumber(pos) } : null,
  };
}

/** Session ids per script call when a user's sessions are ended. */
const SESSION_BATCH = 500;

function refusalSlot(decision: number, before: number, start: number): RefusalSlot {
  return {
    decision: decision === 1 ? "record" : decision === 2 ? "marker" : "suppress",
    suppressedBefore: before,
    windowStartMs: start,
  };
}
