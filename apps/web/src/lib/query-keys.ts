// Query keys, and the API path behind the queries a page's first paint may carry: plain
// data, no "use client", so that a server component (src/server/prefetch.tsx) files an
// answer under the very key the page's useQuery asks for, and a client-side fetch asks
// the very path the server answered (lib/query.ts builds its queries from these).
import type { HistoryRangeName, WorkerStatus, WorkersSort } from "@fleet/schema";

import { qs, seg } from "./api";

export interface WorkersParams {
  type?: string;
  status?: WorkerStatus;
  q?: string;
  /** Only workers whose last_error is in this error group (issue 14). */
  error_group?: string;
  /** Server-side order (a console extension of the API): absent means type, then id. */
  sort?: WorkersSort;
  limit?: number;
  offset?: number;
}

/**
 * Every key starts with the resource name, so `invalidateQueries({ queryKey: queryKeys.workers.all })`
 * reaches every variant of it.
 */
export const queryKeys = {
  health: ["health"] as const,
  workers: {
    all: ["workers"] as const,
    /** One page as the API answers it. */
    page: (p: WorkersParams) => ["workers", "page", p] as const,
    /** Every worker of a type (or of all types), loaded in pages of 1000: the /workers table. */
    everything: (type: string | undefined) => ["workers", "everything", type ?? null] as const,
    detail: (type: string, id: string) => ["workers", "detail", type, id] as const,
    stats: (type: string, id: string, limit: number) => ["workers", "stats", type, id, limit] as const,
    errors: (type: string, id: string) => ["workers", "errors", type, id] as const,
  },
  automations: {
    all: ["automations"] as const,
    list: () => ["automations", "list"] as const,
    detail: (type: string) => ["automations", "detail", type] as const,
  },
  queues: {
    all: ["queues"] as const,
    list: () => ["queues", "list"] as const,
    detail: (name: string, limit: number) => ["queues", "detail", name, limit] as const,
    detailAll: (name: string) => ["queues", "detail", name] as const,
    dead: (name: string, limit: number, offset: number) => ["queues", "dead", name, limit, offset] as const,
    deadAll: (name: string) => ["queues", "dead", name] as const,
  },
  /** Bulk jobs on a search's matches (issue 14.2), kept live by `fleet.bulk` bus frames (./live-cache.ts). */
  bulk: {
    all: ["bulk"] as const,
    job: (queue: string, id: string) => ["bulk", "job", queue, id] as const,
  },
  pools: {
    all: ["pools"] as const,
    list: () => ["pools", "list"] as const,
    detail: (name: string) => ["pools", "detail", name] as const,
  },
  streams: {
    all: ["streams"] as const,
    list: () => ["streams", "list"] as const,
    detail: (name: string, limit: number, order: "newest" | "oldest") => ["streams", "detail", name, limit, order] as const,
    detailAll: (name: string) => ["streams", "detail", name] as const,
  },
  history: {
    all: ["history"] as const,
    /** `queue` null: the whole fleet. */
    of: (queue: string | null, range: HistoryRangeName) => ["history", queue, range] as const,
  },
  alerts: {
    all: ["alerts"] as const,
    status: () => ["alerts", "status"] as const,
    rules: () => ["alerts", "rules"] as const,
  },
  errors: {
    all: ["errors"] as const,
    /** `queue` null: the whole fleet. */
    of: (queue: string | null, limit: number) => ["errors", queue, limit] as const,
  },
  locks: { all: ["locks"] as const },
  counters: { all: ["counters"] as const },
  kv: {
    all: ["kv"] as const,
    namespaces: () => ["kv", "namespaces"] as const,
    keys: (ns: string) => ["kv", "keys", ns] as const,
    value: (ns: string, key: string) => ["kv", "value", ns, key] as const,
  },
} as const;

/** Queries a page's first paint may carry, with the API path each one asks for. */
export const endpoints = {
  automations: () => ({ queryKey: queryKeys.automations.list(), path: "/automations" }),
  queues: () => ({ queryKey: queryKeys.queues.list(), path: "/queues" }),
  pools: () => ({ queryKey: queryKeys.pools.list(), path: "/pools" }),
  queue: (name: string, limit = 100) => ({ queryKey: queryKeys.queues.detail(name, limit), path: `/queues/${seg(name)}${qs({ limit })}` }),
  deadLetters: (name: string, limit = 100, offset = 0) => ({ queryKey: queryKeys.queues.dead(name, limit, offset), path: `/queues/${seg(name)}/dead${qs({ limit, offset })}` }),
} as const;

export interface Endpoint {
  queryKey: readonly unknown[];
  /** Below /api/v1, with its query string. */
  path: string;
}
