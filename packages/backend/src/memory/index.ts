// The in-memory Backend: the same keys, encodings and semantics as the Redis one, held in
// one process. Used by tests, the demo mode of the console, and the shared contract suite.
// Every method body runs synchronously against the store, so each operation is atomic in
// the same way a Lua script or MULTI is on Redis.
//
// Test hook: `backend.raw` is the key space itself (a MemoryStore). Write raw bytes under
// Fleet's key names (`raw.set`, `raw.hset`, `raw.zadd`, `raw.rpush`) to plant corrupt data,
// and read what an operation stored (`raw.get`, `raw.hgetall`, `raw.zrange`, `raw.lrange`,
// `raw.smembers`, `raw.type`, `raw.pttl`, `raw.keys`).

import { randomBytes } from "node:crypto";
import {
  decodePoolItem,
  configFromRaw,
  decodeUtf8,
  encodePoolItem,
  genFromRaw,
  encodeUnixFloat,
  parseIntStrict,
  poolCounts,
  poolItemRecord,
  scalePoolCounts,
  poolPruneVictims,
  sha1Hex,
  statsFrameFromRaw,
  tagsMatch,
  toBuffer,
  workerRecordFromRaw,
  parseJsonBytes,
  isJsonObject,
} from "../codec";
import { memoryBulkJobCreate, memoryBulkJobGet, memoryBulkJobIds, memoryBulkJobSet, memoryQueueScan, memoryQueueTakeMatches } from "./search";
import { CorruptDataError, StaleGenerationError, checkCounterValue, checkHoldSeconds, maskUrl } from "../errors";
import {
  AUDIT_LIST,
  CATALOG_HASH,
  REFUSAL_COUNTER_KEEP_MS,
  consoleKeys,
  POOL_EXACT_UP_TO,
  POOL_SAMPLE,
  WORKER_ALL_INDEX,
  WORKER_FIELDS,
  keys,
  kvPartsOfKey,
  parseWorkerAllMember,
  poolNameOfKey,
  priorityFromInt,
  queueKeyForPriority,
  queueNameOfKey,
  queuePriorityKeys,
  type Priority,
} from "../keys";
import { leaseNowSeconds } from "../lease-clock";
import { pyFloatRepr, pyJsonBytes } from "../pyjson";
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
import { MemoryStore, type Value } from "./store";
import type { OfflineRemoval, WorkerStateEntry } from "../types";
import { readWorkersState, removeOfflineWorkers } from "./worker-bulk";
import { taskIdOfBody, withAttemptsReset } from "../task-body";
import { memoryPoolItemIds, memoryPoolItemsByIds, memoryPoolItemsScan } from "./pools";
import { SCHEDULED_DRAIN_MAX, SCHEDULED_DRAIN_MAX_BYTES } from "../queue-bounds";

export { MemoryStore, SortedSet } from "./store";
export type { RedisType, Value, ZMember } from "./store";

/** A deadline as lease text: any exact text of the double will do (Redis answers "%.17g"). */
function leaseText(deadline: number): string {
  return String(deadline);
}

const POLL_MS = 20;

const nowSeconds = () => Date.now() / 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class MemoryBackend implements Backend {
  readonly kind = "memory" as const;
  readonly url: string;
  /** The key space; see the header comment. */
  readonly raw = new MemoryStore();
  private readonly listeners = new Set<(msg: BusMessage) => void>();
  private closed = false;

  constructor(url = "memory://") {
    this.url = maskUrl(url);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
  }

  async health(): Promise<HealthInfo> {
    return { version: "memory", latencyMs: 0, aofEnabled: null, usedMemoryBytes: null };
  }

  // ---- kv

  async kvSet(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<void> {
    this.raw.set(keys.kv(ns, key), value, { ttlMs: ttlMs(ttlSeconds) });
  }

  async kvSetNx(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<boolean> {
    return this.raw.set(keys.kv(ns, key), value, { nx: true, ttlMs: ttlMs(ttlSeconds) });
  }

  async kvGet(ns: string, key: string): Promise<Buffer | null> {
    return this.raw.get(keys.kv(ns, key));
  }

  async kvDel(ns: string, key: string): Promise<boolean> {
    return this.raw.del(keys.kv(ns, key)) > 0;
  }

  async kvGetEntry(ns: string, key: string): Promise<{ value: Buffer; ttlMs: number | null } | null> {
    const k = keys.kv(ns, key);
    const value = this.raw.get(k);
    if (value === null) return null;
    const pttl = this.raw.pttl(k);
    return { value, ttlMs: pttl >= 0 ? pttl : null };
  }

  async kvNamespaces(): Promise<KvNamespaceSummary[]> {
    const counts = new Map<string, number>();
    for (const k of this.raw.keysWithPrefix("fleet:kv:")) {
      const parts = kvPartsOfKey(k);
      if (parts) counts.set(parts.ns, (counts.get(parts.ns) ?? 0) + 1);
    }
    return [...counts.entries()].sort(([a], [b]) => cmp(a, b)).map(([ns, n]) => ({ ns, keys: n }));
  }

  async kvKeys(ns: string): Promise<KvKeySummary[]> {
    const prefix = keys.kv(ns, "");
    return this.raw
      .keysWithPrefix(prefix)
      .filter((k) => kvPartsOfKey(k)?.ns === ns)
      .map((k) => {
        const pttl = this.raw.pttl(k);
        return { key: k.slice(prefix.length), ttlMs: pttl >= 0 ? pttl : null, bytes: this.byteSize(k) };
      })
      .sort((a, b) => cmp(a.key, b.key));
  }

  async kvKeySummaries(ns: string, names: string[]): Promise<KvKeySummary[]> {
    const out: KvKeySummary[] = [];
    for (const key of names) {
      const k = keys.kv(ns, key);
      if (!this.raw.exists(k)) continue;
      const pttl = this.raw.pttl(k);
      out.push({ key, ttlMs: pttl >= 0 ? pttl : null, bytes: this.byteSize(k) });
    }
    return out;
  }

  async kvKeysPage(ns: string, cursor: string, limit: number): Promise<KvKeysPage> {
    // The cursor is "0" or "k" + the last key answered: keys come in code-unit order.
    if (cursor !== "0" && !cursor.startsWith("k")) throw new RangeError(`not a kv page cursor: '${cursor}'`);
    const after = cursor === "0" ? null : cursor.slice(1);
    const prefix = keys.kv(ns, "");
    const all = this.raw
      .keysWithPrefix(prefix)
      .filter((k) => kvPartsOfKey(k)?.ns === ns)
      .map((k) => k.slice(prefix.length))
      .filter((k) => after === null || k > after)
      .sort(cmp);
    const page = all.slice(0, Math.max(1, limit));
    const more = all.length > page.length;
    return { keys: await this.kvKeySummaries(ns, page), cursor: more ? `k${page[page.length - 1]!}` : "0" };
  }

  private byteSize(key: string): number {
    return this.raw.type(key) === "string" ? this.raw.strlen(key) : 0;
  }

  // ---- pools

  async poolPut(name: string, itemId: string, payload: BytesLike, tags: JsonObject, ttlSeconds?: number | null): Promise<void> {
    const now = nowSeconds();
    const expiresAt = ttlSeconds != null && ttlSeconds > 0 ? now + ttlSeconds : null;
    const key = keys.pool(name);
    this.raw.hset(key, { [itemId]: encodePoolItem(payload, tags, expiresAt) });
    // Python prunes on every put: what it cannot decode and what has expired, nothing else.
    const doomed = poolPruneVictims(this.raw.hgetall(key), now);
    if (doomed.length) this.raw.hdel(key, ...doomed);
  }

  private liveItems(name: string): RawItem[] {
    const now = nowSeconds();
    const out: RawItem[] = [];
    for (const [id, raw] of this.raw.hgetall(keys.pool(name))) {
      const d = decodePoolItem(raw);
      if (!d || (d.expiresAt !== null && d.expiresAt < now)) continue;
      const pttl = this.raw.pttl(keys.poolClaim(name, id));
      out.push({ id, payload: d.payload, tags: d.tags, expiresAt: d.expiresAt, inUseUntil: pttl > 0 ? now + pttl / 1000 : null });
    }
    // by id, as the Redis implementation lists them (Python's order is Redis's hash order)
    return out.sort((a, b) => cmp(a.id, b.id));
  }

  async poolList(name: string): Promise<RawItem[]> {
    return this.liveItems(name);
  }

  async poolRemove(name: string, itemId: string): Promise<boolean> {
    const removed = this.raw.hdel(keys.pool(name), itemId) > 0;
    this.raw.del(keys.poolClaim(name, itemId));
    return removed;
  }

  async poolRelease(name: string, itemId: string): Promise<boolean> {
    return this.raw.del(keys.poolClaim(name, itemId)) > 0;
  }

  async poolClaimAny(name: string, where: JsonObject, holdSeconds: number): Promise<RawItem | null> {
    checkHoldSeconds(holdSeconds);
    // Python's order: latest expiry first, never-expiring items last (stable sort).
    const items = this.liveItems(name).sort((a, b) => (b.expiresAt ?? 0) - (a.expiresAt ?? 0));
    for (const item of items) {
      if (item.inUseUntil !== null || !tagsMatch(item.tags, where)) continue;
      if (this.raw.set(keys.poolClaim(name, item.id), "1", { nx: true, ttlMs: holdSeconds * 1000 })) return item;
    }
    return null;
  }

  async poolSize(name: string): Promise<number> {
    return this.raw.hlen(keys.pool(name));
  }

  async poolNames(): Promise<string[]> {
    const names = new Set<string>();
    for (const k of this.raw.keysWithPrefix("fleet:pool:")) {
      const n = poolNameOfKey(k);
      // any type, as Redis's SCAN finds it: a key of another type is listed, and read as corrupt
      if (n !== null) names.add(n);
    }
    return [...names].sort(cmp);
  }

  async poolSummaries(names: string[], opts: { exactUpTo?: number } = {}): Promise<PoolSummary[]> {
    const exactUpTo = opts.exactUpTo ?? POOL_EXACT_UP_TO;
    return names.map((name) => {
      const all = wrongTypeAs(null, () => this.poolRecords(name));
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
  }

  private poolRecords(name: string): PoolItemRecord[] {
    const now = nowSeconds();
    return [...this.raw.hgetall(keys.pool(name))].map(([id, raw]) => poolItemRecord(id, raw, this.raw.pttl(keys.poolClaim(name, id)), now)).sort((a, b) => cmp(a.id, b.id));
  }

  async poolItems(name: string): Promise<PoolItemRecord[]> {
    return this.poolRecords(name);
  }

  async poolItemIds(name: string, max: number): Promise<string[] | null> {
    return memoryPoolItemIds(this.raw, name, max);
  }

  async poolItemsByIds(name: string, ids: string[]): Promise<PoolItemRecord[]> {
    return memoryPoolItemsByIds(this.raw, name, ids);
  }

  async poolItemsScan(name: string, cursor: string, limit: number): Promise<PoolItemsPage> {
    return memoryPoolItemsScan(this.raw, name, cursor, limit);
  }

  async poolDelete(name: string): Promise<{ deleted: boolean; items: number }> {
    const key = keys.pool(name);
    const ids = [...this.raw.hgetall(key).keys()];
    this.raw.del(...ids.map((id) => keys.poolClaim(name, id)));
    return { deleted: this.raw.del(key) > 0, items: ids.length };
  }

  // ---- locks

  async lockAcquire(name: string, holdSeconds: number, waitSeconds: number): Promise<string | null> {
    const token = randomBytes(16).toString("hex");
    const deadline = Date.now() + Math.max(0, waitSeconds) * 1000;
    let backoffMs = 50;
    for (;;) {
      if (this.raw.set(keys.lock(name), token, { nx: true, ttlMs: Math.max(1, holdSeconds) * 1000 })) return token;
      const left = deadline - Date.now();
      if (left <= 0 || this.closed) return null;
      await sleep(Math.min(backoffMs, left));
      backoffMs = Math.min(backoffMs * 2, 500);
    }
  }

  async lockRelease(name: string, token: string): Promise<boolean> {
    const k = keys.lock(name);
    const cur = this.raw.type(k) === "string" ? this.raw.get(k) : null;
    if (cur === null || !cur.equals(Buffer.from(token))) return false;
    return this.raw.del(k) > 0;
  }

  async lockExtend(name: string, token: string, holdSeconds: number): Promise<boolean> {
    const k = keys.lock(name);
    const cur = this.raw.type(k) === "string" ? this.raw.get(k) : null;
    if (cur === null || !cur.equals(Buffer.from(token))) return false;
    return this.raw.expire(k, Math.max(1, Math.round(holdSeconds * 1000)));
  }

  async lockList(): Promise<LockSummary[]> {
    const prefix = keys.lock("");
    return this.raw.keysWithPrefix(prefix).map((k) => {
      const pttl = this.raw.pttl(k);
      return { name: k.slice(prefix.length), ttlMs: pttl >= 0 ? pttl : null };
    });
  }

  async lockSummaries(names: string[]): Promise<LockSummary[]> {
    const out: LockSummary[] = [];
    for (const name of names) {
      const pttl = this.raw.pttl(keys.lock(name));
      if (pttl !== -2) out.push({ name, ttlMs: pttl >= 0 ? pttl : null });
    }
    return out;
  }

  async lockForceRelease(name: string): Promise<boolean> {
    return this.raw.del(keys.lock(name)) > 0;
  }

  // ---- counters

  async counterIncr(name: string, by: number): Promise<number> {
    return this.raw.incrBy(keys.counter(name), by);
  }

  async counterGet(name: string): Promise<number> {
    const raw = this.raw.get(keys.counter(name));
    if (raw === null) return 0;
    const text = decodeUtf8(raw);
    const n = text === null ? null : parseIntStrict(text);
    if (n === null) throw new CorruptDataError(`${keys.counter(name)} does not hold an integer`);
    return n;
  }

  async counterSet(name: string, value: number): Promise<void> {
    checkCounterValue(value);
    this.raw.set(keys.counter(name), String(value));
  }

  async counterDel(name: string): Promise<boolean> {
    return this.raw.del(keys.counter(name)) > 0;
  }

  async counterList(): Promise<CounterSummary[]> {
    const prefix = keys.counter("");
    return this.raw.keysWithPrefix(prefix).map((k) => {
      // a key of another type is listed unreadable (value null, no bytes), as Redis's GET fails on it
      if (this.raw.type(k) !== "string") return { name: k.slice(prefix.length), value: null, raw: Buffer.alloc(0) };
      const raw = this.raw.get(k)!;
      const text = decodeUtf8(raw);
      return { name: k.slice(prefix.length), value: text === null ? null : parseIntStrict(text), raw };
    });
  }

  async counterSummaries(names: string[]): Promise<CounterSummary[]> {
    const out: CounterSummary[] = [];
    for (const name of names) {
      const k = keys.counter(name);
      const type = this.raw.type(k);
      if (type === "none") continue;
      // a key of another type is a counter that does not hold an integer, as on Redis
      const raw = type === "string" ? this.raw.get(k)! : Buffer.alloc(0);
      const text = type === "string" ? decodeUtf8(raw) : null;
      out.push({ name, value: text === null ? null : parseIntStrict(text), raw });
    }
    return out;
  }

  // ---- queues

  async queuePush(name: string, body: BytesLike, opts?: { priority?: number | Priority }): Promise<void> {
    this.raw.rpush(queueKeyForPriority(name, normalizePriority(opts?.priority)), body);
  }

  async queuePushMany(name: string, items: Array<{ body: BytesLike; priority?: Priority }>): Promise<void> {
    for (const it of items) this.raw.rpush(queueKeyForPriority(name, it.priority ?? "normal"), it.body);
  }

  async queueSize(name: string): Promise<number> {
    return queuePriorityKeys(name).reduce((n, k) => n + this.raw.llen(k), 0);
  }

  async queuePeek(name: string, n: number): Promise<Buffer[]> {
    const out: Buffer[] = [];
    for (const k of queuePriorityKeys(name)) {
      const left = n - out.length;
      if (left <= 0) break;
      out.push(...this.raw.lrange(k, 0, left - 1));
    }
    return out;
  }

  /**
   * Moves due `:scheduled` bodies onto the normal list, soonest first: at most
   * SCHEDULED_DRAIN_MAX (and about SCHEDULED_DRAIN_MAX_BYTES) per reserve, in slices of 16, as
   * reserve-6.lua does, so both implementations leave the same bodies behind.
   */
  private drainScheduled(name: string, now: number): void {
    const sched = keys.queueScheduled(name);
    const due = this.raw.zrangeByScore(sched, -Infinity, now);
    if (!due.length) return;
    let moved = 0;
    let bytes = 0;
    while (moved < due.length && moved < SCHEDULED_DRAIN_MAX && bytes < SCHEDULED_DRAIN_MAX_BYTES) {
      const slice = due.slice(moved, moved + Math.min(16, SCHEDULED_DRAIN_MAX - moved));
      for (const e of slice) this.raw.zrem(sched, e.member);
      this.raw.rpush(keys.queue(name), ...slice.map((e) => e.member));
      moved += slice.length;
      for (const e of slice) bytes += e.member.length;
    }
  }

  private reserveOnce(name: string, visibilitySeconds: number): ReservedTask | null {
    const now = leaseNowSeconds();
    this.drainScheduled(name, now);
    let body: Buffer | null = null;
    for (const k of queuePriorityKeys(name)) {
      body = this.raw.lpop(k);
      if (body) break;
    }
    if (!body) return null;
    const id = taskIdOfBody(body);
    if (id === null) return { body, lease: null }; // delivered once, never registered
    const deadline = now + Math.max(1, visibilitySeconds);
    this.raw.zadd(keys.queueProcessing(name), deadline, id);
    this.raw.hset(keys.queueProcessingBody(name), { [id]: body });
    return { body, lease: leaseText(deadline) };
  }

  async queueReserve(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<Buffer | null> {
    return (await this.queueReserveLease(name, timeoutSeconds, visibilitySeconds))?.body ?? null;
  }

  async queueReserveLease(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<ReservedTask | null> {
    const deadline = Date.now() + Math.max(0, timeoutSeconds) * 1000;
    for (;;) {
      const got = this.reserveOnce(name, visibilitySeconds);
      if (got) return got;
      const left = deadline - Date.now();
      if (left <= 0 || this.closed) return null;
      await sleep(Math.min(POLL_MS, left));
    }
  }

  /** Whether the reservation of `taskId` is still the one `lease` names (true without a lease). */
  private holds(name: string, taskId: string, lease: string | null | undefined): boolean {
    if (!lease) return true;
    const cur = this.raw.zscore(keys.queueProcessing(name), taskId);
    return cur !== null && cur === Number(lease);
  }

  /** Waiters of `queueWait`, by pending-list key. */
  private readonly listWaiters = new Map<string, Set<() => void>>();

  async queueWait(name: string, timeoutSeconds: number): Promise<boolean> {
    const lists = queuePriorityKeys(name);
    if (lists.some((k) => this.raw.llen(k) > 0)) return true;
    if (this.closed) return false;
    if (!this.raw.onListPush) {
      this.raw.onListPush = (key) => {
        const ws = this.listWaiters.get(key);
        if (ws) for (const w of [...ws]) w();
      };
    }
    return new Promise<boolean>((resolve) => {
      const finish = (woken: boolean) => {
        clearTimeout(timer);
        for (const k of lists) this.listWaiters.get(k)?.delete(wake);
        resolve(woken);
      };
      const wake = () => finish(true);
      const timer = setTimeout(() => finish(false), Math.max(0, timeoutSeconds) * 1000);
      for (const k of lists) {
        let ws = this.listWaiters.get(k);
        if (!ws) this.listWaiters.set(k, (ws = new Set()));
        ws.add(wake);
      }
    });
  }

  async queueExtend(name: string, taskId: string, lease: string, visibilitySeconds: number): Promise<string | null> {
    const cur = this.raw.zscore(keys.queueProcessing(name), taskId);
    if (cur === null || cur !== Number(lease)) return null;
    const deadline = Math.max(cur, leaseNowSeconds() + Math.max(1, visibilitySeconds));
    this.raw.zadd(keys.queueProcessing(name), deadline, taskId);
    return leaseText(deadline);
  }

  private endReservation(name: string, taskId: string): boolean {
    const removed = this.raw.zrem(keys.queueProcessing(name), taskId);
    this.raw.hdel(keys.queueProcessingBody(name), taskId);
    return removed;
  }

  async queueAck(name: string, taskId: string, opts: LeaseOption = {}): Promise<boolean> {
    if (!this.holds(name, taskId, opts.lease)) return false;
    return this.endReservation(name, taskId);
  }

  async queueNack(name: string, taskId: string, body: BytesLike, opts: { delaySeconds: number } & LeaseOption): Promise<boolean> {
    if (!this.holds(name, taskId, opts.lease)) return false;
    this.endReservation(name, taskId);
    if (opts.delaySeconds > 0) this.raw.zadd(keys.queueScheduled(name), nowSeconds() + opts.delaySeconds, body);
    else this.raw.rpush(keys.queue(name), body);
    return true;
  }

  async queueFail(name: string, taskId: string, body: BytesLike, opts: LeaseOption = {}): Promise<boolean> {
    if (!this.holds(name, taskId, opts.lease)) return false;
    const ended = this.endReservation(name, taskId);
    this.raw.rpush(keys.queueDead(name), body);
    return ended;
  }

  async queueSweepExpired(name: string, now?: number): Promise<SweepResult> {
    const t = now ?? nowSeconds();
    const proc = keys.queueProcessing(name);
    const bodies = keys.queueProcessingBody(name);
    const result: SweepResult = { requeued: 0, orphaned: [] };
    for (const { member } of this.raw.zrangeByScore(proc, 0, t)) {
      const id = member.toString("utf8");
      const body = this.raw.hget(bodies, id);
      this.raw.zrem(proc, member);
      if (body === null) {
        result.orphaned.push(id);
        continue;
      }
      this.raw.hdel(bodies, id);
      this.raw.rpush(keys.queue(name), body);
      result.requeued++;
    }
    return result;
  }

  async queueDead(name: string, body: BytesLike): Promise<void> {
    this.raw.rpush(keys.queueDead(name), body);
  }

  async dlqPeek(name: string, n: number): Promise<Buffer[]> {
    return n > 0 ? this.raw.lrange(keys.queueDead(name), 0, n - 1) : [];
  }

  async dlqPop(name: string, n: number): Promise<Buffer[]> {
    const out: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      const b = this.raw.lpop(keys.queueDead(name));
      if (!b) break;
      out.push(b);
    }
    return out;
  }

  async dlqLength(name: string): Promise<number> {
    return this.raw.llen(keys.queueDead(name));
  }

  async dlqClear(name: string): Promise<number> {
    const n = this.raw.llen(keys.queueDead(name));
    this.raw.del(keys.queueDead(name));
    return n;
  }

  async dlqRange(name: string, offset: number, limit: number): Promise<{ total: number; items: Buffer[] }> {
    const k = keys.queueDead(name);
    const items = limit > 0 ? this.raw.lrange(k, Math.max(0, offset), Math.max(0, offset) + limit - 1) : [];
    return { total: this.raw.llen(k), items };
  }

  async dlqLocate(name: string, refs: string[]): Promise<{ found: DeadLetterMatch[]; missing: string[] }> {
    const wanted = new Set(refs.map((r) => r.toLowerCase()));
    const found = new Map<string, DeadLetterMatch>();
    this.raw.lrange(keys.queueDead(name)).forEach((body, index) => {
      if (found.size === wanted.size) return;
      const ref = sha1Hex(body);
      if (wanted.has(ref) && !found.has(ref)) found.set(ref, { ref, body, index });
    });
    return { found: [...found.values()], missing: [...wanted].filter((r) => !found.has(r)) };
  }

  async dlqTake(name: string, found: DeadLetterMatch[], action: "requeue" | "delete", opts: RequeueOptions = {}): Promise<{ count: number; missing: string[] }> {
    const dead = keys.queueDead(name);
    let count = 0;
    const missing: string[] = [];
    // As on Redis: one body at a time, every copy of it compared byte for byte.
    for (const m of [...found].sort((a, b) => a.index - b.index)) {
      const all = this.raw.lrange(dead);
      const kept = all.filter((b) => !b.equals(m.body));
      const n = all.length - kept.length;
      if (n === 0) {
        missing.push(m.ref);
        continue;
      }
      this.raw.lreplace(dead, kept);
      if (action === "requeue") {
        const pushed = withAttemptsReset(m.body, opts);
        this.raw.rpush(keys.queue(name), ...Array.from({ length: n }, () => pushed));
      }
      count += n;
    }
    return { count, missing };
  }

  private async dlqByRef(name: string, refs: string[], action: "requeue" | "delete", opts: RequeueOptions = {}): Promise<{ count: number; missing: string[] }> {
    const located = await this.dlqLocate(name, refs);
    const taken = await this.dlqTake(name, located.found, action, opts);
    const gone = new Set([...located.missing, ...taken.missing]);
    return { count: taken.count, missing: [...new Set(refs.map((r) => r.toLowerCase()))].filter((r) => gone.has(r)) };
  }

  async dlqRequeue(name: string, which: DeadLetterSelector, opts: RequeueOptions = {}): Promise<{ requeued: number; missing: string[] }> {
    if ("all" in which) {
      const taken = this.raw.lrange(keys.queueDead(name));
      this.raw.del(keys.queueDead(name));
      if (taken.length) this.raw.rpush(keys.queue(name), ...taken.map((b) => withAttemptsReset(b, opts)));
      return { requeued: taken.length, missing: [] };
    }
    const { count, missing } = await this.dlqByRef(name, which.refs, "requeue", opts);
    return { requeued: count, missing };
  }

  async dlqDelete(name: string, which: DeadLetterSelector): Promise<{ deleted: number; missing: string[] }> {
    if ("all" in which) return { deleted: await this.dlqClear(name), missing: [] };
    const { count, missing } = await this.dlqByRef(name, which.refs, "delete");
    return { deleted: count, missing };
  }

  async queuesExist(names: string[]): Promise<boolean[]> {
    return names.map((n) =>
      [keys.queue(n), keys.queueHigh(n), keys.queueLow(n), keys.queueProcessing(n), keys.queueProcessingBody(n), keys.queueScheduled(n), keys.queueDead(n)].some((k) =>
        this.raw.exists(k),
      ),
    );
  }

  async queueNames(): Promise<string[]> {
    const names = new Set<string>();
    for (const k of this.raw.keysWithPrefix("fleet:queue:")) {
      const n = queueNameOfKey(k);
      if (n !== null) names.add(n);
    }
    return [...names].sort(cmp);
  }

  /** As Redis: a key of another type reads as empty and its part is listed in `corrupt`. */
  private depths(name: string, now: number): QueueDepths {
    const [hk, nk, lk] = queuePriorityKeys(name);
    const corrupt: string[] = [];
    const part = (what: string, read: () => number): number => {
      const n = wrongTypeAs(null, read);
      if (n !== null) return n;
      if (!corrupt.includes(what)) corrupt.push(what);
      return 0;
    };
    const high = part("high", () => this.raw.llen(hk));
    const normal = part("normal", () => this.raw.llen(nk));
    const low = part("low", () => this.raw.llen(lk));
    const processing = part("processing", () => this.raw.zcard(keys.queueProcessing(name)));
    const overdue = part("processing", () => this.raw.zrangeByScore(keys.queueProcessing(name), -Infinity, now).length);
    const scheduled = part("scheduled", () => this.raw.zcard(keys.queueScheduled(name)));
    const due = part("scheduled", () => this.raw.zrangeByScore(keys.queueScheduled(name), -Infinity, now).length);
    const dead = part("dead", () => this.raw.llen(keys.queueDead(name)));
    return {
      name,
      pending: { high, normal, low, total: high + normal + low },
      processing,
      overdue,
      scheduled,
      due,
      dead,
      ...(corrupt.length > 0 ? { corrupt } : {}),
    };
  }

  async queueDepths(names: string[], now?: number): Promise<QueueDepths[]> {
    const t = now ?? nowSeconds();
    return names.map((n) => this.depths(n, t));
  }

  async queueDetail(name: string, limit: number, now?: number): Promise<QueueDetail> {
    const t = now ?? nowSeconds();
    const pending: QueueDetail["pending"] = [];
    const priorities: Priority[] = ["high", "normal", "low"];
    for (const priority of priorities) {
      const left = limit - pending.length;
      if (left <= 0) break;
      // a list of another type is empty here; depths() lists it as corrupt
      for (const body of wrongTypeAs([], () => this.raw.lrange(queueKeyForPriority(name, priority), 0, left - 1))) pending.push({ priority, body });
    }
    const n = Math.max(0, limit);
    const depths = this.depths(name, t);
    let bodiesWrongType = false;
    const processing = wrongTypeAs([], () => this.raw.zrange(keys.queueProcessing(name)))
      .slice(0, n)
      .map(({ member, score }) => {
        const id = member.toString("utf8");
        const body = wrongTypeAs(undefined, () => this.raw.hget(keys.queueProcessingBody(name), id));
        if (body === undefined) bodiesWrongType = true;
        return { id, deadline: score, body: body ?? null };
      });
    if (bodiesWrongType) depths.corrupt = [...(depths.corrupt ?? []), "processing:body"];
    const scheduled = wrongTypeAs([], () => this.raw.zrange(keys.queueScheduled(name)))
      .slice(0, n)
      .map(({ member, score }) => ({ readyAt: score, body: member }));
    return { depths, pending, processing, scheduled };
  }

  // ---- streams

  async streamPush(name: string, envelope: BytesLike, opts: { score: number; maxLen: number; ttlSeconds: number }): Promise<void> {
    const k = keys.stream(name);
    this.raw.zadd(k, opts.score, envelope);
    if (opts.ttlSeconds > 0) this.raw.zremRangeByScore(k, 0, opts.score - opts.ttlSeconds);
    if (opts.maxLen > 0) this.raw.zkeepNewest(k, opts.maxLen);
    this.publish(`${name}.emit`, Buffer.from(pyFloatRepr(opts.score)));
  }

  async streamPop(name: string, n: number): Promise<Buffer[]> {
    return this.raw.zpopmin(keys.stream(name), n).map((e) => e.member);
  }

  async streamPeek(name: string, n: number): Promise<Buffer[]> {
    return n > 0
      ? this.raw
          .zrange(keys.stream(name))
          .slice(0, n)
          .map((e) => e.member)
      : [];
  }

  async streamLength(name: string): Promise<number> {
    return this.raw.zcard(keys.stream(name));
  }

  async streamTrim(name: string, opts: { maxLen: number; ttlSeconds: number }): Promise<void> {
    const k = keys.stream(name);
    if (opts.ttlSeconds > 0) this.raw.zremRangeByScore(k, 0, nowSeconds() - opts.ttlSeconds);
    if (opts.maxLen > 0) this.raw.zkeepNewest(k, opts.maxLen);
  }

  async streamNames(): Promise<string[]> {
    const prefix = keys.stream("");
    return this.raw
      .keysWithPrefix(prefix)
      .map((k) => k.slice(prefix.length))
      .filter((n) => n.length > 0)
      .sort(cmp);
  }

  async streamSummaries(names: string[]): Promise<StreamSummary[]> {
    return names.map((name) => {
      const all = wrongTypeAs(null, () => this.raw.zrange(keys.stream(name)));
      if (all === null) return { name, length: 0, oldest: null, newest: null, corrupt: ["entries"] };
      return { name, length: all.length, oldest: all[0]?.score ?? null, newest: all[all.length - 1]?.score ?? null };
    });
  }

  async streamRange(name: string, limit: number, order: "newest" | "oldest"): Promise<StreamEntry[]> {
    if (limit <= 0) return [];
    const all = this.raw.zrange(keys.stream(name));
    const picked = order === "newest" ? all.reverse().slice(0, limit) : all.slice(0, limit);
    return picked.map((e) => ({ score: e.score, envelope: e.member }));
  }

  // ---- events

  private publish(topic: string, payload: Buffer): void {
    for (const listener of [...this.listeners]) {
      // Redis delivers after the publish returns; so do we.
      queueMicrotask(() => {
        if (this.listeners.has(listener)) listener({ topic, payload: Buffer.from(payload) });
      });
    }
  }

  async eventPublish(topic: string, body: BytesLike): Promise<void> {
    this.publish(topic, Buffer.from(toBuffer(body)));
  }

  async subscribeEvents(onMessage: (msg: BusMessage) => void): Promise<Subscription> {
    const listener = (msg: BusMessage) => onMessage(msg);
    this.listeners.add(listener);
    return {
      close: async () => {
        this.listeners.delete(listener);
      },
    };
  }

  // ---- name discovery primitives

  async keyScan(cursor: string, count: number): Promise<KeyScanPage> {
    // Keys in code-unit order after the cursor ("0", or "k" + the last key answered): a
    // key that exists for the whole walk is answered once, as SCAN guarantees.
    if (cursor !== "0" && !cursor.startsWith("k")) throw new RangeError(`not a SCAN cursor: '${cursor}'`);
    const after = cursor === "0" ? null : cursor.slice(1);
    const all = this.raw
      .keys()
      .filter((k) => (k.startsWith("fleet:") || k.startsWith("stream:")) && (after === null || k > after))
      .sort(cmp);
    const page = all.slice(0, Math.max(1, Math.floor(count)));
    return { cursor: all.length > page.length ? `k${page[page.length - 1]!}` : "0", keys: page };
  }

  async keyCount(): Promise<number> {
    return this.raw.keys().length;
  }

  async subscribeKeyspace(): Promise<KeyspaceEvents | null> {
    return null;
  }

  async trackKeys(): Promise<Subscription | null> {
    return null;
  }

  // ---- workers

  async workerRegister(automationType: string, workerId: string, hardware: JsonObject): Promise<void> {
    this.raw.set(keys.worker(automationType, workerId, "hardware"), pyJsonBytes(hardware));
    this.raw.sadd(keys.workerTypeIndex(automationType), workerId);
    this.raw.sadd(WORKER_ALL_INDEX, keys.workerAllMember(automationType, workerId));
    this.raw.set(keys.worker(automationType, workerId, "gen"), "0", { nx: true });
    this.raw.set(keys.worker(automationType, workerId, "config"), "{}", { nx: true });
  }

  async workerGetConfig(automationType: string, workerId: string): Promise<{ config: JsonObject; gen: number }> {
    const rawCfg = this.raw.get(keys.worker(automationType, workerId, "config"));
    const gen = this.currentGen(automationType, workerId);
    const config = configFromRaw(rawCfg);
    if (config === null) throw new CorruptDataError(`config of ${automationType}/${workerId} is not a JSON object`);
    if (gen === null) throw new CorruptDataError(`config generation of ${automationType}/${workerId} is not an integer`);
    return { config, gen };
  }

  /** 0 when absent or empty (as Python reads it), null when the stored value is not an integer. */
  private currentGen(automationType: string, workerId: string): number | null {
    return genFromRaw(this.raw.get(keys.worker(automationType, workerId, "gen")));
  }

  /** Checks every write before any is applied, so a failure writes nothing. */
  private applyConfigWrites(writes: ConfigWrite[]): number[] {
    for (const w of writes) {
      const cur = this.currentGen(w.automationType, w.workerId);
      if (w.expectedGen !== undefined && cur !== w.expectedGen) throw new StaleGenerationError(w.expectedGen, cur);
      // INCR would fail on a non-integer gen; fail before writing anything instead.
      if (cur === null) throw new CorruptDataError(`config generation of ${w.automationType}/${w.workerId} is not an integer`);
    }
    return writes.map((w) => {
      this.raw.set(keys.worker(w.automationType, w.workerId, "config"), pyJsonBytes(w.config));
      const genKey = keys.worker(w.automationType, w.workerId, "gen");
      // an empty gen reads as 0, but INCR refuses it: write the 1 INCR would have made
      if (this.raw.get(genKey)?.length === 0) {
        this.raw.set(genKey, "1");
        return 1;
      }
      return this.raw.incrBy(genKey, 1);
    });
  }

  async workerSetConfig(automationType: string, workerId: string, config: JsonObject, opts?: { expectedGen?: number }): Promise<{ config: JsonObject; gen: number }> {
    const [gen] = this.applyConfigWrites([{ automationType, workerId, config, expectedGen: opts?.expectedGen }]);
    return { config, gen: gen! };
  }

  async workerSetConfigMany(writes: ConfigWrite[]): Promise<Array<{ automationType: string; workerId: string; gen: number }>> {
    const gens = this.applyConfigWrites(writes);
    return writes.map((w, i) => ({ automationType: w.automationType, workerId: w.workerId, gen: gens[i]! }));
  }

  async workerSetState(automationType: string, workerId: string, state: string, lastError: string | null, lastSeen: number): Promise<void> {
    this.raw.hset(keys.worker(automationType, workerId, "state"), {
      state,
      last_seen: encodeUnixFloat(lastSeen),
      last_error: lastError ?? "",
    });
  }

  async workerSetStats(automationType: string, workerId: string, stats: JsonObject): Promise<void> {
    this.raw.set(keys.worker(automationType, workerId, "stats"), pyJsonBytes(stats));
  }

  async workerStatsPush(automationType: string, workerId: string, ts: number, frame: JsonObject, opts?: { maxEntries?: number }): Promise<void> {
    const k = keys.worker(automationType, workerId, "stats:history");
    this.raw.zadd(k, ts, pyJsonBytes(frame));
    const max = opts?.maxEntries ?? 240;
    if (max > 0) this.raw.zkeepNewest(k, max);
  }

  async workerStatsHistory(automationType: string, workerId: string, opts?: { since?: number; limit?: number }): Promise<JsonObject[]> {
    const limit = opts?.limit ?? 240;
    const entries = this.raw.zrangeByScore(keys.worker(automationType, workerId, "stats:history"), opts?.since ?? 0, Infinity);
    const out: JsonObject[] = [];
    for (const e of entries.slice(0, Math.max(0, limit))) {
      const parsed = parseJsonBytes(e.member);
      if (parsed.ok && isJsonObject(parsed.value)) out.push(parsed.value);
    }
    return out;
  }

  async workerStatsFrames(automationType: string, workerId: string, opts: { since?: number; limit: number }): Promise<StatsFrame[]> {
    if (opts.limit <= 0) return [];
    const since = opts.since ?? -Infinity;
    const entries = this.raw.zrange(keys.worker(automationType, workerId, "stats:history")).filter((e) => e.score > since);
    return entries.slice(-opts.limit).map((e) => statsFrameFromRaw(e.member, e.score));
  }

  private readWorker(ref: WorkerRef): WorkerRecord {
    const { automationType: t, workerId: id } = ref;
    // One lookup per key: the console reads thousands of workers per page.
    const index = this.raw.peek(keys.workerTypeIndex(t));
    const state = this.raw.peek(keys.worker(t, id, "state"));
    const history = this.raw.peek(keys.worker(t, id, "stats:history"));
    const rec = workerRecordFromRaw(t, id, {
      registered: index?.type === "set" && index.value.has(id),
      hardware: stringOrUnreadable(this.raw.peek(keys.worker(t, id, "hardware"))),
      config: stringOrUnreadable(this.raw.peek(keys.worker(t, id, "config"))),
      gen: stringOrUnreadable(this.raw.peek(keys.worker(t, id, "gen"))),
      state: state?.type === "hash" ? Object.fromEntries(state.value) : {},
      stats: stringOrUnreadable(this.raw.peek(keys.worker(t, id, "stats"))),
      historyLen: history?.type === "zset" ? history.value.size : 0,
    });
    // a state key that is not a hash is unreadable, not absent
    if (state !== undefined && state.type !== "hash") rec.corrupt.push("state");
    return rec;
  }

  async workerGet(automationType: string, workerId: string): Promise<WorkerRecord | null> {
    if (!this.raw.sismember(keys.workerTypeIndex(automationType), workerId)) return null;
    return this.readWorker({ automationType, workerId });
  }

  async workerCount(): Promise<number> {
    return this.raw.type(WORKER_ALL_INDEX) === "set" ? this.raw.smembers(WORKER_ALL_INDEX).length : 0;
  }

  async workerList(automationType?: string): Promise<WorkerRef[]> {
    if (automationType === undefined) {
      return this.raw
        .smembers(WORKER_ALL_INDEX)
        .map(parseWorkerAllMember)
        .filter((r): r is WorkerRef => r !== null)
        .sort((a, b) => cmp(a.automationType, b.automationType) || cmp(a.workerId, b.workerId));
    }
    return this.raw.smembers(keys.workerTypeIndex(automationType)).map((workerId) => ({ automationType, workerId }));
  }

  async workersGet(refs: WorkerRef[]): Promise<WorkerRecord[]> {
    return refs.map((r) => this.readWorker(r));
  }

  async workersIndex(refs: WorkerRef[], opts: { hostname?: boolean } = {}): Promise<WorkerIndexEntry[]> {
    return refs.map((ref) => {
      const { automationType: t, workerId: id } = ref;
      const index = this.raw.peek(keys.workerTypeIndex(t));
      const state = this.raw.peek(keys.worker(t, id, "state"));
      const entry = workerIndexEntryFromRaw(ref, {
        registered: index?.type === "set" && index.value.has(id),
        hardware: opts.hostname ? stringOrUnreadable(this.raw.peek(keys.worker(t, id, "hardware"))) : undefined,
        state: state?.type === "hash" ? Object.fromEntries(state.value) : {},
      });
      // as in readWorker: a state key that is not a hash is unreadable, not absent
      if (state !== undefined && state.type !== "hash") entry.corrupt.push("state");
      return entry;
    });
  }

  // issue 14: ./worker-bulk.ts
  async workersState(refs: WorkerRef[]): Promise<WorkerStateEntry[]> {
    return readWorkersState(this.raw, refs);
  }

  async workersRemoveOffline(refs: WorkerRef[], cutoff: number): Promise<OfflineRemoval[]> {
    return removeOfflineWorkers(this.raw, refs, cutoff);
  }

  /** Unlike Python, also clears a half-registered worker (keys or one index entry left): it is an admin clean-up. */
  async workerRemove(automationType: string, workerId: string): Promise<boolean> {
    const removed =
      this.raw.srem(keys.workerTypeIndex(automationType), workerId) +
      this.raw.srem(WORKER_ALL_INDEX, keys.workerAllMember(automationType, workerId)) +
      this.raw.del(...WORKER_FIELDS.map((f) => keys.worker(automationType, workerId, f)));
    return removed > 0;
  }

  // ---- catalog

  async catalogSet(automationType: string, doc: BytesLike): Promise<void> {
    this.raw.hset(CATALOG_HASH, { [automationType]: doc });
  }

  async catalogGet(automationType: string): Promise<Buffer | null> {
    return this.raw.hget(CATALOG_HASH, automationType);
  }

  async catalogTypes(): Promise<string[]> {
    return this.raw.type(CATALOG_HASH) === "hash" ? [...this.raw.hgetall(CATALOG_HASH).keys()].sort(cmp) : [];
  }

  async catalogAll(): Promise<Map<string, Buffer>> {
    // sorted by type, as the Redis implementation returns them
    return new Map([...this.raw.hgetall(CATALOG_HASH)].sort(([a], [b]) => cmp(a, b)));
  }

  async catalogDelete(automationType: string): Promise<boolean> {
    return this.raw.hdel(CATALOG_HASH, automationType) > 0;
  }

  async catalogReplace(entries: Map<string, BytesLike>): Promise<void> {
    this.raw.del(CATALOG_HASH);
    if (entries.size > 0) this.raw.hset(CATALOG_HASH, new Map(entries));
  }

  // ---- audit

  // ---- worker error history

  async workerErrorsPush(writes: WorkerErrorWrite[], opts: { maxEntries: number; ttlSeconds: number }): Promise<void> {
    for (const w of writes) {
      const key = consoleKeys.workerErrors(w.automationType, w.workerId);
      if (this.raw.type(key) !== "none" && this.raw.type(key) !== "list") continue; // as Redis: that LPUSH fails alone
      this.raw.lpush(key, w.entry);
      this.raw.ltrim(key, 0, Math.max(1, opts.maxEntries) - 1);
      this.raw.expire(key, Math.max(1, Math.round(opts.ttlSeconds * 1000)));
    }
  }

  async workerErrorsRead(refs: WorkerRef[], limit: number): Promise<Buffer[][]> {
    return refs.map((ref) => {
      const key = consoleKeys.workerErrors(ref.automationType, ref.workerId);
      return this.raw.type(key) === "list" ? this.raw.lrange(key, 0, Math.max(1, limit) - 1) : [];
    });
  }

  async workersLastError(refs: WorkerRef[]): Promise<Array<string | null>> {
    return refs.map((ref) => {
      const state = this.raw.peek(keys.worker(ref.automationType, ref.workerId, "state"));
      const v = state?.type === "hash" ? state.value.get("last_error") : undefined;
      return v !== undefined && v.length > 0 ? v.toString("utf8") : null;
    });
  }

  async auditAppend(entry: BytesLike, maxEntries: number): Promise<void> {
    this.raw.lpush(AUDIT_LIST, entry);
    if (maxEntries > 0) this.raw.ltrim(AUDIT_LIST, 0, maxEntries - 1);
  }

  async auditRange(offset: number, limit: number): Promise<{ total: number; items: Buffer[] }> {
    const items = limit > 0 ? this.raw.lrange(AUDIT_LIST, Math.max(0, offset), Math.max(0, offset) + limit - 1) : [];
    return { total: this.raw.llen(AUDIT_LIST), items };
  }

  async auditReplace(old: BytesLike, entry: BytesLike | null, maxEntries: number): Promise<boolean> {
    const needle = toBuffer(old);
    const list = this.raw.lrange(AUDIT_LIST);
    const i = list.findIndex((e) => e.equals(needle));
    if (i >= 0) {
      if (entry === null) list.splice(i, 1);
      else list[i] = Buffer.from(toBuffer(entry));
      this.raw.lreplace(AUDIT_LIST, list);
      return true;
    }
    if (entry !== null) await this.auditAppend(entry, maxEntries);
    return false;
  }

  async auditRefusalSlot(actor: string, limit: number, windowSeconds: number, nowMs = Date.now()): Promise<RefusalSlot> {
    const key = consoleKeys.auditRefusals(actor);
    const windowMs = Math.max(1, Math.round(windowSeconds * 1000));
    const startText = this.raw.hget(key, "start");
    const start = startText === null ? null : Number(startText.toString());
    if (start === null || !Number.isFinite(start) || nowMs >= start + windowMs) {
      const n = Number(this.raw.hget(key, "n")?.toString() ?? "0") || 0;
      const before = start === null || !Number.isFinite(start) ? 0 : Math.max(0, n - limit);
      this.raw.del(key);
      this.raw.hset(key, { start: String(Math.round(nowMs)), n: "1" });
      this.raw.expire(key, REFUSAL_COUNTER_KEEP_MS);
      return { decision: "record", suppressedBefore: before, windowStartMs: start ?? 0 };
    }
    const n = (Number(this.raw.hget(key, "n")?.toString() ?? "0") || 0) + 1;
    this.raw.hset(key, { n: String(n) });
    this.raw.expire(key, REFUSAL_COUNTER_KEEP_MS);
    const decision = n <= limit ? "record" : n === limit + 1 ? "marker" : "suppress";
    return { decision, suppressedBefore: 0, windowStartMs: start };
  }

  // ---- console sessions

  async sessionPut(id: string, user: string, record: BytesLike, ttlSeconds: number, opts: { audit?: AuditWrite } = {}): Promise<void> {
    // the audit entry first: a wrong-typed trail throws before the session exists
    if (opts.audit) await this.auditAppend(opts.audit.entry, opts.audit.maxEntries);
    const ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
    const now = Date.now();
    this.raw.set(consoleKeys.session(id), record, { ttlMs });
    const index = consoleKeys.userSessions(user);
    this.raw.zremRangeByScore(index, Number.NEGATIVE_INFINITY, now);
    this.raw.zadd(index, now + ttlMs, id);
    if (this.raw.pttl(index) < ttlMs) this.raw.expire(index, ttlMs);
  }

  async sessionGet(id: string): Promise<Buffer | null> {
    return this.raw.get(consoleKeys.session(id));
  }

  async sessionDelete(id: string): Promise<boolean> {
    return this.raw.del(consoleKeys.session(id)) > 0;
  }

  async sessionDeleteForUser(user: string): Promise<number> {
    const index = consoleKeys.userSessions(user);
    const ids = this.raw.zrange(index).map((m) => m.member.toString("utf8"));
    const live = this.raw.del(...ids.map((id) => consoleKeys.session(id)));
    this.raw.del(index);
    return live;
  }

  // ---- sign-in throttling (the same steps as signin-reserve-2.lua and signin-settle-2.lua)

  async signInReserve(pairId: string, addressId: string, policy: SignInPolicy, nowMs = Date.now()): Promise<SignInReservation> {
    const pair = consoleKeys.signInPair(pairId);
    const address = consoleKeys.signInAddress(addressId);
    const waiting = (key: string) => {
      const until = Number(this.raw.hget(key, "until")?.toString() ?? "0") || 0;
      return until > nowMs ? until - nowMs : 0;
    };
    const wait = Math.max(waiting(pair), waiting(address));
    if (wait > 0) return { allowed: false, waitMs: Math.round(wait) };
    const count = (key: string, free: number, ttlMs: number, sliding: boolean) => {
      const n = (Number(this.raw.hget(key, "n")?.toString() ?? "0") || 0) + 1;
      this.raw.hset(key, { n: String(n) });
      if (n >= free) {
        const delay = Math.min(policy.baseDelayMs * 2 ** Math.min(n - free, 40), policy.maxDelayMs);
        this.raw.hset(key, { until: String(Math.round(nowMs + delay)) });
      }
      if (sliding || this.raw.pttl(key) < 0) this.raw.expire(key, ttlMs);
    };
    count(pair, policy.pairFree, policy.pairForgetMs, true);
    count(address, policy.addressFree, policy.addressWindowMs, false);
    return { allowed: true };
  }

  async signInSettle(pairId: string, addressId: string, outcome: "success" | "refund", policy: SignInPolicy): Promise<void> {
    const refund = (key: string, free: number) => {
      if (!this.raw.exists(key)) return;
      const n = (Number(this.raw.hget(key, "n")?.toString() ?? "0") || 0) - 1;
      if (n <= 0) this.raw.del(key);
      else {
        this.raw.hset(key, { n: String(n) });
        if (n < free) this.raw.hdel(key, "until");
      }
    };
    const pair = consoleKeys.signInPair(pairId);
    if (outcome === "success") this.raw.del(pair);
    else refund(pair, policy.pairFree);
    refund(consoleKeys.signInAddress(addressId), policy.addressFree);
  }

  // ---- the console's watch (../watch-types: queue history and alerts)

  async queueWatch(queues: QueueWatchRequest[], opts: QueueWatchOptions): Promise<QueueWatch[]> {
    const t = opts.now ?? nowSeconds();
    return queues.map((q) => {
      const lists = {} as Record<Priority, PendingListWatch>;
      for (const priority of ["high", "normal", "low"] as const) {
        const list = this.raw.lrange(queueKeyForPriority(q.name, priority));
        const tail = list.length > 0 ? list[list.length - 1]! : null;
        const scan = list.slice(0, Math.max(0, opts.maxScan));
        let found: PendingListWatch["found"] = null;
        const marks = q.marks?.[priority] ?? [];
        for (let i = 0; i < marks.length && found === null; i++) {
          const position = scan.findIndex((b) => b.equals(marks[i]!));
          if (position >= 0) found = { mark: i, position };
        }
        lists[priority] = {
          length: list.length,
          tail: tail !== null && tail.length <= opts.maxTailBytes ? Buffer.from(tail) : null,
          tailBytes: tail?.length ?? 0,
          found,
        };
      }
      return { depths: this.depths(q.name, t), lists };
    });
  }

  async historyWrite(slots: HistorySlotWrite[], opts: { ttlSeconds: number; latest?: Map<string, Buffer> }): Promise<void> {
    // Checked first, so that a wrong-typed key fails the whole write, as MULTI's caller sees it.
    for (const s of slots) this.raw.get(consoleKeys.history(s.tier, s.series));
    const rings = new Set<string>();
    for (const s of slots) {
      const key = consoleKeys.history(s.tier, s.series);
      const old = this.raw.get(key) ?? Buffer.alloc(0);
      const next = Buffer.alloc(Math.max(old.length, s.offset + s.bytes.length));
      old.copy(next);
      s.bytes.copy(next, s.offset);
      this.raw.set(key, next);
      rings.add(key);
    }
    for (const key of rings) this.raw.expire(key, Math.max(1, Math.round(opts.ttlSeconds * 1000)));
    if (opts.latest) {
      this.raw.del(consoleKeys.historyLatest);
      if (opts.latest.size > 0) this.raw.hset(consoleKeys.historyLatest, opts.latest);
    }
  }

  async historyRead(reads: HistoryRangeRead[]): Promise<Buffer[]> {
    return reads.map((rd) => {
      const ring = this.raw.get(consoleKeys.history(rd.tier, rd.series));
      if (!ring || rd.length <= 0) return Buffer.alloc(0);
      return Buffer.from(ring.subarray(Math.min(rd.offset, ring.length), Math.min(rd.offset + rd.length, ring.length)));
    });
  }

  async historyLatest(): Promise<Map<string, Buffer>> {
    return this.raw.hgetall(consoleKeys.historyLatest);
  }

  async alertRulesGet(): Promise<{ doc: Buffer | null; gen: number }> {
    const doc = this.raw.hget(consoleKeys.alertRules, "doc");
    const genText = this.raw.hget(consoleKeys.alertRules, "gen");
    const gen = genText === null ? 0 : parseIntStrict(genText.toString("utf8"));
    if (gen === null) throw new CorruptDataError(`${consoleKeys.alertRules} has a generation that is not an integer`);
    return { doc, gen };
  }

  async alertRulesSet(doc: BytesLike, expectedGen: number): Promise<{ gen: number }> {
    const { gen } = await this.alertRulesGet();
    if (gen !== expectedGen) throw new StaleGenerationError(expectedGen, gen);
    this.raw.hset(consoleKeys.alertRules, { doc, gen: String(gen + 1) });
    return { gen: gen + 1 };
  }

  async alertStateRead(historyLimit: number): Promise<AlertStateRead> {
    return {
      firing: this.raw.hgetall(consoleKeys.alertFiring),
      outbox: this.raw.hgetall(consoleKeys.alertOutbox),
      history: historyLimit > 0 ? this.raw.lrange(consoleKeys.alertHistory, 0, historyLimit - 1) : [],
      historyTotal: this.raw.llen(consoleKeys.alertHistory),
    };
  }

  async alertStateWrite(change: AlertStateChange): Promise<void> {
    // Types checked before anything is written: all or nothing, as MULTI's commands are.
    this.raw.hgetall(consoleKeys.alertFiring);
    this.raw.hgetall(consoleKeys.alertOutbox);
    this.raw.llen(consoleKeys.alertHistory);
    if (change.firingSet?.size) this.raw.hset(consoleKeys.alertFiring, change.firingSet);
    if (change.firingDel?.length) this.raw.hdel(consoleKeys.alertFiring, ...change.firingDel);
    if (change.outboxSet?.size) this.raw.hset(consoleKeys.alertOutbox, change.outboxSet);
    if (change.outboxDel?.length) this.raw.hdel(consoleKeys.alertOutbox, ...change.outboxDel);
    if (change.history?.length) {
      this.raw.lpush(consoleKeys.alertHistory, ...change.history);
      this.raw.ltrim(consoleKeys.alertHistory, 0, Math.max(1, change.historyMax) - 1);
    }
  }

  // ---- search inside a queue (./search.ts)

  async queueScan(name: string, part: QueueScanPart, start: number, count: number): Promise<QueueScanChunk> {
    return memoryQueueScan(this.raw, name, part, start, count);
  }

  async bulkJobCreate(id: string, doc: BytesLike, nowMs: number = Date.now()): Promise<void> {
    memoryBulkJobCreate(this.raw, id, toBuffer(doc), nowMs);
  }

  async bulkJobGet(ids: string[]): Promise<Array<BulkJobRecord | null>> {
    return memoryBulkJobGet(this.raw, ids);
  }

  async bulkJobIds(limit: number): Promise<string[]> {
    return memoryBulkJobIds(this.raw, limit);
  }

  async bulkJobSet(id: string, fields: Record<string, string>, opts: { ifState?: string; keepSeconds?: number } = {}): Promise<boolean> {
    return memoryBulkJobSet(this.raw, id, fields, opts);
  }

  async queueTakeMatches(name: string, chunk: TakeMatchesChunk): Promise<{ ok: boolean; taken: number; missing: number; cursor: number }> {
    return memoryQueueTakeMatches(this.raw, name, chunk);
  }
}

export function createMemoryBackend(url = "memory://"): MemoryBackend {
  return new MemoryBackend(url);
}

/** `read()`, or `fallback` when it meets a key of another type (MemoryStore's WRONGTYPE). */
function wrongTypeAs<T, F>(fallback: F, read: () => T): T | F {
  try {
    return read();
  } catch (err) {
    if (err instanceof CorruptDataError && err.message.startsWith("WRONGTYPE")) return fallback;
    throw err;
  }
}

/** Bytes that are never UTF-8, so they never parse: what a key of the wrong type reads as. */
const UNREADABLE = Buffer.from([0xff]);

/** A key of the wrong type reads as an unparseable value (corrupt), never as an error. */
function stringOrUnreadable(v: Value | undefined): Buffer | null {
  if (v === undefined) return null;
  return v.type === "string" ? v.value : UNREADABLE;
}

function ttlMs(ttlSeconds: number | null | undefined): number | null {
  return ttlSeconds != null && ttlSeconds > 0 ? ttlSeconds * 1000 : null;
}

function normalizePriority(p: number | Priority | undefined): Priority {
  if (p === undefined) return "normal";
  return typeof p === "number" ? priorityFromInt(p) : p;
}

/** Plain code-unit order, independent of the locale, so both backends sort names alike. */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
