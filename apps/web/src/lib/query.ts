// TanStack Query wiring: one QueryClient per browser tab, one key factory for every
// resource, and one queryOptions() object per endpoint, shared by pages and live updates.
"use client";

import { QueryClient, QueryClientProvider, infiniteQueryOptions, isServer, queryOptions } from "@tanstack/react-query";
import { createElement, type ReactNode } from "react";
import {
  AlertRulesSchema,
  AlertsStatusSchema,
  AutomationListSchema,
  BulkJobSchema,
  AutomationSchema,
  CounterListSchema,
  DeadLettersSchema,
  ErrorGroupsSchema,
  HealthSchema,
  HistorySchema,
  KvKeyListSchema,
  KvNamespaceListSchema,
  KvValueSchema,
  LockListSchema,
  PoolDetailSchema,
  PoolListSchema,
  QueueDetailSchema,
  QueueListSchema,
  StatsFramesSchema,
  StreamDetailSchema,
  StreamListSchema,
  WorkerDetailSchema,
  WorkerErrorHistorySchema,
  WorkerListSchema,
  type BulkJob,
  type HistoryRangeName,
  type Worker,
  type WorkerCounts,
  type WorkerStatus,
  type WorkersSort,
} from "@fleet/schema";

import { ApiError, apiGet, qs, seg } from "./api";
import { mergeBulkJob } from "./bulk-job";
import { endpoints, queryKeys, type WorkersParams } from "./query-keys";

export type { Worker, WorkerStatus, WorkersSort };

// ---------- client

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Live frames keep data fresh; a refocus refetch would only add load.
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (failures, err) => {
          // A 4xx will not change by asking again; a 503 is surfaced by the banner and retried by polling.
          if (err instanceof ApiError && err.status >= 400 && err.status < 500) return false;
          if (err instanceof ApiError && err.backendUnavailable) return false;
          return failures < 2;
        },
      },
      mutations: { retry: false },
    },
  });
}

let browserClient: QueryClient | undefined;

/** A fresh client per server render; one per tab in the browser. */
export function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserClient ??= makeQueryClient();
  return browserClient;
}

export function QueryProvider({ children }: { children: ReactNode }) {
  return createElement(QueryClientProvider, { client: getQueryClient() }, children);
}

// ---------- keys (lib/query-keys.ts: shared with the server's first-paint prefetch)

export { queryKeys, endpoints, type WorkersParams } from "./query-keys";

// ---------- query options, one per endpoint

/** Resources without live frames poll at this pace. */
export const POLL_MS = 5_000;
/** Keys per page of a kv namespace. */
export const KV_KEYS_PAGE = 500;

export interface WorkersEverything {
  /** Sorted by type, then id, as the API answers. */
  workers: Worker[];
  /** What the API said the total was; `workers` may be shorter while pages still load. */
  total: number;
  complete: boolean;
  loadedAt: number;
}

const WORKERS_PAGE = 1000;

/**
 * Every worker, in pages of WORKERS_PAGE. Pages are fetched one after another (each one
 * costs the server a full read of the registry, so parallel pages would only pile up) and
 * each arrival is published to the cache at once, so a large fleet renders progressively.
 */
async function fetchEveryWorker(type: string | undefined, signal: AbortSignal): Promise<WorkersEverything> {
  const key = queryKeys.workers.everything(type);
  const workers: Worker[] = [];
  let total = 0;
  for (let offset = 0; ; offset += WORKERS_PAGE) {
    const page = await apiGet(`/workers${qs({ type, limit: WORKERS_PAGE, offset })}`, WorkerListSchema, signal);
    workers.push(...page.workers);
    total = page.total;
    if (workers.length >= total || page.workers.length === 0) break;
    // Only a first load shows partial data; a refetch keeps the previous full list until done.
    const current = getQueryClient().getQueryData<WorkersEverything>(key);
    if (!current?.complete) {
      getQueryClient().setQueryData<WorkersEverything>(key, { workers: [...workers], total, complete: false, loadedAt: Date.now() });
    }
  }
  return { workers, total: workers.length, complete: true, loadedAt: Date.now() };
}

export const queries = {
  health: () =>
    queryOptions({
      queryKey: queryKeys.health,
      queryFn: ({ signal }) => apiGet("/health", HealthSchema, signal),
      // Polled while down (see the shell) so recovery shows without a reload.
      refetchInterval: (q) => (q.state.status === "error" ? 3_000 : 5_000),
      staleTime: 0,
      retry: false,
    }),
  /**
   * One page as the server filters, sorts and pages it (the /workers table). Live frames
   * patch its rows and refetch it, throttled, when the page's membership may have moved
   * (live-cache.ts, workers-page-live.ts); heartbeats that only move last_seen send no
   * frame, so it also refreshes now and then (one page is cheap to ask for).
   */
  workersPage: (p: WorkersParams) =>
    queryOptions({
      queryKey: queryKeys.workers.page(p),
      queryFn: ({ signal }) => apiGet(`/workers${qs({ ...p, sort: p.sort === "name" ? undefined : p.sort })}`, WorkerListSchema, signal),
      refetchInterval: 30_000,
    }),
  workersEverything: (type?: string) =>
    queryOptions({
      queryKey: queryKeys.workers.everything(type),
      queryFn: ({ signal }) => fetchEveryWorker(type, signal),
      // Heartbeats that only move last_seen send no live frame: refresh now and then,
      // rarely for a large fleet (every page is a full registry read on the server).
      refetchInterval: (q) => ((q.state.data?.total ?? 0) <= WORKERS_PAGE ? 30_000 : 120_000),
    }),
  worker: (type: string, id: string) =>
    queryOptions({
      queryKey: queryKeys.workers.detail(type, id),
      queryFn: ({ signal }) => apiGet(`/workers/${seg(type)}/${seg(id)}`, WorkerDetailSchema, signal),
    }),
  workerStats: (type: string, id: string, limit = 240) =>
    queryOptions({
      queryKey: queryKeys.workers.stats(type, id, limit),
      queryFn: ({ signal }) => apiGet(`/workers/${seg(type)}/${seg(id)}/stats${qs({ limit })}`, StatsFramesSchema, signal),
    }),
  /** The console's error history of a worker; the watch adds to it at most every 10 s. */
  workerErrors: (type: string, id: string) =>
    queryOptions({
      queryKey: queryKeys.workers.errors(type, id),
      queryFn: ({ signal }) => apiGet(`/workers/${seg(type)}/${seg(id)}/errors`, WorkerErrorHistorySchema, signal),
      refetchInterval: 15_000,
    }),
  automations: () => {
    const e = endpoints.automations();
    return queryOptions({ queryKey: e.queryKey, queryFn: ({ signal }) => apiGet(e.path, AutomationListSchema, signal) });
  },
  automation: (type: string) =>
    queryOptions({
      queryKey: queryKeys.automations.detail(type),
      queryFn: ({ signal }) => apiGet(`/automations/${seg(type)}`, AutomationSchema, signal),
    }),
  queues: () => {
    const e = endpoints.queues();
    return queryOptions({ queryKey: e.queryKey, queryFn: ({ signal }) => apiGet(e.path, QueueListSchema, signal) });
  },
  bulkJob: (queue: string, id: string) =>
    queryOptions({
      queryKey: queryKeys.bulk.job(queue, id),
      queryFn: ({ signal }) => apiGet(`/queues/${seg(queue)}/bulk/${seg(id)}`, BulkJobSchema, signal),
      // a refetch that was under way when the job's last frame came must not take it back
      structuralSharing: (old, next) => mergeBulkJob(old as BulkJob | undefined, next as BulkJob),
    }),
  queue: (name: string, limit = 100) => {
    const e = endpoints.queue(name, limit);
    return queryOptions({ queryKey: e.queryKey, queryFn: ({ signal }) => apiGet(e.path, QueueDetailSchema, signal) });
  },
  deadLetters: (name: string, limit = 100, offset = 0) => {
    const e = endpoints.deadLetters(name, limit, offset);
    return queryOptions({ queryKey: e.queryKey, queryFn: ({ signal }) => apiGet(e.path, DeadLettersSchema, signal) });
  },
  /** Recorded every 10 s by the watch: refreshed at that pace (it has no live frames). */
  history: (queue: string | null, range: HistoryRangeName) =>
    queryOptions({
      queryKey: queryKeys.history.of(queue, range),
      queryFn: ({ signal }) => apiGet(queue === null ? `/history${qs({ range })}` : `/queues/${seg(queue)}/history${qs({ range })}`, HistorySchema, signal),
      refetchInterval: range === "1h" ? 10_000 : 60_000,
      staleTime: 5_000,
    }),
  alertsStatus: () =>
    queryOptions({
      queryKey: queryKeys.alerts.status(),
      queryFn: ({ signal }) => apiGet(`/alerts${qs({ limit: 100 })}`, AlertsStatusSchema, signal),
      refetchInterval: 10_000,
      staleTime: 5_000,
    }),
  alertRules: () =>
    queryOptions({
      queryKey: queryKeys.alerts.rules(),
      queryFn: ({ signal }) => apiGet("/alerts/rules", AlertRulesSchema, signal),
    }),
  /** Error groups (issue 14.3): computed at most every 10 s on the server; refreshed at a slower pace here. */
  errorGroups: (queue: string | null, limit = 10) =>
    queryOptions({
      queryKey: queryKeys.errors.of(queue, limit),
      queryFn: ({ signal }) => apiGet(queue === null ? `/errors${qs({ limit })}` : `/queues/${seg(queue)}/errors${qs({ limit })}`, ErrorGroupsSchema, signal),
      refetchInterval: 30_000,
      staleTime: 10_000,
    }),
  pools: () => {
    const e = endpoints.pools();
    return queryOptions({ queryKey: e.queryKey, queryFn: ({ signal }) => apiGet(e.path, PoolListSchema, signal) });
  },
  pool: (name: string) =>
    queryOptions({
      queryKey: queryKeys.pools.detail(name),
      queryFn: ({ signal }) => apiGet(`/pools/${seg(name)}`, PoolDetailSchema, signal),
    }),
  streams: () =>
    queryOptions({
      queryKey: queryKeys.streams.list(),
      queryFn: ({ signal }) => apiGet("/streams", StreamListSchema, signal),
    }),
  stream: (name: string, limit = 100, order: "newest" | "oldest" = "newest") =>
    queryOptions({
      queryKey: queryKeys.streams.detail(name, limit, order),
      queryFn: ({ signal }) => apiGet(`/streams/${seg(name)}${qs({ limit, order })}`, StreamDetailSchema, signal),
    }),
  // No live frames exist for locks, counters and kv: they poll.
  locks: () =>
    queryOptions({
      queryKey: queryKeys.locks.all,
      queryFn: ({ signal }) => apiGet("/locks", LockListSchema, signal),
      refetchInterval: POLL_MS,
      staleTime: 0,
    }),
  counters: () =>
    queryOptions({
      queryKey: queryKeys.counters.all,
      queryFn: ({ signal }) => apiGet("/counters", CounterListSchema, signal),
      refetchInterval: POLL_MS,
      staleTime: 0,
    }),
  kvNamespaces: () =>
    queryOptions({
      queryKey: queryKeys.kv.namespaces(),
      queryFn: ({ signal }) => apiGet("/kv", KvNamespaceListSchema, signal),
      refetchInterval: POLL_MS,
      staleTime: 0,
    }),
  /** A namespace's keys page by page (`cursor`, see apps/web/README.md): "More keys" asks for the next. */
  kvKeys: (ns: string) =>
    infiniteQueryOptions({
      queryKey: queryKeys.kv.keys(ns),
      queryFn: ({ signal, pageParam }) => apiGet(`/kv/${seg(ns)}${qs({ cursor: pageParam, limit: KV_KEYS_PAGE })}`, KvKeyListSchema, signal),
      initialPageParam: "0",
      getNextPageParam: (last) => last.next_cursor ?? undefined,
      // polling refetches every page shown: only while few are
      refetchInterval: (query) => ((query.state.data?.pages.length ?? 0) > 2 ? false : POLL_MS),
      staleTime: 0,
    }),
  kvValue: (ns: string, key: string) =>
    queryOptions({
      queryKey: queryKeys.kv.value(ns, key),
      queryFn: ({ signal }) => apiGet(`/kv/${seg(ns)}/${seg(key)}`, KvValueSchema, signal),
    }),
} as const;

// ---------- helpers for live updates and pages

export function emptyCounts(): WorkerCounts {
  return { running: 0, idle: 0, error: 0, offline: 0 };
}

export function workerHostname(w: Pick<Worker, "hardware">): string | null {
  const h = w.hardware?.hostname;
  return typeof h === "string" ? h : null;
}

/** The same match as the API's `q`: worker id or hostname, case-insensitive. */
export function workerMatches(w: Worker, q: string): boolean {
  if (q === "") return true;
  const needle = q.toLowerCase();
  return w.worker_id.toLowerCase().includes(needle) || (workerHostname(w)?.toLowerCase().includes(needle) ?? false);
}

export function compareWorkers(a: Pick<Worker, "automation_type" | "worker_id">, b: Pick<Worker, "automation_type" | "worker_id">): number {
  return cmp(a.automation_type, b.automation_type) || cmp(a.worker_id, b.worker_id);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
