// Live `workers` frames against the server-paged worker lists (`queries.workersPage`).
// A page is one slice of a list the server filtered and sorted, so a frame can only be
// applied exactly to the rows already in view; whenever it may change which workers belong
// on the page (a worker not in view changed or appeared, a status left the page's filter, a
// last_seen moved under a last-seen sort, a worker was removed), the page is refetched
// through the one coalescer (./refetch.ts: at most once per 2 s per page, never by
// cancelling a fetch in flight).
import type { QueryClient, QueryKey } from "@tanstack/react-query";
import type { Worker, WorkerList, WorkersEvent } from "@fleet/schema";

import { workerMatches, type WorkersParams } from "./query";
import type { ScheduleRefetch } from "./refetch";

type WorkerRef = WorkersEvent["removed"][number];

const wkey = (w: WorkerRef) => `${w.automation_type}\u0000${w.worker_id}`;

/** `next` (a live frame's worker) with `old`'s last_error_since while the error text is the same. */
export function withErrorSince(next: Worker, old: Pick<Worker, "last_error" | "last_error_since">): Worker {
  return old.last_error_since !== undefined && old.last_error === next.last_error ? { ...next, last_error_since: old.last_error_since } : next;
}

/**
 * Patches every cached page with the frame and returns the keys of the pages whose
 * membership may have moved (exported for tests; `applyWorkerPages` also refetches them).
 */
export function patchWorkerPages(client: QueryClient, ev: WorkersEvent): QueryKey[] {
  const changed = new Map<string, Worker>();
  for (const w of ev.changed) changed.set(wkey(w), w);
  const removed = new Set(ev.removed.map(wkey));
  const stale: QueryKey[] = [];

  for (const [key, data] of client.getQueriesData<WorkerList>({ queryKey: ["workers", "page"] })) {
    const p = (key[2] ?? {}) as WorkersParams;
    const ofType = (w: WorkerRef) => p.type === undefined || w.automation_type === p.type;
    const bySeen = p.sort === "last_seen" || p.sort === "-last_seen";
    let moved = false;

    if (data) {
      const inView = new Set<string>();
      const counts = { ...data.counts };
      let total = data.total;
      const workers: Worker[] = [];
      for (const old of data.workers) {
        const k = wkey(old);
        inView.add(k);
        if (removed.has(k)) {
          counts[old.status] = Math.max(0, counts[old.status] - 1);
          total = Math.max(0, total - 1);
          moved = true;
          continue;
        }
        const next = changed.get(k);
        if (!next) {
          workers.push(old);
          continue;
        }
        // Shown with its new values until the refetch says where it belongs now. A live frame has
        // no last_error_since (it comes from the error history): kept while the error is the same;
        // a new error gets it with the page's next refresh.
        workers.push(withErrorSince(next, old));
        if (next.status !== old.status) {
          counts[old.status] = Math.max(0, counts[old.status] - 1);
          counts[next.status] += 1;
          if (p.status !== undefined) {
            total += next.status === p.status ? 1 : -1;
            moved = true;
          }
        }
        if (bySeen && next.last_seen !== old.last_seen) moved = true;
        // an error-group filter (issue 14): a new last_error may take it out of the group
        if (p.error_group !== undefined && next.last_error !== old.last_error) moved = true;
      }
      for (const w of ev.changed) {
        if (!inView.has(wkey(w)) && ofType(w) && workerMatches(w, p.q ?? "")) moved = true;
      }
      for (const r of ev.removed) {
        // A removed worker carries no hostname: any of the page's type may have been counted.
        if (!inView.has(wkey(r)) && ofType(r)) moved = true;
      }
      if (workers.length !== data.workers.length || workers.some((w, i) => w !== data.workers[i])) {
        client.setQueryData<WorkerList>(key, { ...data, total, counts, workers });
      }
    } else if (ev.changed.some(ofType) || ev.removed.some(ofType)) {
      // Cached without data (first load in flight, or failed): make sure it ends current.
      moved = true;
    }
    if (moved) stale.push(key);
  }
  return stale;
}

/** The live `workers` frame's effect on paged worker lists: rows patched, moved pages refetched (exactly that page, coalesced). */
export function applyWorkerPages(client: QueryClient, ev: WorkersEvent, refetch: ScheduleRefetch): void {
  for (const key of patchWorkerPages(client, ev)) refetch(key, { exact: true });
}
