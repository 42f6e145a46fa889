// Live `workers` frames against the server-paged worker lists (`queries.workersPage`).
// A page is one slice of a list the server filtered and sorted, so a frame can only be
// applied exactly to the rows already in view; whenever it may change which workers belong
// on the page (a worker not in view changed or appeared, a status left the page's filter, a
// last_seen moved under a last-seen sort, a worker was removed), the page is refetched,
// at most once per REFETCH_GAP_MS per page and never by cancelling a fetch in flight.
import { hashKey, type QueryClient, type QueryKey } from "@tanstack/react-query";
import type { Worker, WorkerList, WorkersEvent } from "@fleet/schema";

import { workerMatches, type WorkersParams } from "./query";

/** The fastest a page refetches because of live frames. */
export const REFETCH_GAP_MS = 2_000;
/** While a fetch of the page is in flight, how often to look whether it has settled. */
const SETTLE_POLL_MS = 200;

type WorkerRef = WorkersEvent["removed"][number];

const wkey = (w: WorkerRef) => `${w.automation_type}\u0000${w.worker_id}`;

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
        // Shown with its new values until the refetch says where it belongs now.
        workers.push(next);
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

interface Slot {
  timer: ReturnType<typeof setTimeout> | null;
  lastStart: number;
}

const slots = new WeakMap<QueryClient, Map<string, Slot>>();

/**
 * Refetches one query soon: at most once per REFETCH_GAP_MS (a burst of frames costs one
 * request), after any fetch already in flight has settled (never cancelling it: its answer
 * may predate the frame, so one more fetch follows it). An inactive page is only marked
 * stale; it refetches when shown again.
 */
export function scheduleRefetch(client: QueryClient, queryKey: QueryKey): void {
  let byKey = slots.get(client);
  if (!byKey) slots.set(client, (byKey = new Map()));
  const id = hashKey(queryKey);
  let slot = byKey.get(id);
  if (!slot) byKey.set(id, (slot = { timer: null, lastStart: 0 }));
  if (slot.timer !== null) return;
  const s = slot;
  const table = byKey;
  const run = () => {
    s.timer = null;
    const query = client.getQueryCache().find({ queryKey, exact: true });
    if (!query) {
      table.delete(id);
      return;
    }
    if (query.state.fetchStatus === "fetching") {
      s.timer = setTimeout(run, SETTLE_POLL_MS);
      return;
    }
    if (!query.isActive()) {
      table.delete(id);
      void client.invalidateQueries({ queryKey, exact: true, refetchType: "none" });
      return;
    }
    s.lastStart = Date.now();
    void client.refetchQueries({ queryKey, exact: true, type: "active" }, { cancelRefetch: false });
  };
  s.timer = setTimeout(run, Math.max(0, s.lastStart + REFETCH_GAP_MS - Date.now()));
}

/** The live `workers` frame's effect on paged worker lists. */
export function applyWorkerPages(client: QueryClient, ev: WorkersEvent): void {
  for (const key of patchWorkerPages(client, ev)) scheduleRefetch(client, key);
}

/** Drops pending refetches (tests, or a client going away). */
export function cancelWorkerPageRefetches(client: QueryClient): void {
  const byKey = slots.get(client);
  if (!byKey) return;
  for (const s of byKey.values()) if (s.timer !== null) clearTimeout(s.timer);
  slots.delete(client);
}
