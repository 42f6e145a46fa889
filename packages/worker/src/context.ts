// `ctx`: what a running automation may do, every operation backed by the shared Backend.
import type { Backend, JsonObject, Priority } from "@fleet/backend";
import { pyFloat, pyJsonBytes } from "@fleet/backend";
import { sleep, type Clock } from "./clock";
import { encodeTaskBody } from "./task-body";

export const STREAM_MAX_LEN = 50_000;
export const STREAM_TTL_SECONDS = 3600;

export interface ClaimedItem {
  id: string;
  payload: Buffer;
  tags: JsonObject;
  expiresAt: number | null;
  /** Drops the claim so another consumer may take the item. */
  release(): Promise<boolean>;
  /** Removes the item from the pool (it was used up). */
  remove(): Promise<boolean>;
}

export interface PoolHandle {
  put(itemId: string, payload: Buffer | string, opts?: { tags?: JsonObject; ttlSeconds?: number | null }): Promise<void>;
  /** Claims any unclaimed live item whose tags match `where`; null when none is free. */
  claim(opts?: { where?: JsonObject; holdSeconds?: number }): Promise<ClaimedItem | null>;
  release(itemId: string): Promise<boolean>;
  remove(itemId: string): Promise<boolean>;
  size(): Promise<number>;
  list(): ReturnType<Backend["poolList"]>;
}

export interface HeldLock {
  name: string;
  token: string;
  release(): Promise<boolean>;
}

export interface CounterHandle {
  incr(by?: number): Promise<number>;
  get(): Promise<number>;
  set(value: number): Promise<void>;
}

export interface KvHandle {
  get(key: string): Promise<Buffer | null>;
  /** The value parsed as JSON; null when absent or not JSON. */
  getJson<T = unknown>(key: string): Promise<T | null>;
  set(key: string, value: Buffer | string, ttlSeconds?: number | null): Promise<void>;
  /** Stores the JSON text of `value` (Python's json.dumps encoding). */
  setJson(key: string, value: unknown, ttlSeconds?: number | null): Promise<void>;
  setNx(key: string, value: Buffer | string, ttlSeconds?: number | null): Promise<boolean>;
  del(key: string): Promise<boolean>;
}

export interface AutomationContext<C = Record<string, unknown>> {
  readonly backend: Backend;
  readonly automationType: string;
  readonly workerId: string;
  /** Index of the slot running this call. */
  readonly slot: number;
  /** The config in force when this call started (parsed, defaults filled in). */
  readonly config: C;
  /** Aborted when the slot is stopped or killed, or the task timed out. */
  readonly signal: AbortSignal;
  now(): number;
  /** Abortable sleep: rejects when `signal` aborts. */
  sleep(ms: number): Promise<void>;
  /** Pushes `data` to this automation's stream `stream:<type>` (and `event:<type>.emit`). */
  emit(data: unknown): Promise<void>;
  /** Pushes a task `{"id", "payload"}` onto a queue; returns the id. */
  submit(queue: string, payload: unknown, opts?: { priority?: Priority }): Promise<string>;
  /** Publishes JSON on `event:<topic>`. */
  publish(topic: string, payload: unknown): Promise<void>;
  pool(name: string): PoolHandle;
  /** Tries to take the lock for `holdSeconds`, waiting up to `waitSeconds`; null when it stays taken. */
  lock(name: string, opts?: { holdSeconds?: number; waitSeconds?: number }): Promise<HeldLock | null>;
  /** Runs `fn` under the lock; returns `{ acquired: false }` without running it when the lock stays taken. */
  withLock<T>(name: string, opts: { holdSeconds?: number; waitSeconds?: number }, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }>;
  counter(name: string): CounterHandle;
  kv(ns: string): KvHandle;
  log(message: string, fields?: JsonObject): void;
}

export interface ContextDeps {
  backend: Backend;
  automationType: string;
  workerId: string;
  clock: Clock;
  /** Validates what `emit` pushes (the automation's output schema); throws on a mismatch. */
  checkOutput?: (data: unknown) => unknown;
  log?: (line: string) => void;
}

export function streamEnvelope(deps: Pick<ContextDeps, "automationType" | "workerId">, ts: number, data: unknown): Buffer {
  return pyJsonBytes({ ts: pyFloat(ts), automation_type: deps.automationType, worker_id: deps.workerId, data });
}

export async function emitToStream(deps: ContextDeps, data: unknown): Promise<void> {
  const checked = deps.checkOutput ? deps.checkOutput(data) : data;
  const ts = deps.clock.now();
  await deps.backend.streamPush(deps.automationType, streamEnvelope(deps, ts, checked), {
    score: ts,
    maxLen: STREAM_MAX_LEN,
    ttlSeconds: STREAM_TTL_SECONDS,
  });
}

export function createContext<C>(deps: ContextDeps, slot: number, config: C, signal: AbortSignal): AutomationContext<C> {
  const { backend } = deps;
  const pool = (name: string): PoolHandle => ({
    put: (itemId, payload, opts) => backend.poolPut(name, itemId, payload, opts?.tags ?? {}, opts?.ttlSeconds ?? null),
    async claim(opts) {
      const item = await backend.poolClaimAny(name, opts?.where ?? {}, opts?.holdSeconds ?? 60);
      if (!item) return null;
      return {
        id: item.id,
        payload: item.payload,
        tags: item.tags,
        expiresAt: item.expiresAt,
        release: () => backend.poolRelease(name, item.id),
        remove: () => backend.poolRemove(name, item.id),
      };
    },
    release: (itemId) => backend.poolRelease(name, itemId),
    remove: (itemId) => backend.poolRemove(name, itemId),
    size: () => backend.poolSize(name),
    list: () => backend.poolList(name),
  });
  const lock = async (name: string, opts?: { holdSeconds?: number; waitSeconds?: number }): Promise<HeldLock | null> => {
    const token = await backend.lockAcquire(name, opts?.holdSeconds ?? 30, opts?.waitSeconds ?? 0);
    if (token === null) return null;
    return { name, token, release: () => backend.lockRelease(name, token) };
  };
  const kv = (ns: string): KvHandle => ({
    get: (key) => backend.kvGet(ns, key),
    async getJson<T>(key: string) {
      const raw = await backend.kvGet(ns, key);
      if (raw === null) return null;
      try {
        return JSON.parse(raw.toString("utf8")) as T;
      } catch {
        return null;
      }
    },
    set: (key, value, ttl) => backend.kvSet(ns, key, value, ttl ?? null),
    setJson: (key, value, ttl) => backend.kvSet(ns, key, pyJsonBytes(value), ttl ?? null),
    setNx: (key, value, ttl) => backend.kvSetNx(ns, key, value, ttl ?? null),
    del: (key) => backend.kvDel(ns, key),
  });
  return {
    backend,
    automationType: deps.automationType,
    workerId: deps.workerId,
    slot,
    config,
    signal,
    now: () => deps.clock.now(),
    sleep: (ms) => sleep(ms, signal),
    emit: (data) => emitToStream(deps, data),
    async submit(queue, payload, opts) {
      const { id, body } = encodeTaskBody(payload);
      await backend.queuePush(queue, body, { priority: opts?.priority ?? "normal" });
      return id;
    },
    publish: (topic, payload) => backend.eventPublish(topic, pyJsonBytes(payload)),
    pool,
    lock,
    async withLock(name, opts, fn) {
      const held = await lock(name, opts);
      if (!held) return { acquired: false };
      try {
        return { acquired: true, value: await fn() };
      } finally {
        await held.release();
      }
    },
    counter: (name) => ({
      incr: (by = 1) => backend.counterIncr(name, by),
      get: () => backend.counterGet(name),
      set: (value) => backend.counterSet(name, value),
    }),
    kv,
    log(message, fields) {
      deps.log?.(`slot ${slot}: ${message}${fields ? ` ${JSON.stringify(fields)}` : ""}`);
    },
  };
}
