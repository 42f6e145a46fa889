// The Redis implementation of the Backend contract, byte-compatible with the Python
// reference (../shared/spec/backend.py). Multi-step writes that read are Lua scripts
// (src/lua); multi-step writes that do not read are MULTI; console reads are pipelined.
//
// One module per domain of the contract (../types.ts), each a function of the shared
// RedisContext (./context.ts) answering that domain's part: ./kv.ts, ./pools.ts, ./locks.ts,
// ./counters.ts, ./queues.ts, ./dead-letters.ts, ./streams.ts, ./events.ts, ./discovery.ts,
// ./workers.ts (its batched reads in ./worker-read.ts), ./worker-bulk.ts, ./catalog.ts, and
// the console's own state: ./worker-errors.ts, ./audit.ts, ./sessions.ts, ./watch.ts,
// ./search.ts, ./bulk-jobs.ts. RedisBackend owns the connection and puts them together.
import type { Redis } from "ioredis";
import { installOperations } from "../shared";
import type { Backend, HealthInfo, Subscription } from "../types";
import { redisAudit } from "./audit";
import { redisBulkJobs } from "./bulk-jobs";
import { redisCatalog } from "./catalog";
import { RedisConnection, type RedisConnectionOptions } from "./connection";
import type { RedisContext } from "./context";
import { redisCounters } from "./counters";
import { redisDeadLetters } from "./dead-letters";
import { redisDiscovery } from "./discovery";
import { redisEvents } from "./events";
import { redisKv } from "./kv";
import { redisLocks } from "./locks";
import { redisPools } from "./pools";
import type { QueueWaker } from "./queue-waker";
import { redisQueues } from "./queues";
import { parseInfo } from "./replies";
import { redisSearch } from "./search";
import { redisSessions } from "./sessions";
import { redisStreams } from "./streams";
import { redisWatch } from "./watch";
import { WorkerCache, type WorkerCacheStats } from "./worker-cache";
import { redisWorkerBulk } from "./worker-bulk";
import { redisWorkerErrors } from "./worker-errors";
import { redisWorkers } from "./workers";

export type { RedisConnectionOptions } from "./connection";
export { DLQ_CHUNK } from "./dead-letters";
export { SWEEP_CHUNK } from "./queues";
export { WORKERS_PER_CALL } from "./worker-read";
export type { WorkerCacheOptions, WorkerCacheStats } from "./worker-cache";

/** Every operation of the contract: what the domain modules answer between them. */
type Operations = Omit<Backend, "kind" | "url" | "close" | "health">;

function redisOperations(ctx: RedisContext): Operations {
  return {
    ...redisKv(ctx),
    ...redisPools(ctx),
    ...redisLocks(ctx),
    ...redisCounters(ctx),
    ...redisQueues(ctx),
    ...redisDeadLetters(ctx),
    ...redisStreams(ctx),
    ...redisEvents(ctx),
    ...redisDiscovery(ctx),
    ...redisWorkers(ctx),
    ...redisWorkerBulk(ctx),
    ...redisCatalog(ctx),
    ...redisWorkerErrors(ctx),
    ...redisAudit(ctx),
    ...redisSessions(ctx),
    ...redisWatch(ctx),
    ...redisSearch(ctx),
    ...redisBulkJobs(ctx),
  };
}

export function createRedisBackend(url: string, opts: RedisConnectionOptions = {}): RedisBackend {
  return new RedisBackend(url, opts);
}

// The operations are the domain modules', made methods of the class that call the instance's
// own (installOperations, ../shared.ts); the compiler checks that redisOperations answers every
// one of them (its return type is all of Backend's).
export interface RedisBackend extends Operations {}
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merged members are exactly `Operations`, each installed by the constructor from redisOperations, whose return type the compiler checks is complete
export class RedisBackend implements Backend {
  readonly kind = "redis" as const;
  private readonly ctx: RedisContext;

  constructor(rawUrl: string, opts: RedisConnectionOptions = {}) {
    const conn = new RedisConnection(rawUrl, opts);
    const ctx: Omit<RedisContext, "workerCache"> & { workerCache?: WorkerCache } = {
      conn,
      rawUrl,
      opts,
      run: (fn) => conn.run(fn),
      subscriptions: new Set<Subscription>(),
      wakers: new Map<string, QueueWaker>(),
    };
    ctx.workerCache = new WorkerCache(ctx as RedisContext, opts.workerCache);
    this.ctx = ctx as RedisContext;
    installOperations(RedisBackend.prototype, this, redisOperations(this.ctx));
  }

  get url(): string {
    return this.ctx.conn.url;
  }

  /** What the copy of worker reads holds and has answered (./worker-cache.ts): for tests, benchmarks and health. */
  workerCacheStats(): WorkerCacheStats {
    return this.ctx.workerCache.stats();
  }

  /** The underlying ioredis client, for tests and benchmarks that need to look beneath the contract. */
  get client(): Redis {
    return this.ctx.conn.client;
  }

  async close(): Promise<void> {
    const { conn, wakers, subscriptions } = this.ctx;
    await Promise.all([...wakers.values()].map((w) => w.close()));
    wakers.clear();
    await Promise.all([...subscriptions].map((s) => s.close()));
    await conn.close();
  }

  async health(): Promise<HealthInfo> {
    const { conn } = this.ctx;
    return conn.run(async (r) => {
      const t0 = performance.now();
      await r.ping();
      const latencyMs = performance.now() - t0;
      const [server, persistence, memory] = (await conn.execValues(r.pipeline().info("server").info("persistence").info("memory"))) as string[];
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
}
