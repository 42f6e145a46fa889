// What the live-events loop reads each tick and how it decides what changed. One
// snapshot is a fixed number of batched reads whatever the number of workers, queues,
// pools or streams: never a round trip per item, and never a walk of the key space. The
// queue, pool and stream names come from the console's name discovery (sent along with
// each poll); only those names are read, in one pipeline per family.
import type { Backend, WorkerRow, WorkerRef } from "@fleet/backend";
import type { PoolSummary, Queue, StreamSummary, Worker } from "@fleet/schema";

import { toPoolSummary, toQueue, toStreamSummary, toWorker, workerStatus } from "../api/serialize";
import { poolFigures, queueFigures, streamFigures } from "../live-names";

/** The names a snapshot reads figures of (from the name discovery, sorted). */
export interface KnownNames {
  queues: string[];
  pools: string[];
  streams: string[];
}

export interface WorkersChange {
  changed: Worker[];
  removed: Array<{ automation_type: string; worker_id: string }>;
}
export interface QueuesChange {
  queues: Queue[];
  removed: string[];
}
export interface PoolsChange {
  pools: PoolSummary[];
  removed: string[];
}
export interface StreamsChange {
  streams: StreamSummary[];
  removed: string[];
}

export type DetectedChange =
  | { event: "workers"; data: WorkersChange }
  | { event: "queues"; data: QueuesChange }
  | { event: "pools"; data: PoolsChange }
  | { event: "streams"; data: StreamsChange };

export interface Snapshot {
  workers: FingerprintedWorker[];
  queues: Queue[];
  pools: PoolSummary[];
  streams: StreamSummary[];
}

export interface FingerprintedWorker {
  worker: Worker;
  fingerprint: string;
}

/**
 * Workers whose records a tick reads beyond the new ones, in rotation (WorkerReads). Reading
 * every worker of a 10,000-worker fleet every second kept Redis about 8 % busy; a tick
 * reads new workers at once, removed ones are seen at once in the id index, a worker going
 * offline is seen from the last_seen already read (status is recomputed every tick), and
 * every other change (state, error, config, stats) within ceil(workers / 1000) ticks.
 */
export const WORKERS_PER_TICK = 1000;
/**
 * The id index of 10,000 workers is a few milliseconds of Redis to read: a tick reads its
 * size (SCARD) and the whole index only when the size moved, or every this many ticks (a
 * worker replaced by another within one tick).
 */
export const WORKER_LIST_EVERY = 10;

/**
 * Workers per backend call: calls one after the other keep each answer a bounded size, and
 * Redis free for others between them (1,000 workers with 8 KiB stats bodies in one call,
 * some 8 MB, outlast the 1.5 s command timeout on two busy cores; `pnpm bench:snapshot`).
 * No yield to the event loop between them: in production this runs in the snapshot thread
 * (./snapshot-thread.ts), whose event loop serves nothing else.
 */
export const WORKERS_PER_READ = 250;

async function readRecords(backend: Backend, refs: WorkerRef[]): Promise<WorkerRow[]> {
  const out: WorkerRow[] = [];
  for (let i = 0; i < refs.length; i += WORKERS_PER_READ) out.push(...(await backend.workersRows(refs.slice(i, i + WORKERS_PER_READ))));
  return out;
}

/**
 * What one snapshot source remembers of the workers between ticks: the last record read
 * of each, and where the rotation is. Each tick reads the id index, every worker not read
 * yet, and the next `perTick` of the others.
 */
export class WorkerReads {
  private readonly cache = new Map<string, { record: WorkerRow; worker: Worker; fingerprint: string }>();
  private cursor = 0;
  private refs: WorkerRef[] | null = null;
  /** SCARD when the index was last read (members that do not parse are counted, not listed). */
  private listedCount = -1;
  private ticksSinceList = 0;

  constructor(
    private readonly perTick = WORKERS_PER_TICK,
    private readonly listEvery = WORKER_LIST_EVERY,
  ) {}

  private async workerRefs(backend: Backend): Promise<WorkerRef[]> {
    const count = await backend.workerCount();
    if (this.refs !== null && ++this.ticksSinceList < this.listEvery && count === this.listedCount) return this.refs;
    this.ticksSinceList = 0;
    this.listedCount = count;
    this.refs = await backend.workerList();
    return this.refs;
  }

  async read(backend: Backend, now: number, offlineAfterSeconds: number): Promise<FingerprintedWorker[]> {
    const refs = await this.workerRefs(backend);
    const keys = refs.map((r) => workerKey({ automation_type: r.automationType, worker_id: r.workerId }));
    const wanted = new Set<number>();
    keys.forEach((k, i) => {
      if (!this.cache.has(k)) wanted.add(i);
    });
    if (refs.length > 0) {
      const start = this.cursor % refs.length;
      const n = Math.min(this.perTick, refs.length);
      for (let j = 0; j < n; j++) wanted.add((start + j) % refs.length);
      this.cursor = (start + n) % refs.length;
    }
    const positions = [...wanted].sort((a, b) => a - b);
    const records = await readRecords(
      backend,
      positions.map((i) => refs[i]!),
    );
    const read = new Map<string, WorkerRow>();
    for (const [j, i] of positions.entries()) read.set(keys[i]!, records[j]!);
    const next = new Map<string, { record: WorkerRow; worker: Worker; fingerprint: string }>();
    const out: FingerprintedWorker[] = [];
    keys.forEach((k) => {
      const fresh = read.get(k);
      let entry = this.cache.get(k);
      if (fresh !== undefined || entry === undefined) {
        const worker = toWorker(fresh!, now, offlineAfterSeconds);
        entry = { record: fresh!, worker, fingerprint: workerFingerprint(worker) };
      } else {
        // not read this tick: only the clock can have changed its status
        const status = workerStatus(entry.record.state, entry.record.lastSeen, now, offlineAfterSeconds);
        if (status !== entry.worker.status) {
          const worker = { ...entry.worker, status };
          entry = { record: entry.record, worker, fingerprint: workerFingerprint(worker) };
        }
      }
      next.set(k, entry);
      out.push({ worker: entry.worker, fingerprint: entry.fingerprint });
    });
    this.cache.clear();
    for (const [k, v] of next) this.cache.set(k, v);
    return out;
  }
}

/**
 * One snapshot. `workers` carries what the source remembers between ticks; without it
 * every worker is read (a one-off read, tests).
 */
export async function readSnapshot(
  backend: Backend,
  now: number,
  offlineAfterSeconds: number,
  names: KnownNames,
  workers: WorkerReads = new WorkerReads(Number.MAX_SAFE_INTEGER),
): Promise<Snapshot> {
  // The four families are independent: read them side by side, each in its own few trips.
  // A name whose keys are all gone is left out, so the next frame reports it removed.
  const [workerList, queues, pools, streams] = await Promise.all([
    workers.read(backend, now, offlineAfterSeconds),
    queueFigures(backend, names.queues, now).then((f) => f.items.map(toQueue)),
    poolFigures(backend, names.pools).then((f) => f.items.map(toPoolSummary)),
    streamFigures(backend, names.streams).then((f) => f.items.map(toStreamSummary)),
  ]);
  return { workers: workerList, queues, pools, streams };
}

/** Everything about a worker that counts as a change: all of it except `last_seen`. */
export function workerFingerprint(w: Worker): string {
  const { last_seen: _ignored, ...rest } = w;
  return JSON.stringify(rest);
}

function workerKey(w: Pick<Worker, "automation_type" | "worker_id">): string {
  // Both parts may contain any character; a JSON pair cannot be ambiguous.
  return JSON.stringify([w.automation_type, w.worker_id]);
}

interface Baseline {
  workers: Map<string, { fingerprint: string; ref: { automation_type: string; worker_id: string } }>;
  queues: Map<string, string>;
  pools: Map<string, string>;
  streams: Map<string, string>;
}

/**
 * Holds the previous snapshot as fingerprints. The first snapshot only sets the baseline:
 * a new connection gets no snapshot, it has its data from the REST API.
 */
export class ChangeDetector {
  private baseline: Baseline | null = null;

  reset(): void {
    this.baseline = null;
  }

  get hasBaseline(): boolean {
    return this.baseline !== null;
  }

  /** Compares with the previous snapshot, remembers this one, returns the changes. */
  apply(snapshot: Snapshot): DetectedChange[] {
    const next: Baseline = {
      workers: new Map(),
      queues: new Map(),
      pools: new Map(),
      streams: new Map(),
    };
    const previous = this.baseline;

    const changedWorkers: Worker[] = [];
    for (const { worker: w, fingerprint } of snapshot.workers) {
      const key = workerKey(w);
      next.workers.set(key, { fingerprint, ref: { automation_type: w.automation_type, worker_id: w.worker_id } });
      if (previous && previous.workers.get(key)?.fingerprint !== fingerprint) changedWorkers.push(w);
    }
    const queues = diffByName(snapshot.queues, previous?.queues, next.queues);
    const pools = diffByName(snapshot.pools, previous?.pools, next.pools);
    const streams = diffByName(snapshot.streams, previous?.streams, next.streams);

    this.baseline = next;
    if (!previous) return [];

    const out: DetectedChange[] = [];
    const removedWorkers = [...previous.workers].filter(([key]) => !next.workers.has(key)).map(([, v]) => v.ref);
    if (changedWorkers.length > 0 || removedWorkers.length > 0) {
      out.push({ event: "workers", data: { changed: changedWorkers, removed: removedWorkers } });
    }
    if (queues.changed.length > 0 || queues.removed.length > 0) {
      out.push({ event: "queues", data: { queues: queues.changed, removed: queues.removed } });
    }
    if (pools.changed.length > 0 || pools.removed.length > 0) {
      out.push({ event: "pools", data: { pools: pools.changed, removed: pools.removed } });
    }
    if (streams.changed.length > 0 || streams.removed.length > 0) {
      out.push({ event: "streams", data: { streams: streams.changed, removed: streams.removed } });
    }
    return out;
  }
}

function diffByName<T extends { name: string }>(items: T[], previous: Map<string, string> | undefined, next: Map<string, string>): { changed: T[]; removed: string[] } {
  const changed: T[] = [];
  for (const item of items) {
    const fingerprint = JSON.stringify(item);
    next.set(item.name, fingerprint);
    if (previous && previous.get(item.name) !== fingerprint) changed.push(item);
  }
  const removed = previous ? [...previous.keys()].filter((name) => !next.has(name)) : [];
  return { changed, removed };
}
