// What GET /api/v1/metrics exports, read from the backend at scrape time in a bounded
// number of batched reads, like every other console read: the names of queues, pools and
// streams come from the console's one name discovery (never a SCAN per scrape), their
// figures from one pipelined read of those names.
//
// Backend down: the answer is still 200, with `fleet_backend_up 0` and no data families.
// That is the exporter convention (`mysql_up`, `redis_up`): Prometheus keeps scraping,
// `up` stays about the console process, and an alert on `fleet_backend_up == 0` says
// exactly what is wrong. A 503 would turn the outage into a missing scrape instead.
import type { Backend, WorkerIndexEntry } from "@fleet/backend";
import type { WorkerStatus } from "@fleet/schema";

import { workerStatus } from "../api/serialize";
import { livePools, liveQueues, liveStreams, type NameSource } from "../live-names";
import { withTimeout } from "../timeout";
import { Exposition, type Sample } from "./exposition";

export const WORKER_STATUSES: readonly WorkerStatus[] = ["running", "idle", "error", "offline"];
export const DEFAULT_METRICS_TIMEOUT_MS = 5000;
const WORKERS_PER_READ = 1000;

export interface CollectOptions {
  offlineAfterSeconds: number;
  /** Where queue, pool and stream names come from: the console's name discovery. */
  names: () => Promise<NameSource>;
  /** Unix seconds. */
  now?: number;
  timeoutMs?: number;
  log?: (message: string, err: unknown) => void;
}

interface FleetData {
  latencySeconds: number;
  workers: Map<string, Record<WorkerStatus, number>>;
  queues: Awaited<ReturnType<Backend["queueDepths"]>>;
  pools: Awaited<ReturnType<Backend["poolSummaries"]>>;
  streams: Awaited<ReturnType<Backend["streamSummaries"]>>;
}

async function readFleet(backend: Backend, names: NameSource, now: number, offlineAfterSeconds: number): Promise<FleetData> {
  const health = await backend.health();
  const [workers, queues, pools, streams] = await Promise.all([
    (async () => {
      const [refs, catalog] = await Promise.all([backend.workerList(), backend.catalogTypes()]);
      // Status needs only state and last_seen: the light index, not the whole records
      // (config, stats, hardware, history) of every worker. In slices, one after the other:
      // one call for a very large fleet would be one long burst that can hit the command
      // timeout on a busy Redis and read as "backend down".
      const records: WorkerIndexEntry[] = [];
      for (let i = 0; i < refs.length; i += WORKERS_PER_READ) records.push(...(await backend.workersIndex(refs.slice(i, i + WORKERS_PER_READ))));
      const byType = new Map<string, Record<WorkerStatus, number>>();
      const countsOf = (type: string) => {
        let c = byType.get(type);
        if (!c) byType.set(type, (c = { running: 0, idle: 0, error: 0, offline: 0 }));
        return c;
      };
      // Catalog types with no worker still get their zero series, so a graph shows 0, not a gap.
      for (const type of catalog) countsOf(type);
      for (const r of records) countsOf(r.automationType)[workerStatus(r.state, r.lastSeen, now, offlineAfterSeconds)] += 1;
      return byType;
    })(),
    liveQueues(backend, names, now),
    livePools(backend, names),
    liveStreams(backend, names),
  ]);
  return { latencySeconds: health.latencyMs / 1000, workers, queues, pools, streams };
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The whole exposition text. Never throws: a backend failure is `fleet_backend_up 0`. */
export async function collectMetrics(getBackend: () => Promise<Backend>, options: CollectOptions): Promise<string> {
  const started = performance.now();
  const now = options.now ?? Date.now() / 1000;
  const timeoutMs = options.timeoutMs ?? DEFAULT_METRICS_TIMEOUT_MS;
  const out = new Exposition();

  let data: FleetData | null = null;
  try {
    data = await withTimeout(
      (async () => readFleet(await getBackend(), await options.names(), now, options.offlineAfterSeconds))(),
      timeoutMs,
      () => new Error(`the backend did not answer within ${timeoutMs} ms`),
    );
  } catch (err) {
    (options.log ?? ((m, e) => console.error(`[metrics] ${m}:`, e instanceof Error ? e.message : e)))("reading the fleet failed", err);
  }

  out.gauge("fleet_backend_up", "1 when the console could read the Fleet backend (Redis) during this scrape, else 0.", [{ value: data ? 1 : 0 }]);
  if (data) {
    out.gauge("fleet_backend_latency_seconds", "Round-trip time of one backend ping during this scrape.", [{ value: data.latencySeconds }]);
    writeFleet(out, data);
  }
  out.gauge("fleet_metrics_collect_seconds", "Time this scrape took to read the backend.", [{ value: (performance.now() - started) / 1000 }]);
  return out.toString();
}

function writeFleet(out: Exposition, data: FleetData): void {
  const types = [...data.workers.keys()].sort();
  out.gauge(
    "fleet_workers",
    "Registered workers by automation type and status (offline when last_seen is older than the threshold).",
    types.flatMap((type) => WORKER_STATUSES.map((status): Sample => ({ labels: { automation_type: type, status }, value: data.workers.get(type)![status] }))),
  );

  const queues = [...data.queues].sort(byName);
  out.gauge(
    "fleet_queue_tasks",
    "Tasks of a queue by state: pending (all priorities), processing (reserved), scheduled (retries waiting), dead (dead letters).",
    queues.flatMap((q): Sample[] => [
      { labels: { queue: q.name, state: "pending" }, value: q.pending.total },
      { labels: { queue: q.name, state: "processing" }, value: q.processing },
      { labels: { queue: q.name, state: "scheduled" }, value: q.scheduled },
      { labels: { queue: q.name, state: "dead" }, value: q.dead },
    ]),
  );
  out.gauge(
    "fleet_queue_pending_tasks",
    "Pending tasks of a queue by priority list.",
    queues.flatMap((q): Sample[] => [
      { labels: { queue: q.name, priority: "high" }, value: q.pending.high },
      { labels: { queue: q.name, priority: "normal" }, value: q.pending.normal },
      { labels: { queue: q.name, priority: "low" }, value: q.pending.low },
    ]),
  );
  out.gauge(
    "fleet_queue_overdue_tasks",
    "Reserved tasks past their visibility deadline (a sweep would re-queue them).",
    queues.map((q) => ({ labels: { queue: q.name }, value: q.overdue })),
  );
  out.gauge(
    "fleet_queue_due_tasks",
    "Scheduled retries whose ready time has passed.",
    queues.map((q) => ({ labels: { queue: q.name }, value: q.due })),
  );
  out.gauge(
    "fleet_dead_letters",
    "Length of a queue's dead-letter list.",
    queues.map((q) => ({ labels: { queue: q.name }, value: q.dead })),
  );

  const pools = [...data.pools].sort(byName);
  out.gauge(
    "fleet_pool_items",
    "Items of a pool by state: live, expired (past expires_at, not yet removed), corrupt (stored value does not decode).",
    pools.flatMap((p): Sample[] => [
      { labels: { pool: p.name, state: "live" }, value: p.live },
      { labels: { pool: p.name, state: "expired" }, value: p.expired },
      { labels: { pool: p.name, state: "corrupt" }, value: Math.max(0, p.size - p.live - p.expired) },
    ]),
  );
  out.gauge(
    "fleet_pool_claimed_items",
    "Items of a pool currently claimed (an unexpired claim lease).",
    pools.map((p) => ({ labels: { pool: p.name }, value: p.claimed })),
  );

  const streams = [...data.streams].sort(byName);
  out.gauge(
    "fleet_stream_length",
    "Entries in an output stream.",
    streams.map((s) => ({ labels: { stream: s.name }, value: s.length })),
  );
}
