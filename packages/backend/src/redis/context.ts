// What every domain module of the Redis implementation works with: the one connection (and
// how to run a command on it), the URL and options for the extra connections some domains
// open (subscriptions, queue wakers), and the set of those that close() must end. The
// domain modules (./kv.ts, ./queues.ts, ./workers.ts, ...) are functions of this context:
// no `this`, no state of their own beyond what they register here.
import type { Redis } from "ioredis";
import type { Subscription } from "../types";
import type { RedisConnection, RedisConnectionOptions } from "./connection";
import type { QueueWaker } from "./queue-waker";
import type { WorkerCache } from "./worker-cache";
import { asNumber } from "./replies";

export interface RedisContext {
  readonly conn: RedisConnection;
  /** The URL as given (password included): for error messages and the extra connections. */
  readonly rawUrl: string;
  readonly opts: RedisConnectionOptions;
  /** Runs `fn` once the connection is ready, every failure mapped to the contract's errors. */
  run<T>(fn: (r: Redis) => Promise<T>): Promise<T>;
  /** Open subscriptions (events, keyspace, key tracking): closed with the backend. */
  readonly subscriptions: Set<Subscription>;
  /** One waker per queue waited on (queueWait): closed with the backend. */
  readonly wakers: Map<string, QueueWaker>;
  /** The copy of worker reads kept true by CLIENT TRACKING (./worker-cache.ts). */
  readonly workerCache: WorkerCache;
}

const SCAN_COUNT = 1000;

/** Every key matching `pattern` (SCAN, never KEYS), sorted: the whole-key-space walks scripts and tests use. */
export async function scanKeys(r: Redis, pattern: string): Promise<string[]> {
  const found = new Set<string>();
  let cursor = "0";
  do {
    const [next, batch] = await r.scan(cursor, "MATCH", pattern, "COUNT", SCAN_COUNT);
    for (const k of batch) found.add(k);
    cursor = next;
  } while (cursor !== "0");
  return [...found].sort();
}

/** A PTTL reply as a TTL: null for no TTL (-1) or no key (-2). */
export function ttlMsOf(pttl: unknown): number | null {
  const n = asNumber(pttl);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

export const EMPTY = Buffer.alloc(0);
