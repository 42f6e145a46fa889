// How live frames change the query cache. Pure functions of (QueryClient, frame, refetch),
// kept apart from the EventSource so they can be tested without a browser. What a frame
// cannot patch in is asked of `refetch` (./refetch.ts, the one coalescer).
import type { QueryClient } from "@tanstack/react-query";
import {
  BulkJobSchema,
  type BulkJob,
  type PoolList,
  type PoolSummary,
  type PoolsEvent,
  type Queue,
  type QueueList,
  type QueuesEvent,
  type StreamList,
  type StreamSummary,
  type StreamsEvent,
  type Worker,
  type WorkerDetail,
  type WorkersEvent,
} from "@fleet/schema";

import { mergeBulkJob } from "./bulk-job";
import { compareWorkers, queryKeys, type WorkersEverything } from "./query";
import type { ScheduleRefetch } from "./refetch";
import { applyWorkerPages, withErrorSince } from "./workers-page-live";

function wkey(w: { automation_type: string; worker_id: string }): string {
  return `${w.automation_type}\u0000${w.worker_id}`;
}

export function applyWorkers(client: QueryClient, ev: WorkersEvent, refetch: ScheduleRefetch) {
  const changed = new Map<string, Worker>();
  for (const w of ev.changed) changed.set(wkey(w), w);
  const removed = new Set(ev.removed.map(wkey));

  // The /workers table holds every worker (of a type): patch it in place, keep it sorted.
  for (const [key, data] of client.getQueriesData<WorkersEverything>({ queryKey: ["workers", "everything"] })) {
    if (!data) continue;
    const type = key[2] as string | null;
    const relevant = (w: { automation_type: string }) => type === null || w.automation_type === type;
    const seen = new Set<string>();
    let workers: Worker[] = [];
    for (const w of data.workers) {
      const k = wkey(w);
      if (removed.has(k)) continue;
      const c = changed.get(k);
      if (c) seen.add(k);
      workers.push(c ?? w);
    }
    const added = ev.changed.filter((w) => relevant(w) && !seen.has(wkey(w)) && !removed.has(wkey(w)));
    if (added.length > 0) workers = workers.concat(added).sort(compareWorkers);
    const removedCount = data.workers.length + added.length - workers.length;
    client.setQueryData<WorkersEverything>(key, { ...data, workers, total: data.total + added.length - removedCount });
  }

  for (const w of ev.changed) {
    const key = queryKeys.workers.detail(w.automation_type, w.worker_id);
    const old = client.getQueryData<WorkerDetail>(key);
    if (old) {
      client.setQueryData<WorkerDetail>(key, { ...withErrorSince(w, old), history_len: old.history_len });
      // a new error: its since (and the history) come from the server
      if (old.last_error !== w.last_error) {
        refetch(key);
        refetch(queryKeys.workers.errors(w.automation_type, w.worker_id));
      }
      if (JSON.stringify(old.stats) !== JSON.stringify(w.stats)) {
        refetch(["workers", "stats", w.automation_type, w.worker_id]);
      }
    }
  }
  for (const r of ev.removed) refetch(queryKeys.workers.detail(r.automation_type, r.worker_id));

  // Server-paged lists: rows in view patched, the page refetched (throttled) when its members may move.
  applyWorkerPages(client, ev, refetch);
  refetch(queryKeys.automations.all);
}

export function upsertByName<T extends { name: string }>(list: readonly T[], changed: readonly T[], removed: readonly string[] = []): T[] {
  const byName = new Map(list.map((x) => [x.name, x] as const));
  for (const r of removed) byName.delete(r);
  for (const c of changed) byName.set(c.name, c);
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function applyQueues(client: QueryClient, ev: QueuesEvent, refetch: ScheduleRefetch) {
  client.setQueryData<QueueList>(queryKeys.queues.list(), (old) => {
    if (!old) return old;
    const queues = upsertByName<Queue>(old.queues, ev.queues, ev.removed);
    return { ...old, queues, total: queues.length };
  });
  for (const q of ev.queues) {
    // Depths are in the frame; the item lists behind them need a fetch.
    refetch(queryKeys.queues.detailAll(q.name));
    refetch(queryKeys.queues.deadAll(q.name));
  }
  for (const name of ev.removed ?? []) refetch(queryKeys.queues.detailAll(name));
  refetch(queryKeys.automations.all);
}

export function applyPools(client: QueryClient, ev: PoolsEvent, refetch: ScheduleRefetch) {
  client.setQueryData<PoolList>(queryKeys.pools.list(), (old) => {
    if (!old) return old;
    const pools = upsertByName<PoolSummary>(old.pools, ev.pools, ev.removed);
    return { ...old, pools, total: pools.length };
  });
  for (const p of ev.pools) refetch(queryKeys.pools.detail(p.name));
  for (const name of ev.removed ?? []) refetch(queryKeys.pools.detail(name));
}

export function applyStreams(client: QueryClient, ev: StreamsEvent, refetch: ScheduleRefetch) {
  client.setQueryData<StreamList>(queryKeys.streams.list(), (old) => {
    if (!old) return old;
    const streams = upsertByName<StreamSummary>(old.streams, ev.streams, ev.removed);
    return { ...old, streams, total: streams.length };
  });
  for (const s of ev.streams) refetch(queryKeys.streams.detailAll(s.name));
  refetch(queryKeys.automations.all);
}

/** The bus topic a console publishes bulk jobs' progress on (src/server/bulk/index.ts). */
export const BULK_TOPIC = "fleet.bulk";

/**
 * A `fleet.bulk` message (a job, as GET /queues/{name}/bulk/{id} answers it) into the job's
 * query. Kept even before a page asks for it: a small job can end before the request that
 * started it has answered, and that answer must not bring it back to "running".
 */
export function applyBulkJob(client: QueryClient, payload: unknown): void {
  const parsed = BulkJobSchema.safeParse(payload);
  if (!parsed.success) return;
  const job = parsed.data;
  client.setQueryData<BulkJob>(queryKeys.bulk.job(job.queue, job.id), (old) => mergeBulkJob(old, job));
}
