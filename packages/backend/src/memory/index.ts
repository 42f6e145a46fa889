// The in-memory Backend: the same keys, encodings and semantics as the Redis one, held in
// one process. Used by tests, the demo mode of the console, and the shared contract suite.
// Every method body runs synchronously against the store, so each operation is atomic in
// the same way a Lua script or MULTI is on Redis.
//
// One module per domain of the contract (../types.ts), each a function of the shared
// MemoryContext (./context.ts), as on Redis: ./kv.ts, ./pools.ts, ./locks.ts, ./counters.ts,
// ./queues.ts, ./dead-letters.ts, ./streams.ts, ./events.ts, ./discovery.ts, ./workers.ts,
// ./worker-bulk.ts, ./catalog.ts, and the console's own state: ./worker-errors.ts,
// ./audit.ts, ./sessions.ts, ./watch.ts, ./search.ts, ./bulk-jobs.ts.
//
// Test hook: `backend.raw` is the key space itself (a MemoryStore). Write raw bytes under
// Fleet's key names (`raw.set`, `raw.hset`, `raw.zadd`, `raw.rpush`) to plant corrupt data,
// and read what an operation stored (`raw.get`, `raw.hgetall`, `raw.zrange`, `raw.lrange`,
// `raw.smembers`, `raw.type`, `raw.pttl`, `raw.keys`).
import { maskUrl } from "../errors";
import { installOperations } from "../shared";
import type { Backend, HealthInfo } from "../types";
import { memoryAudit } from "./audit";
import { memoryBulkJobs } from "./bulk-jobs";
import { memoryCatalog } from "./catalog";
import { createMemoryContext, type MemoryContext } from "./context";
import { memoryCounters } from "./counters";
import { memoryDeadLetters } from "./dead-letters";
import { memoryDiscovery } from "./discovery";
import { memoryEvents } from "./events";
import { memoryKv } from "./kv";
import { memoryLocks } from "./locks";
import { memoryPools } from "./pools";
import { memoryQueues } from "./queues";
import { memorySearch } from "./search";
import { memorySessions } from "./sessions";
import type { MemoryStore } from "./store";
import { memoryStreams } from "./streams";
import { memoryWatch } from "./watch";
import { memoryWorkerBulk } from "./worker-bulk";
import { memoryWorkerErrors } from "./worker-errors";
import { memoryWorkers } from "./workers";

export { MemoryStore, SortedSet } from "./store";
export type { RedisType, Value, ZMember } from "./store";

/** Every operation of the contract: what the domain modules answer between them. */
type Operations = Omit<Backend, "kind" | "url" | "close" | "health">;

function memoryOperations(ctx: MemoryContext): Operations {
  return {
    ...memoryKv(ctx),
    ...memoryPools(ctx),
    ...memoryLocks(ctx),
    ...memoryCounters(ctx),
    ...memoryQueues(ctx),
    ...memoryDeadLetters(ctx),
    ...memoryStreams(ctx),
    ...memoryEvents(ctx),
    ...memoryDiscovery(ctx),
    ...memoryWorkers(ctx),
    ...memoryWorkerBulk(ctx),
    ...memoryCatalog(ctx),
    ...memoryWorkerErrors(ctx),
    ...memoryAudit(ctx),
    ...memorySessions(ctx),
    ...memoryWatch(ctx),
    ...memorySearch(ctx),
    ...memoryBulkJobs(ctx),
  };
}

// The operations are the domain modules', made methods of the class that call the instance's
// own (installOperations, ../shared.ts); the compiler checks that memoryOperations answers every
// one of them (its return type is all of Backend's).
export interface MemoryBackend extends Operations {}
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merged members are exactly `Operations`, each installed by the constructor from memoryOperations, whose return type the compiler checks is complete
export class MemoryBackend implements Backend {
  readonly kind = "memory" as const;
  readonly url: string;
  /** The key space; see the header comment. */
  readonly raw: MemoryStore;
  private readonly ctx: ReturnType<typeof createMemoryContext>;

  constructor(url = "memory://") {
    this.url = maskUrl(url);
    this.ctx = createMemoryContext();
    this.raw = this.ctx.raw;
    installOperations(MemoryBackend.prototype, this, memoryOperations(this.ctx));
  }

  async close(): Promise<void> {
    this.ctx.close();
  }

  async health(): Promise<HealthInfo> {
    return { version: "memory", latencyMs: 0, aofEnabled: null, usedMemoryBytes: null };
  }
}

export function createMemoryBackend(url = "memory://"): MemoryBackend {
  return new MemoryBackend(url);
}
