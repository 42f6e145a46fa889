// Error groups (issue 14.3): dead letters' and workers' `last_error`, grouped by
// normalizeErrorMessage (@fleet/schema: the one grouping rule, shared with the search filter's
// `error_group`). Bounded whatever the size of the data:
//   - dead letters: the newest QUEUE_ERRORS_DEAD_READ of one queue, or fleet-wide the newest
//     FLEET_ERRORS_DEAD_READ of each queue, queues with the most dead letters first, at most
//     FLEET_ERRORS_DEAD_BUDGET in all; read with LRANGE in chunks of 1000, the chunks of one
//     queue sent together (pipelined on the one connection), decoded here, never in Redis;
//   - workers: the state hash alone (Backend.workersState: 1000 HMGETs per round trip).
// An answer is computed at most every ERRORS_MAX_AGE_SECONDS per process and shared by the
// requests meanwhile (stated in the answer as `max_age_seconds`), so a busy overview costs
// Redis one computation per 10 s, not one per open tab.
import { parseJsonBytes, type Backend, type WorkerRef } from "@fleet/backend";
import {
  ERROR_SAMPLE_MAX,
  ERRORS_MAX_AGE_SECONDS,
  FLEET_ERRORS_DEAD_BUDGET,
  FLEET_ERRORS_DEAD_READ,
  QUEUE_ERRORS_DEAD_READ,
  normalizeErrorMessage,
  type ErrorGroup,
  type ErrorGroups,
} from "@fleet/schema";

import { byString } from "./resources";

/** LRANGE chunk: no one command returns more than this many dead letters. */
export const DEAD_CHUNK = 1000;

interface Acc {
  group: string;
  sample: string;
  dead: number;
  workers: number;
  firstSeen: number | null;
  lastSeen: number | null;
  newestRank: number | null;
  automations: Set<string>;
  queues: Map<string, number>;
}

export class ErrorGrouper {
  private readonly groups = new Map<string, Acc>();
  readonly scan: ErrorGroups["scanned"];

  constructor(deadPerQueue: number) {
    this.scan = { dead_read_per_queue: deadPerQueue, queues: [], queues_not_read: 0, dead_without_error: 0, dead_unreadable: 0, workers: 0, workers_with_error: 0 };
  }

  private acc(message: string): Acc | null {
    const group = normalizeErrorMessage(message);
    if (group === "") return null;
    let a = this.groups.get(group);
    if (!a) {
      const sample = message.length > ERROR_SAMPLE_MAX ? `${message.slice(0, ERROR_SAMPLE_MAX - 1)}…` : message;
      a = { group, sample, dead: 0, workers: 0, firstSeen: null, lastSeen: null, newestRank: null, automations: new Set(), queues: new Map() };
      this.groups.set(group, a);
    }
    return a;
  }

  /** `rank`: 1 for the newest dead letter of the queue. */
  addDead(queue: string, body: Buffer, rank: number): void {
    const parsed = parseJsonBytes(body);
    if (!parsed.ok || parsed.value === null || typeof parsed.value !== "object" || Array.isArray(parsed.value)) {
      this.scan.dead_unreadable += 1;
      return;
    }
    const le = (parsed.value as Record<string, unknown>).last_error;
    const a = typeof le === "string" && le !== "" ? this.acc(le) : null;
    if (!a) {
      this.scan.dead_without_error += 1;
      return;
    }
    a.dead += 1;
    a.queues.set(queue, (a.queues.get(queue) ?? 0) + 1);
    a.automations.add(queue);
    if (a.newestRank === null || rank < a.newestRank) a.newestRank = rank;
  }

  addWorker(automationType: string, lastError: string | null, lastSeen: number | null): void {
    this.scan.workers += 1;
    if (lastError === null) return;
    const a = this.acc(lastError);
    if (!a) return;
    this.scan.workers_with_error += 1;
    a.workers += 1;
    a.automations.add(automationType);
    if (lastSeen !== null && Number.isFinite(lastSeen)) {
      if (a.firstSeen === null || lastSeen < a.firstSeen) a.firstSeen = lastSeen;
      if (a.lastSeen === null || lastSeen > a.lastSeen) a.lastSeen = lastSeen;
    }
  }

  result(now: number): ErrorGroups {
    const groups: ErrorGroup[] = [...this.groups.values()].map((a) => ({
      group: a.group,
      sample: a.sample,
      count: a.dead + a.workers,
      dead: a.dead,
      workers: a.workers,
      first_seen: a.firstSeen,
      last_seen: a.lastSeen,
      newest_dead_rank: a.newestRank,
      automations: [...a.automations].sort(byString),
      queues: [...a.queues].map(([name, dead]) => ({ name, dead })).sort((x, y) => y.dead - x.dead || byString(x.name, y.name)),
    }));
    groups.sort((x, y) => y.count - x.count || byString(x.group, y.group));
    return { total_groups: groups.length, groups, scanned: this.scan, computed_at: now, max_age_seconds: ERRORS_MAX_AGE_SECONDS };
  }
}

/**
 * The newest `n` dead letters of a queue (the list is RPUSHed: newest at the tail), in chunks
 * of DEAD_CHUNK sent together; each chunk handed to `each` as it is decoded, with the rank of
 * its bodies (1 = newest). The list may move between the chunks' reads (a redrive from the
 * head): a group's counts are then off by what moved, never unbounded.
 */
export async function readNewestDead(backend: Backend, queue: string, n: number, each: (body: Buffer, rank: number) => void): Promise<{ total: number; read: number }> {
  const { total } = await backend.dlqRange(queue, 0, 0);
  const start = Math.max(0, total - n);
  const reads: Array<Promise<{ offset: number; items: Buffer[] }>> = [];
  for (let off = start; off < total; off += DEAD_CHUNK) {
    const limit = Math.min(DEAD_CHUNK, total - off);
    reads.push(backend.dlqRange(queue, off, limit).then((r) => ({ offset: off, items: r.items })));
  }
  let read = 0;
  for (const p of reads) {
    const { offset, items } = await p;
    for (const [i, body] of items.entries()) each(body, total - (offset + i));
    read += items.length;
  }
  return { total, read };
}

async function addWorkers(backend: Backend, grouper: ErrorGrouper, refs: WorkerRef[]): Promise<void> {
  const states = await backend.workersState(refs);
  for (const s of states) grouper.addWorker(s.automationType, s.lastError, s.lastSeen);
}

/** One queue's groups: its newest dead letters, and the workers of the automation of the same name. */
export async function queueErrorGroups(backend: Backend, queue: string, now: number): Promise<ErrorGroups> {
  const grouper = new ErrorGrouper(QUEUE_ERRORS_DEAD_READ);
  const [dead] = await Promise.all([
    readNewestDead(backend, queue, QUEUE_ERRORS_DEAD_READ, (body, rank) => grouper.addDead(queue, body, rank)),
    backend.workerList(queue).then((refs) => addWorkers(backend, grouper, refs)),
  ]);
  grouper.scan.queues.push({ name: queue, dead: dead.total, read: dead.read });
  return grouper.result(now);
}

/** Fleet-wide groups: `queues` with their dead-letter counts (from the name discovery), every worker. */
export async function fleetErrorGroups(backend: Backend, queues: Array<{ name: string; dead: number }>, now: number): Promise<ErrorGroups> {
  const grouper = new ErrorGrouper(FLEET_ERRORS_DEAD_READ);
  const withDead = queues.filter((q) => q.dead > 0).sort((a, b) => b.dead - a.dead || byString(a.name, b.name));
  let budget = FLEET_ERRORS_DEAD_BUDGET;
  const chosen: Array<{ name: string; n: number }> = [];
  for (const q of withDead) {
    if (budget <= 0) {
      grouper.scan.queues_not_read += 1;
      continue;
    }
    const n = Math.min(FLEET_ERRORS_DEAD_READ, q.dead, budget);
    budget -= n;
    chosen.push({ name: q.name, n });
  }
  const workers = backend.workerList().then((refs) => addWorkers(backend, grouper, refs));
  // queue after queue (each queue's chunks together): at most FLEET_ERRORS_DEAD_READ bodies in hand at once
  for (const q of chosen) {
    const r = await readNewestDead(backend, q.name, q.n, (body, rank) => grouper.addDead(q.name, body, rank));
    grouper.scan.queues.push({ name: q.name, dead: r.total, read: r.read });
  }
  await workers;
  return grouper.result(now);
}

// ---- the per-process cache: one computation per key per ERRORS_MAX_AGE_SECONDS

interface CacheEntry {
  at: number;
  value: Promise<ErrorGroups>;
}
const CACHE_MAX = 500;
const cache = new Map<string, CacheEntry>();

/** The answer for `key`, computed by `compute` unless one computed (or being computed) in the last ERRORS_MAX_AGE_SECONDS exists. */
export function cachedErrorGroups(key: string, compute: () => Promise<ErrorGroups>): Promise<ErrorGroups> {
  const t = Date.now();
  const hit = cache.get(key);
  if (hit && t - hit.at < ERRORS_MAX_AGE_SECONDS * 1000) return hit.value;
  if (cache.size >= CACHE_MAX) {
    for (const [k, e] of cache) if (t - e.at >= ERRORS_MAX_AGE_SECONDS * 1000) cache.delete(k);
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  }
  const value = compute();
  cache.set(key, { at: t, value });
  // a failure is not kept: the next request tries again
  value.catch(() => {
    if (cache.get(key)?.value === value) cache.delete(key);
  });
  return value;
}

/** For tests: forget every cached answer. */
export function resetErrorGroupCache(): void {
  cache.clear();
}

/** The groups with at most `limit` listed. */
export function limitGroups(all: ErrorGroups, limit: number): ErrorGroups {
  return { ...all, groups: all.groups.slice(0, limit) };
}
