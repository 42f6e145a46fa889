// The Fleet Backend contract: every operation of the upstream Python `Backend` protocol
// (../shared/spec/backend.py), in camelCase, plus what a console needs beyond it.
// Implementations: `@fleet/backend/redis` (ioredis) and `@fleet/backend/memory`.
//
// Bytes are Buffers; inputs accept a string too (encoded as UTF-8). Times are unix
// seconds (floats). Nothing here throws for corrupt data on a read: a value that does
// not parse comes back as null with its field name listed in `corrupt`.

import type { Priority } from "./keys";
import type { WatchBackend } from "./watch-types";

export type Bytes = Buffer;
export type BytesLike = Buffer | string;
export type JsonObject = Record<string, unknown>;

/** Python's RawItem. */
export interface RawItem {
  id: string;
  payload: Buffer;
  tags: JsonObject;
  expiresAt: number | null;
  inUseUntil: number | null;
}

/** Every item of a pool as stored, expired and undecodable ones included (for the console). */
export interface PoolItemRecord {
  id: string;
  /** The stored hash value as is. */
  raw: Buffer;
  /** Decoded payload, null when the item does not decode. */
  payload: Buffer | null;
  tags: JsonObject | null;
  expiresAt: number | null;
  expired: boolean;
  /** Unix seconds when the current claim lease ends; null when unclaimed. */
  inUseUntil: number | null;
  /** True when the stored value is not a `{"p", "t", "x"}` document. */
  corrupt: boolean;
}

/** One page of `poolItemsScan`. */
export interface PoolItemsPage {
  items: PoolItemRecord[];
  /** Where the next page starts; "0" when this was the last. */
  cursor: string;
}

export interface PoolSummary {
  name: string;
  size: number;
  live: number;
  expired: number;
  claimed: number;
  /** Live (unexpired, decodable) items with no claim: what a claim can get now. */
  free: number;
  /**
   * Set when the pool had more than `exactUpTo` items: live, expired, claimed and free are
   * then estimates scaled from a random sample of `sampled` items (HRANDFIELD), so a big
   * pool costs the same as a small one; size is always exact (HLEN).
   */
  estimated?: { sampled: number };
  /** `["items"]` when the pool's key holds another Redis type (then read as empty); absent otherwise. */
  corrupt?: string[];
}

/** A reserved body and its lease (see `Backend.queueReserveLease`). */
export interface ReservedTask {
  body: Buffer;
  /** The reservation's deadline as text; null when the body was left unregistered. */
  lease: string | null;
}

export interface LeaseOption {
  /** Act only if the reservation is still the one this lease names. */
  lease?: string | null;
}

export interface QueueDepths {
  name: string;
  pending: { high: number; normal: number; low: number; total: number };
  /** Reservations in flight. */
  processing: number;
  /** Reservations past their visibility deadline. */
  overdue: number;
  /** Nacked retries waiting in `:scheduled`. */
  scheduled: number;
  /** Scheduled retries whose ready time has passed. */
  due: number;
  dead: number;
  /**
   * The parts whose key holds another Redis type, named by key suffix (`high`, `normal` for
   * the base list, `low`, `processing`, `scheduled`, `dead`; `processing:body` in a
   * QueueDetail): each reads as empty. Absent when there are none.
   */
  corrupt?: string[];
}

export interface QueueDetail {
  depths: QueueDepths;
  /** High, then normal, then low, each in list order; at most `limit` in all. */
  pending: Array<{ priority: Priority; body: Buffer }>;
  /** Oldest deadline first; body null when the `:processing:body` entry is missing. */
  processing: Array<{ id: string; deadline: number; body: Buffer | null }>;
  /** Soonest first. */
  scheduled: Array<{ readyAt: number; body: Buffer }>;
}

export interface SweepResult {
  /** Bodies moved back onto the normal pending list. */
  requeued: number;
  /** Expired `:processing` ids whose body was missing: dropped from `:processing`, reported here. */
  orphaned: string[];
}

/** Dead letters are addressed by content: `ref` is the hex SHA-1 of the body bytes. */
export type DeadLetterSelector = { refs: string[] } | { all: true };

export interface RequeueOptions {
  /** Requeue the bodies as they are, `attempts` included (default: attempts back to 0). */
  keepAttempts?: boolean;
}

/** A dead letter selected by ref, as `dlqLocate` found it: the body and its first index. */
export interface DeadLetterMatch {
  ref: string;
  body: Buffer;
  /** Index of the first occurrence when it was read (the list may have moved since). */
  index: number;
}

export interface StreamSummary {
  name: string;
  length: number;
  /** Score of the oldest and newest member (push time), null when empty. */
  oldest: number | null;
  newest: number | null;
  /** `["entries"]` when the stream's key holds another Redis type (then read as empty); absent otherwise. */
  corrupt?: string[];
}

export interface StreamEntry {
  score: number;
  envelope: Buffer;
}

export interface WorkerRef {
  automationType: string;
  workerId: string;
}

/**
 * One worker as stored. A key that does not exist is null (not corrupt); a value that
 * exists but does not parse is null and its field is named in `corrupt` (`hardware`,
 * `config`, `config_gen`, `state`, `last_seen`, `last_error`, `stats`).
 */
export interface WorkerRecord extends WorkerRef {
  /** Listed in `wkrs:<type>`. */
  registered: boolean;
  hardware: JsonObject | null;
  config: JsonObject | null;
  configGen: number | null;
  /** The raw `state` field: IDLE, RUNNING or ERROR when valid. */
  state: "IDLE" | "RUNNING" | "ERROR" | null;
  lastSeen: number | null;
  /** "" in Redis is null here, as in Python. */
  lastError: string | null;
  stats: JsonObject | null;
  /** Number of `stats:history` frames. */
  historyLen: number;
  corrupt: string[];
}

/** A worker as a list shows it: its WorkerRecord without `historyLen`, which a list never shows (workersRows). */
export type WorkerRow = Omit<WorkerRecord, "historyLen">;

/**
 * What filtering, counting and paging a worker list needs, without the JSON documents:
 * `workersIndex` reads it for a whole fleet for a fraction of what `workersGet` costs.
 * Each field is null, and named in `corrupt`, exactly when the WorkerRecord's would be.
 */
export interface WorkerIndexEntry extends WorkerRef {
  /** Listed in `wkrs:<type>`. */
  registered: boolean;
  state: WorkerRecord["state"];
  lastSeen: number | null;
  /** `hardware.hostname` when hardware is a JSON object and that member a string; always null unless asked for. */
  hostname: string | null;
  /**
   * Only with `lastError: true` (else absent): the state hash's last_error, null when absent
   * or "", its bytes decoded as workersLastError decodes them (lossily when not UTF-8).
   */
  lastError?: string | null;
  /** As WorkerRecord's, limited to the fields read: `state`, `last_seen`, and `hardware` when the hostname was asked for. */
  corrupt: string[];
}

/** One entry for a worker's error history (`Backend.workerErrorsPush`). */
export interface WorkerErrorWrite extends WorkerRef {
  entry: BytesLike;
}

export interface StatsFrame {
  ts: number;
  /** Null when the member is not a JSON object (then `raw` says what is there). */
  frame: JsonObject | null;
  raw: Buffer;
}

export interface ConfigWrite extends WorkerRef {
  config: JsonObject;
  /** When set, the write happens only if the current generation equals it. */
  expectedGen?: number;
}

export interface KvNamespaceSummary {
  ns: string;
  keys: number;
}

export interface KvKeySummary {
  key: string;
  ttlMs: number | null;
  bytes: number;
}

export interface LockSummary {
  name: string;
  /** Null when the lock has no TTL (should not happen: Fleet always sets one). */
  ttlMs: number | null;
}

export interface CounterSummary {
  name: string;
  /** Null when the stored value is not an integer (then `raw` holds it). */
  value: number | null;
  raw: Buffer;
}

export interface HealthInfo {
  version: string;
  latencyMs: number;
  /** Null for the in-memory backend, which has no persistence. */
  aofEnabled: boolean | null;
  usedMemoryBytes: number | null;
}

export interface BusMessage {
  /** Channel without the `event:` prefix. */
  topic: string;
  payload: Buffer;
}

export interface Subscription {
  close(): Promise<void>;
}

/** One step of an incremental walk over the key space. */
export interface KeyScanPage {
  /** "0" when the walk is complete. */
  cursor: string;
  keys: string[];
}

export interface KeyspaceEvents {
  subscription: Subscription;
  /** `notify-keyspace-events` as Redis reported it (e.g. `KA`, `Kg$lshzx`). */
  flags: string;
}

/** One page of a kv namespace read with a cursor. */
export interface KvKeysPage {
  keys: KvKeySummary[];
  /** Where the next page starts; "0" when this was the last one. Opaque. */
  cursor: string;
}

/**
 * The whole contract, one interface per domain (below, and ./watch-types), each implemented by
 * one module per implementation: src/redis/<domain>.ts and src/memory/<domain>.ts.
 */
export interface Backend
  extends KvBackend,
    PoolsBackend,
    LocksBackend,
    CountersBackend,
    QueuesBackend,
    DeadLettersBackend,
    StreamsBackend,
    EventsBackend,
    DiscoveryBackend,
    WorkersBackend,
    CatalogBackend,
    WorkerErrorsBackend,
    AuditBackend,
    SessionsBackend,
    WatchBackend,
    SearchBackend,
    BulkJobsBackend,
    WorkerBulkBackend {
  readonly kind: "redis" | "memory";
  /** The URL it was made from, password masked. */
  readonly url: string;
  close(): Promise<void>;
  health(): Promise<HealthInfo>;
}

/** Key-value entries (fleet:kv:<ns>:<key>). */
export interface KvBackend {
  kvSet(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<void>;
  kvSetNx(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<boolean>;
  kvGet(ns: string, key: string): Promise<Buffer | null>;
  kvDel(ns: string, key: string): Promise<boolean>;
  kvGetEntry(ns: string, key: string): Promise<{ value: Buffer; ttlMs: number | null } | null>;
  /** Walks the whole key space: for scripts and tests; the console uses src/discovery. */
  kvNamespaces(): Promise<KvNamespaceSummary[]>;
  /** Walks the whole key space: for scripts and tests; the console pages with kvKeysPage. */
  kvKeys(ns: string): Promise<KvKeySummary[]>;
  /** TTL and size of the given keys of a namespace, in the order given; keys that do not exist are left out. */
  kvKeySummaries(ns: string, keys: string[]): Promise<KvKeySummary[]>;
  /**
   * About `limit` keys of a namespace from `cursor` ("0" to start), sorted within the page,
   * never reading the whole namespace: on Redis a few SCAN steps with a bounded budget (a
   * sparse namespace may answer fewer keys, or none, with a cursor to go on). `budget`:
   * how many slots of the key space one call may look at (default 200,000); `density`:
   * the share of all keys the namespace is thought to hold, to size the first step.
   */
  kvKeysPage(ns: string, cursor: string, limit: number, opts?: { budget?: number; density?: number }): Promise<KvKeysPage>;
}

/** Pools (fleet:pool:<name>, fleet:pool:<name>:claim:<id>). */
export interface PoolsBackend {
  poolPut(name: string, itemId: string, payload: BytesLike, tags: JsonObject, ttlSeconds?: number | null): Promise<void>;
  /** Live (unexpired, decodable) items with their claim state, as Python's pool_list. */
  poolList(name: string): Promise<RawItem[]>;
  poolRemove(name: string, itemId: string): Promise<boolean>;
  poolRelease(name: string, itemId: string): Promise<boolean>;
  poolClaimAny(name: string, where: JsonObject, holdSeconds: number): Promise<RawItem | null>;
  poolSize(name: string): Promise<number>;
  /** Walks the whole key space: for scripts and tests; the console uses src/discovery. */
  poolNames(): Promise<string[]>;
  /**
   * Counts per pool. Pools of up to `opts.exactUpTo` items (default POOL_EXACT_UP_TO) are read
   * whole; bigger ones from a random sample of POOL_SAMPLE items (see PoolSummary.estimated).
   */
  poolSummaries(names: string[], opts?: { exactUpTo?: number }): Promise<PoolSummary[]>;
  /** Every item, read whole (HGETALL + a PTTL each): for scripts and tests; the console reads a page (poolItemsScan, poolItemIds + poolItemsByIds) or one item. */
  poolItems(name: string): Promise<PoolItemRecord[]>;
  /**
   * The pool's item ids, sorted, when it has at most `max` items (HLEN, then HKEYS, in one
   * script); null when it has more (nothing else read). For paging a small pool by offset.
   */
  poolItemIds(name: string, max: number): Promise<string[] | null>;
  /** The given items with their claims (HMGET + a PTTL each, one round trip), in the order given; ids not in the pool are left out. */
  poolItemsByIds(name: string, ids: string[]): Promise<PoolItemRecord[]>;
  /**
   * One page of a pool of any size: about `limit` items from `cursor` ("0" to start), sorted
   * by id within the page, with the cursor to go on ("0" at the end). Redis: HSCAN steps of
   * O(limit) (an item written while paging may be missed or come twice, as SCAN promises);
   * memory: by id. A cursor that is not one answered before throws RangeError.
   */
  poolItemsScan(name: string, cursor: string, limit: number): Promise<PoolItemsPage>;
  /**
   * Removes the pool hash and every claim key of its items. Redis: in one step the hash is
   * renamed to a console key (the pool is gone for every reader and writer at once; an item
   * put afterwards starts a new pool, which is kept), then the claim keys are removed in
   * chunks; a deletion a process left unfinished is finished by the next poolDelete.
   */
  poolDelete(name: string): Promise<{ deleted: boolean; items: number }>;
}

/** Locks (fleet:lock:<name>). */
export interface LocksBackend {
  lockAcquire(name: string, holdSeconds: number, waitSeconds: number): Promise<string | null>;
  lockRelease(name: string, token: string): Promise<boolean>;
  /** Renews a held lock to `holdSeconds` from now; false when the token no longer holds it. */
  lockExtend(name: string, token: string, holdSeconds: number): Promise<boolean>;
  /** Walks the whole key space: for scripts and tests; the console uses lockSummaries. */
  lockList(): Promise<LockSummary[]>;
  /** TTL of the named locks, in the order given; locks not held are left out. */
  lockSummaries(names: string[]): Promise<LockSummary[]>;
  lockForceRelease(name: string): Promise<boolean>;
}

/** Counters (fleet:counter:<name>). */
export interface CountersBackend {
  counterIncr(name: string, by: number): Promise<number>;
  counterGet(name: string): Promise<number>;
  counterSet(name: string, value: number): Promise<void>;
  counterDel(name: string): Promise<boolean>;
  /** Walks the whole key space: for scripts and tests; the console uses counterSummaries. */
  counterList(): Promise<CounterSummary[]>;
  /** Values of the named counters, in the order given; counters that do not exist are left out. */
  counterSummaries(names: string[]): Promise<CounterSummary[]>;
}

/** Queues (fleet:queue:<name>[:high|:low|:processing|:processing:body|:scheduled]): push, reserve, end, sweep, read. */
export interface QueuesBackend {
  queuePush(name: string, body: BytesLike, opts?: { priority?: number | Priority }): Promise<void>;
  /** All bodies pushed in one MULTI: all or none. */
  queuePushMany(name: string, items: Array<{ body: BytesLike; priority?: Priority }>): Promise<void>;
  queueSize(name: string): Promise<number>;
  queuePeek(name: string, n: number): Promise<Buffer[]>;
  /**
   * One atomic step: move due `:scheduled` bodies back, pop high then normal then low,
   * register the body's `id` in `:processing` with its deadline. Waits up to
   * `timeoutSeconds` for a body. A body with no usable id is returned unregistered.
   */
  queueReserve(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<Buffer | null>;
  /**
   * `queueReserve`, also answering the reservation's lease: its deadline as text, which
   * `queueExtend`, `queueAck`, `queueNack` and `queueFail` take to act only on this very
   * reservation (null when the body had no usable id and was left unregistered).
   */
  queueReserveLease(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<ReservedTask | null>;
  /**
   * Pushes a running task's visibility deadline to now + `visibilitySeconds` (never earlier),
   * if the reservation is still the one `lease` names. Answers the new lease, or null when it
   * was lost (swept, acked, or reserved again by another holder): the caller must then leave
   * the task alone.
   */
  queueExtend(name: string, taskId: string, lease: string, visibilitySeconds: number): Promise<string | null>;
  /**
   * Waits up to `timeoutSeconds` for a task to be pushed to any pending list of the queue
   * (true at once when one holds a task). Reserves nothing: an idle reserver waits here, then
   * reserves. The Redis implementation blocks one connection per list per queue and process,
   * shared by every waiter, and sends nothing while nobody waits. Due `:scheduled` retries do
   * not wake it: the timeout does.
   */
  queueWait(name: string, timeoutSeconds: number): Promise<boolean>;
  /** Ends a reservation. With a `lease`, only that one: false when it was lost. */
  queueAck(name: string, taskId: string, opts?: LeaseOption): Promise<boolean>;
  /**
   * Ends a reservation and requeues (or schedules) the body. Without a lease it always
   * requeues, as Python does; with one, a lost lease answers false and changes nothing.
   */
  queueNack(name: string, taskId: string, body: BytesLike, opts: { delaySeconds: number } & LeaseOption): Promise<boolean>;
  /**
   * Ends a reservation and dead-letters the body, atomically. With a lease that was lost it
   * changes nothing and answers false.
   */
  queueFail(name: string, taskId: string, body: BytesLike, opts?: LeaseOption): Promise<boolean>;
  queueSweepExpired(name: string, now?: number): Promise<SweepResult>;
  /** Walks the whole key space (housekeeping, tests); the console uses src/discovery. */
  queueNames(): Promise<string[]>;
  /** Whether each named queue has any key at all (a stray `:processing:body` counts). */
  queuesExist(names: string[]): Promise<boolean[]>;
  queueDepths(names: string[], now?: number): Promise<QueueDepths[]>;
  queueDetail(name: string, limit: number, now?: number): Promise<QueueDetail>;
}

/** A queue's dead letters (fleet:queue:<name>:dead). */
export interface DeadLettersBackend {
  queueDead(name: string, body: BytesLike): Promise<void>;
  dlqPeek(name: string, n: number): Promise<Buffer[]>;
  dlqPop(name: string, n: number): Promise<Buffer[]>;
  dlqLength(name: string): Promise<number>;
  dlqClear(name: string): Promise<number>;
  dlqRange(name: string, offset: number, limit: number): Promise<{ total: number; items: Buffer[] }>;
  /**
   * Moves the selected dead letters onto the normal pending list. By ref: every occurrence
   * of each body, refs in the order of their first occurrence, each body's move atomic
   * (`dlqLocate` + `dlqTake`). `all`: the whole list as it stood when the call began, in
   * order, in atomic chunks (every body is in exactly one of the two lists at every instant).
   * A requeued task gets its attempts back: an `attempts` member is set to 0 (every other
   * byte kept, `last_error` too, see `withAttemptsReset`), so it is not dead-lettered again
   * after one failure; `keepAttempts` moves the bodies as they are.
   */
  dlqRequeue(name: string, which: DeadLetterSelector, opts?: RequeueOptions): Promise<{ requeued: number; missing: string[] }>;
  dlqDelete(name: string, which: DeadLetterSelector): Promise<{ deleted: number; missing: string[] }>;
  /**
   * First step of a by-ref action: finds the body of each ref by reading the list in chunks
   * (hashing outside Redis); stops as soon as every ref is found. `missing` keeps the order
   * of `refs`, each ref once.
   */
  dlqLocate(name: string, refs: string[]): Promise<{ found: DeadLetterMatch[]; missing: string[] }>;
  /**
   * Second step: removes every occurrence of each found body (compared byte for byte, so a
   * body changed meanwhile is never removed in its place) and, for `requeue`, pushes as many
   * copies onto the normal list in the same atomic step. A body no longer there is `missing`.
   */
  dlqTake(name: string, found: DeadLetterMatch[], action: "requeue" | "delete", opts?: RequeueOptions): Promise<{ count: number; missing: string[] }>;
}

/** Streams (stream:<name>). */
export interface StreamsBackend {
  streamPush(name: string, envelope: BytesLike, opts: { score: number; maxLen: number; ttlSeconds: number }): Promise<void>;
  streamPop(name: string, n: number): Promise<Buffer[]>;
  streamPeek(name: string, n: number): Promise<Buffer[]>;
  streamLength(name: string): Promise<number>;
  streamTrim(name: string, opts: { maxLen: number; ttlSeconds: number }): Promise<void>;
  /** Walks the whole key space: for scripts and tests; the console uses src/discovery. */
  streamNames(): Promise<string[]>;
  streamSummaries(names: string[]): Promise<StreamSummary[]>;
  /** Never pops. `newest` returns newest first. */
  streamRange(name: string, limit: number, order: "newest" | "oldest"): Promise<StreamEntry[]>;
}

/** The event bus (event:<topic>). */
export interface EventsBackend {
  eventPublish(topic: string, body: BytesLike): Promise<void>;
  /** One pattern subscription to `event:*`. Call once per process and fan out yourself. */
  subscribeEvents(onMessage: (msg: BusMessage) => void): Promise<Subscription>;
}

/** Name discovery primitives (src/discovery): each one bounded step, never a whole walk. */
export interface DiscoveryBackend {
  /**
   * One SCAN step over the keys that name queues, pools, streams, locks, counters and kv
   * namespaces (`fleet:*`, `stream:*`, filtered by Redis); cursor "0" starts a walk and
   * comes back "0" when it is complete. `count` is SCAN's COUNT hint.
   */
  keyScan(cursor: string, count: number): Promise<KeyScanPage>;
  /** Number of keys in the database (DBSIZE), to pace the walk. */
  keyCount(): Promise<number>;
  /**
   * Keyspace notifications of Fleet's keys (`__keyspace@<db>__:fleet:*`, `:stream:*`),
   * only when Redis already sends them (`K` in notify-keyspace-events): this never turns
   * them on. Null when they are off or cannot be read.
   */
  subscribeKeyspace(onEvent: (key: string, event: string) => void): Promise<KeyspaceEvents | null>;
  /**
   * Redis client-side caching in broadcast mode (`CLIENT TRACKING ON BCAST PREFIX ...`,
   * Redis 6+), on a connection of its own: Redis names every key written or removed under
   * the prefixes (`onKeys`; null when everything may have changed: a FLUSHDB). A setting of
   * that one connection, nothing of the server's configuration. `onLost` when the
   * connection drops (keys changed meanwhile were not reported). Null where not available.
   */
  trackKeys(prefixes: readonly string[], onKeys: (keys: string[] | null) => void, onLost: () => void): Promise<Subscription | null>;
}

/** Workers (wkr:<type>:<id>:<field>, wkrs:<type>, wkrs:all). */
export interface WorkersBackend {
  workerRegister(automationType: string, workerId: string, hardware: JsonObject): Promise<void>;
  workerGetConfig(automationType: string, workerId: string): Promise<{ config: JsonObject; gen: number }>;
  /** Writes config and increments gen in one step. Throws StaleGenerationError (writing nothing) on a stale expectedGen. */
  workerSetConfig(automationType: string, workerId: string, config: JsonObject, opts?: { expectedGen?: number }): Promise<{ config: JsonObject; gen: number }>;
  /** All-or-nothing: every expectedGen is checked before anything is written. */
  workerSetConfigMany(writes: ConfigWrite[]): Promise<Array<{ automationType: string; workerId: string; gen: number }>>;
  workerSetState(automationType: string, workerId: string, state: string, lastError: string | null, lastSeen: number): Promise<void>;
  workerSetStats(automationType: string, workerId: string, stats: JsonObject): Promise<void>;
  workerStatsPush(automationType: string, workerId: string, ts: number, frame: JsonObject, opts?: { maxEntries?: number }): Promise<void>;
  /** Python's worker_stats_history: the oldest `limit` frames with ts >= since, parsed, corrupt ones skipped. */
  workerStatsHistory(automationType: string, workerId: string, opts?: { since?: number; limit?: number }): Promise<JsonObject[]>;
  /** The newest `limit` frames with ts > since, oldest first, corrupt ones included. */
  workerStatsFrames(automationType: string, workerId: string, opts: { since?: number; limit: number }): Promise<StatsFrame[]>;
  /** Python's worker_get shape, or null when the worker is not in `wkrs:<type>`. */
  workerGet(automationType: string, workerId: string): Promise<WorkerRecord | null>;
  workerList(automationType?: string): Promise<WorkerRef[]>;
  /** How many entries `wkrs:all` has (SCARD): whether the worker list changed, without reading it. */
  workerCount(): Promise<number>;
  /** Reads many workers in a bounded number of pipelined round trips, in the order given. */
  workersGet(refs: WorkerRef[]): Promise<WorkerRecord[]>;
  /**
   * workersGet without the stats history's length: what a worker list shows. Each row is
   * the WorkerRecord workersGet would read, `historyLen` aside; the history key is not
   * touched (a key less per worker, and one command less in the batched read).
   */
  workersRows(refs: WorkerRef[]): Promise<WorkerRow[]>;
  /**
   * The light read behind worker lists: membership, state and last_seen (and, with
   * `hostname: true`, the hostname of the hardware payload) of many workers, in a bounded
   * number of round trips, in the order given. Reads neither config, gen, stats nor history;
   * with `lastError: true` also the last_error text (in the same read: the watch's error
   * history needs status and error of every worker).
   */
  workersIndex(refs: WorkerRef[], opts?: { hostname?: boolean; lastError?: boolean }): Promise<WorkerIndexEntry[]>;
  /** Removes every key of the worker (stats history too) and both index entries. */
  workerRemove(automationType: string, workerId: string): Promise<boolean>;
}

/** The catalog of automation types (fleet:catalog). */
export interface CatalogBackend {
  catalogSet(automationType: string, doc: BytesLike): Promise<void>;
  catalogGet(automationType: string): Promise<Buffer | null>;
  catalogAll(): Promise<Map<string, Buffer>>;
  /** The automation types the catalog declares (HKEYS), sorted: names without their documents. */
  catalogTypes(): Promise<string[]>;
  catalogDelete(automationType: string): Promise<boolean>;
  /** Clears `fleet:catalog` and writes these entries, in one step (a master's start). */
  catalogReplace(entries: Map<string, BytesLike>): Promise<void>;
}

/** The console's worker error history (fleet:console:worker-errors:<type>|<id>, newest first, capped). */
export interface WorkerErrorsBackend {
  /**
   * Prepends each entry to its worker's history, trims it to the newest `maxEntries` and
   * renews its TTL: one MULTI for every write.
   */
  workerErrorsPush(writes: WorkerErrorWrite[], opts: { maxEntries: number; ttlSeconds: number }): Promise<void>;
  /**
   * The newest `limit` entries of each worker's history (newest first), in one round trip per
   * 1,000 workers; a key of another type reads as empty.
   */
  workerErrorsRead(refs: WorkerRef[], limit: number): Promise<Buffer[][]>;
  /** `last_error` of each worker's state hash: null when empty, absent or unreadable. Pipelined, 1,000 per round trip. */
  workersLastError(refs: WorkerRef[]): Promise<Array<string | null>>;
}

/** The console's audit trail (fleet:console:audit, newest first, capped). */
export interface AuditBackend {
  auditAppend(entry: BytesLike, maxEntries: number): Promise<void>;
  auditRange(offset: number, limit: number): Promise<{ total: number; items: Buffer[] }>;
  /**
   * Replaces the newest entry equal to `old` (byte for byte) by `entry`, in place; with
   * `entry` null, removes it. When `old` is gone (trimmed away) a non-null `entry` is
   * appended instead. True when `old` was found.
   */
  auditReplace(old: BytesLike, entry: BytesLike | null, maxEntries: number): Promise<boolean>;
  /**
   * Counts one refusal of `actor` against a limit per window
   * (fleet:console:audit:refusals:<actor>) and says whether to record it; see RefusalSlot.
   */
  auditRefusalSlot(actor: string, limit: number, windowSeconds: number, nowMs?: number): Promise<RefusalSlot>;
  /**
   * Keeps every per-worker change of one fleet-wide config write, whose audit entry (`id`, 16
   * hex digits) holds only the first 100, for `ttlSeconds` (fleet:console:audit:changes:<id>,
   * a list in the given order, replacing any earlier one). Written in steps of at most
   * AUDIT_CHANGES_STEP items and 1 MiB, so no single command is long; readers learn of the
   * list only from the final entry, written after this returns.
   */
  auditChangesPut(id: string, items: BytesLike[], ttlSeconds: number): Promise<void>;
  /** A page of those changes and how many there are; null when none are kept (never written, or expired). */
  auditChangesRange(id: string, offset: number, limit: number): Promise<{ total: number; items: Buffer[] } | null>;
}

/** Items per command of auditChangesPut (fewer when they pass 1 MiB). */
export const AUDIT_CHANGES_STEP = 500;
const AUDIT_CHANGES_STEP_BYTES = 1024 * 1024;

/** `items` cut into the steps auditChangesPut writes: at most AUDIT_CHANGES_STEP items and (past the first item) 1 MiB each. */
export function auditChangesSteps(items: Buffer[]): Buffer[][] {
  const steps: Buffer[][] = [];
  let step: Buffer[] = [];
  let bytes = 0;
  for (const item of items) {
    if (step.length > 0 && (step.length >= AUDIT_CHANGES_STEP || bytes + item.length > AUDIT_CHANGES_STEP_BYTES)) {
      steps.push(step);
      step = [];
      bytes = 0;
    }
    step.push(item);
    bytes += item.length;
  }
  if (step.length > 0) steps.push(step);
  return steps;
}

/**
 * The console's sessions (fleet:console:session:<id>, fleet:console:user-sessions:<user>) and
 * sign-in throttling (fleet:console:signin:pair:<id>, fleet:console:signin:addr:<id>).
 */
export interface SessionsBackend {
  /**
   * Stores a session record for `ttlSeconds` and indexes it under its user. With `audit`,
   * the audit entry is appended first in the same atomic step: when it cannot be written
   * the session is not stored either.
   */
  sessionPut(id: string, user: string, record: BytesLike, ttlSeconds: number, opts?: { audit?: AuditWrite }): Promise<void>;
  /** The record of a live session, null once it ended or expired. One GET. */
  sessionGet(id: string): Promise<Buffer | null>;
  sessionDelete(id: string): Promise<boolean>;
  /** Ends every session of a user; answers how many were live. */
  sessionDeleteForUser(user: string): Promise<number>;

  // sign-in throttling
  /**
   * Reserves one sign-in attempt before the password is checked, atomically over both
   * budgets: refused (with the wait) while either is backing off, else counted as a
   * failure in both until `signInSettle` says otherwise.
   */
  signInReserve(pairId: string, addressId: string, policy: SignInPolicy, nowMs?: number): Promise<SignInReservation>;
  /** `success`: the pair's record is cleared and the address's count refunded; `refund`: both refunded (the password was never checked). */
  signInSettle(pairId: string, addressId: string, outcome: "success" | "refund", policy: SignInPolicy): Promise<void>;
}

export interface AuditWrite {
  entry: BytesLike;
  maxEntries: number;
}

/**
 * `record`: write the refusal (and first, when `suppressedBefore` > 0, a summary of the
 * refusals of the previous window that were not written); `marker`: the limit was just
 * passed: write one entry saying so instead; `suppress`: write nothing.
 */
export interface RefusalSlot {
  decision: "record" | "marker" | "suppress";
  /** Refusals of the previous window that were counted but not written. */
  suppressedBefore: number;
  /** Start (unix ms) of the window `suppressedBefore` belongs to, or of the current one for a marker. */
  windowStartMs: number;
}

/** Budgets of failed sign-ins; counts are of attempts reserved and not refunded. */
export interface SignInPolicy {
  /** Failures of one name from one address before each attempt must wait. */
  pairFree: number;
  /** The pair's record is forgotten this long after its last counted attempt. */
  pairForgetMs: number;
  /** Failures from one address, across names, before each attempt must wait. */
  addressFree: number;
  /** The address's count lives this long from its first failure (a fixed window). */
  addressWindowMs: number;
  /** The first wait; it doubles with each further failure ... */
  baseDelayMs: number;
  /** ... up to this. */
  maxDelayMs: number;
}

export type SignInReservation = { allowed: true } | { allowed: false; waitMs: number };

// ---- search inside a queue (issue 14): chunked reads; the matching is done by the caller

/** A part of a queue `queueScan` reads: a pending list, the reservations, the retries, the dead letters. */
export type QueueScanPart = Priority | "processing" | "scheduled" | "dead";

export interface QueueScanEntry {
  /** Position in the list, or rank in the zset (processing by deadline, scheduled by ready time), when read. */
  index: number;
  body: Buffer;
  /** processing: the task id the reservation is registered under. */
  id?: string;
  /** processing: the deadline; scheduled: the ready time (unix seconds). */
  score?: number;
}

export interface QueueScanChunk {
  /** How many entries the part held when the chunk was read. */
  total: number;
  /** Entries `start` .. `start + count - 1`, in order (processing: reservations whose body is missing are left out). */
  entries: QueueScanEntry[];
  /** The part's key holds another Redis type: read as empty. */
  corrupt?: boolean;
}

/** Entries one queueScan may read (each call stays well under a millisecond of Redis). */
export const QUEUE_SCAN_MAX = 2000;

export interface SearchBackend {
  /**
   * One chunk of a queue's part, from `start`, at most `count` (<= QUEUE_SCAN_MAX) entries,
   * in one round trip (two for processing: the ids, then their bodies). Lists may move
   * between chunks (workers pop, producers push): a scan made of chunks is not a snapshot.
   */
  queueScan(name: string, part: QueueScanPart, start: number, count: number): Promise<QueueScanChunk>;
}

/** Bulk actions on a search's matches (issue 14.2): job records under fleet:console:bulk:. */
export interface BulkJobsBackend {
  /** Writes a new job record (state `running`, no owner, at part 0, cursor 0, counts 0) and indexes it. */
  bulkJobCreate(id: string, doc: BytesLike, nowMs?: number): Promise<void>;
  /** The records of these jobs, in the order given; null for one that does not exist. */
  bulkJobGet(ids: string[]): Promise<Array<BulkJobRecord | null>>;
  /** The newest `limit` job ids, newest first. */
  bulkJobIds(limit: number): Promise<string[]>;
  /**
   * Sets fields (`state`, `owner`, `note`...) of a job only while its state is `ifState`
   * (any existing job when absent), and optionally how long the record is kept from now.
   * False when the job is missing or in another state.
   */
  bulkJobSet(id: string, fields: Record<string, string>, opts?: { ifState?: string; keepSeconds?: number }): Promise<boolean>;
  /**
   * One chunk of a job, atomically: removes `items` from the part's list, each re-checked
   * byte for byte at its index (or just before it, where the list moved), pushes each one's
   * `replacement` onto the normal pending list for "requeue", and advances the job's part,
   * cursor and counts, and keeps the caller's `scan` state. A body not found is `missing`
   * when the look reached the list's head (it is gone), else its item number is in `unknown`
   * (it may have moved further: the caller reads it again). Nothing happens unless the job is
   * `running` and owned by `owner` (`ok` false). See src/lua/queue-take-matches-3.lua.
   */
  queueTakeMatches(name: string, chunk: TakeMatchesChunk): Promise<TakeMatchesResult>;
}

export interface BulkJobRecord {
  id: string;
  /** The spec as the console wrote it (JSON bytes); null when missing. */
  doc: Buffer | null;
  /** running, done, cancelled or failed (as written; null when missing). */
  state: string | null;
  /** Token of the lock of the process running it ("" when none yet). */
  owner: string;
  part: number;
  cursor: number;
  scanned: number;
  done: number;
  missing: number;
  /** Free text: why it failed, who cancelled it. */
  note: string;
  /** The runner's own state of its read of the part (queueTakeMatches' `scan`); "" when none. */
  scan: string;
}

export interface TakeMatchesResult {
  ok: boolean;
  taken: number;
  missing: number;
  cursor: number;
  /** Item numbers (0-based, in `items`) not found where looked, not known gone either. */
  unknown: number[];
}

export interface TakeMatchesChunk {
  jobId: string;
  owner: string;
  action: "requeue" | "delete";
  /** The list read: a pending list or the dead letters. */
  part: Priority | "dead";
  /** Where the chunk was read, and how many entries it held. */
  start: number;
  read: number;
  partIndex: number;
  /** This chunk was the last of its part: the job moves to the next part, cursor 0. */
  partDone: boolean;
  items: Array<{ index: number; body: Buffer; replacement: Buffer }>;
  /** Kept in the job's `scan` field with the chunk (absent: left as it is). */
  scan?: string;
}

// ---- error groups and bulk actions on the worker list (issue 14.3 and 14.4)

/**
 * A worker's state hash alone (`state`, `last_seen`, `last_error`): what error groups need of
 * a whole fleet. Each field is null, and named in `corrupt`, exactly when WorkerRecord's would be.
 */
export interface WorkerStateEntry extends WorkerRef {
  state: WorkerRecord["state"];
  lastSeen: number | null;
  /** "" in Redis is null here, as in WorkerRecord. */
  lastError: string | null;
  corrupt: string[];
}

/** What `workersRemoveOffline` did to each worker. */
export type OfflineRemoval = "removed" | "online" | "absent";

export interface WorkerBulkBackend {
  /**
   * The state hash of many workers, in the order given, in a bounded number of pipelined
   * round trips (1000 workers per round trip); nothing else of the worker is read.
   */
  workersState(refs: WorkerRef[]): Promise<WorkerStateEntry[]>;
  /**
   * Removes each given worker (every key, stats history too, and both index entries, as
   * `workerRemove`) only if it is offline: its `last_seen` is missing, unreadable, or before
   * `cutoff` (unix seconds). The check and the removal are one atomic step per worker, so a
   * worker that reported meanwhile is kept (`online`); `absent` when it had no key at all.
   * Batched: one script per 100 workers, all sent at once. Answers in the order given.
   */
  workersRemoveOffline(refs: WorkerRef[], cutoff: number): Promise<OfflineRemoval[]>;
}
