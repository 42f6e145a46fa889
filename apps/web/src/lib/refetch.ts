// The browser's one refetch coalescer. Live frames say that something changed that they cannot
// patch into the cache themselves (a queue's item lists behind its new depths, a worker page
// whose members may have moved, an automation's figures); asking for each at once would fetch
// once per frame, and a busy fleet sends frames faster than a slow list answers. So a refetch
// of one key (or of every query under a key prefix) runs at most once per REFETCH_GAP_MS
// (trailing: the last frame of a burst is always followed by a fetch), and only once no fetch
// of it is in flight: that fetch is never cancelled (cancelling each time would starve a slow
// query forever) and, since its answer may predate the frame, one more fetch follows it. A
// query nobody shows is only marked stale; it refetches when shown again.
import { hashKey, type QueryClient, type QueryKey } from "@tanstack/react-query";

/** The fastest one key refetches because of live frames. */
export const REFETCH_GAP_MS = 2_000;
/** While a fetch of the key is in flight, how often to look whether it has settled. */
const SETTLE_POLL_MS = 200;

export interface RefetchTarget {
  /** Only the query with exactly this key (default: every query whose key starts with it). */
  exact?: boolean;
}

/** What the cache updates of live frames are given to ask for a refetch (injectable for tests). */
export type ScheduleRefetch = (queryKey: QueryKey, target?: RefetchTarget) => void;

interface Slot {
  timer: ReturnType<typeof setTimeout> | null;
  lastStart: number;
}

const slots = new WeakMap<QueryClient, Map<string, Slot>>();

/** Asks for a refetch of `queryKey` (exactly, or every query under it) soon; see the file's head. */
export function scheduleRefetch(client: QueryClient, queryKey: QueryKey, target: RefetchTarget = {}): void {
  const exact = target.exact === true;
  let byKey = slots.get(client);
  if (!byKey) slots.set(client, (byKey = new Map()));
  const id = `${exact ? "=" : "^"}${hashKey(queryKey)}`;
  let slot = byKey.get(id);
  if (!slot) byKey.set(id, (slot = { timer: null, lastStart: 0 }));
  if (slot.timer !== null) return;
  const s = slot;
  const table = byKey;
  const run = () => {
    s.timer = null;
    const matching = client.getQueryCache().findAll({ queryKey, exact });
    if (matching.length === 0) {
      table.delete(id);
      return;
    }
    if (matching.some((q) => q.state.fetchStatus === "fetching")) {
      s.timer = setTimeout(run, SETTLE_POLL_MS);
      return;
    }
    s.lastStart = Date.now();
    // Marks every match stale and refetches those shown; nothing is in flight to cancel.
    void client.invalidateQueries({ queryKey, exact }, { cancelRefetch: false });
  };
  s.timer = setTimeout(run, Math.max(0, s.lastStart + REFETCH_GAP_MS - Date.now()));
}

/** A ScheduleRefetch bound to one client. */
export function refetcherFor(client: QueryClient): ScheduleRefetch {
  return (queryKey, target) => scheduleRefetch(client, queryKey, target);
}

/** Drops every pending refetch of `client` (tests, or a client going away). */
export function cancelScheduledRefetches(client: QueryClient): void {
  const byKey = slots.get(client);
  if (!byKey) return;
  for (const s of byKey.values()) if (s.timer !== null) clearTimeout(s.timer);
  slots.delete(client);
}
