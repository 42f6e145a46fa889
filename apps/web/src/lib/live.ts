// The tab's view of the live event stream. One EventSource per browser, not per tab
// (./live-tabs: a leader tab holds it and re-broadcasts its frames to the other tabs);
// every tab applies the frames to its own cache (setQueryData, or refetches through the one
// coalescer, ./refetch.ts), so TanStack Query stays the only client cache; bus frames are kept in a
// small ring for the overview and /events. While the stream is down, the tab refetches its
// active queries on a timer until it is back.
"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore, type ReactNode } from "react";
import type { BusEvent } from "@fleet/schema";

import { API_BASE, ApiError } from "./api";
import { needsPolling, routeFrame, type LiveFrameData, type LiveStatus } from "./live-frames";
import { eventSourceStream, sessionSignedOut, startLiveTabs, type TabSink } from "./live-tabs";
import type { WorkersEverything } from "./query";
import { cancelScheduledRefetches, refetcherFor } from "./refetch";

export type { LiveStatus } from "./live-frames";

export interface BusFrame extends BusEvent {
  /** Local, increasing: a stable React key. */
  seq: number;
}

/** What listeners of each kind get: the parsed frame (bus frames with their local seq; sync frames stay inside). */
export type LiveFrames = Omit<LiveFrameData, "bus" | "sync"> & { bus: BusFrame };
export type LiveKind = keyof LiveFrames;

/** Polling pace while the stream is not live. */
export const FALLBACK_POLL_MS = 5_000;
/** At most this long does a refetch after an unreplayable gap keep the indicator off "live". */
const REFETCH_GATE_MS = 10_000;
/** How long "reconnecting" may last before we call the stream down and start polling. */
const DOWN_AFTER_MS = 8_000;
export const BUS_BUFFER = 500;

// ---------- the tab's store (module level: one per tab, whichever tab holds the stream)

let status: LiveStatus = "connecting";
const statusListeners = new Set<() => void>();
function setStatus(next: LiveStatus) {
  if (next === status) return;
  status = next;
  for (const fn of statusListeners) fn();
}

let busEvents: readonly BusFrame[] = [];
let busSeq = 0;
let pendingBus: BusFrame[] = [];
let busFlush: number | null = null;
const busListeners = new Set<() => void>();

function pushBus(ev: BusEvent) {
  pendingBus.push({ ...ev, seq: ++busSeq });
  // A hidden tab gets no animation frames: keep its backlog to what the ring would keep.
  if (pendingBus.length > 2 * BUS_BUFFER) pendingBus = pendingBus.slice(pendingBus.length - BUS_BUFFER);
  // Bursts of bus messages re-render once per frame, not once per message.
  if (busFlush !== null) return;
  busFlush = requestAnimationFrame(() => {
    busFlush = null;
    const merged = busEvents.concat(pendingBus);
    pendingBus = [];
    busEvents = merged.length > BUS_BUFFER ? merged.slice(merged.length - BUS_BUFFER) : merged;
    for (const fn of busListeners) fn();
  });
}

const frameListeners: { [K in LiveKind]: Set<(data: LiveFrames[K]) => void> } = {
  bus: new Set(),
  workers: new Set(),
  queues: new Set(),
  pools: new Set(),
  streams: new Set(),
};

/** Raw frames of one kind, after the cache has been updated. Returns the unsubscribe. */
export function subscribeLive<K extends LiveKind>(kind: K, fn: (data: LiveFrames[K]) => void): () => void {
  const set = frameListeners[kind] as Set<(data: LiveFrames[K]) => void>;
  set.add(fn);
  return () => {
    set.delete(fn);
  };
}

function emit<K extends LiveKind>(kind: K, data: LiveFrames[K]) {
  for (const fn of frameListeners[kind] as Set<(data: LiveFrames[K]) => void>) {
    try {
      fn(data);
    } catch (err) {
      console.error(`[live] ${kind} listener failed`, err);
    }
  }
}

// ---------- hooks

export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    (fn) => {
      statusListeners.add(fn);
      return () => statusListeners.delete(fn);
    },
    () => status,
    () => "connecting" as LiveStatus,
  );
}

const EMPTY_BUS: readonly BusFrame[] = [];

/** The latest bus messages (at most BUS_BUFFER), oldest first. */
export function useBusEvents(): readonly BusFrame[] {
  return useSyncExternalStore(
    (fn) => {
      busListeners.add(fn);
      return () => busListeners.delete(fn);
    },
    () => busEvents,
    () => EMPTY_BUS,
  );
}

/** Calls `fn` for every frame of `kind` while mounted. Keep `fn` stable (useCallback) or accept resubscribes. */
export function useLiveSubscription<K extends LiveKind>(kind: K, fn: (data: LiveFrames[K]) => void): void {
  useEffect(() => subscribeLive(kind, fn), [kind, fn]);
}

/** Connection status, the latest bus messages, and a way to subscribe to raw frames. */
export function useLiveEvents(): { status: LiveStatus; busEvents: readonly BusFrame[]; subscribe: typeof subscribeLive } {
  return { status: useLiveStatus(), busEvents: useBusEvents(), subscribe: subscribeLive };
}

// ---------- the provider

/** Mount once, inside QueryProvider, in the root layout. */
export function LiveEventsProvider({ children }: { children: ReactNode }): ReactNode {
  const client = useQueryClient();

  useEffect(() => {
    const refetch = refetcherFor(client);
    let pollTimer: ReturnType<typeof setInterval> | null = null;
    let everLive = false;

    const startPolling = () => {
      if (pollTimer !== null) return;
      pollTimer = setInterval(() => {
        void client.invalidateQueries(
          {
            type: "active",
            // The full worker list costs a registry read per page: poll it at a slower pace.
            predicate: (q) =>
              q.queryKey[1] !== "everything" || ((q.state.data as WorkersEverything | undefined)?.total ?? 0) <= 1000 || Date.now() - q.state.dataUpdatedAt > 30_000,
          },
          { cancelRefetch: false },
        );
      }, FALLBACK_POLL_MS);
    };
    const stopPolling = () => {
      if (pollTimer !== null) clearInterval(pollTimer);
      pollTimer = null;
    };

    // What the stream reports (`streamStatus`) and what the tab shows: after a reconnect
    // whose gap could not be replayed, the tab refetches what it shows and says
    // "reconnecting", not "live", until those answers are in: a stale number is never shown
    // as live.
    let streamStatus: LiveStatus = status;
    let refetching = 0;
    const show = () => setStatus(refetching > 0 && streamStatus === "live" ? "reconnecting" : streamStatus);

    // If the stream never reports live (no leader answers, the first connection hangs),
    // do not wait forever before polling.
    let firstTimer: ReturnType<typeof setTimeout> | null = setTimeout(() => {
      firstTimer = null;
      if (streamStatus !== "live" && !needsPolling(streamStatus)) {
        streamStatus = "down";
        show();
        startPolling();
      }
    }, DOWN_AFTER_MS);

    const sink: TabSink = {
      frame(kind, _id, raw) {
        const routed = routeFrame(client, kind, raw, refetch);
        if (!routed) return;
        if (routed.kind === "sync") {
          // Once per connection, after the frames the server gave back: a first connection
          // catches up once; one that could not be given its gap refetches (and is not
          // "live" until that is done); a replayed gap needs nothing.
          if (routed.data.mode !== "replayed") catchUp(routed.data.mode === "refetch");
        } else if (routed.kind === "bus") {
          pushBus(routed.data);
          emit("bus", { ...routed.data, seq: busSeq });
        } else {
          emit(routed.kind, routed.data as never);
        }
      },
      status(next) {
        streamStatus = next;
        show();
        if (next === "live") {
          if (firstTimer !== null) clearTimeout(firstTimer);
          firstTimer = null;
          stopPolling();
          // A tab that joins a leader's stream already open sees no sync frame: what it
          // fetched before listening may have missed a change.
          if (!everLive) catchUp(false);
        } else if (needsPolling(next)) {
          startPolling();
        }
      },
    };

    // The stream sends no snapshot: whatever this tab fetched before the stream opened, or
    // before this tab started listening to the leader, or during a gap the server could not
    // give back, may have missed a change. Catch up once; on the first open a large full
    // worker list is left to its own slower refresh.
    const catchUp = (gate: boolean) => {
      const openedAt = Date.now();
      const first = !everLive;
      everLive = true;
      const done = client.invalidateQueries(
        {
          predicate: (q) =>
            q.state.dataUpdatedAt > 0 &&
            q.state.dataUpdatedAt < openedAt &&
            q.queryKey[0] !== "health" &&
            (!first || !(q.queryKey[1] === "everything" && ((q.state.data as WorkersEverything | undefined)?.total ?? 0) > 1000)),
        },
        { cancelRefetch: false },
      );
      if (!gate) return;
      refetching++;
      show();
      void Promise.race([done, new Promise((resolve) => setTimeout(resolve, REFETCH_GATE_MS))])
        .catch(() => undefined)
        .finally(() => {
          refetching--;
          show();
        });
    };

    const tabs = startLiveTabs({
      sink,
      // No `topics`: the one stream serves every tab, and each page filters bus frames itself.
      openStream: eventSourceStream({
        url: `${API_BASE}/events`,
        downAfterMs: DOWN_AFTER_MS,
        isSignedOut: () => sessionSignedOut(API_BASE),
      }),
    });

    // The stream follows the session. A 401 anywhere: the stream reconnects (and, if the
    // session is gone, reports signed-out). A success while it says signed-out: someone
    // signed in again, reconnect now rather than at the end of the backoff.
    let lastSessionOk = 0;
    const unsubscribeCache = client.getQueryCache().subscribe((ev) => {
      if (ev.type !== "updated") return;
      if (ev.action.type === "error" && ev.action.error instanceof ApiError && ev.action.error.status === 401) {
        tabs.poke("auth");
      } else if (
        ev.action.type === "success" &&
        streamStatus === "signed-out" &&
        // /health answers without a session: its success proves nothing.
        ev.query.queryKey[0] !== "health" &&
        Date.now() - lastSessionOk > 5_000
      ) {
        lastSessionOk = Date.now();
        tabs.poke("session-ok");
      }
    });

    return () => {
      unsubscribeCache();
      tabs.stop();
      if (firstTimer !== null) clearTimeout(firstTimer);
      stopPolling();
      cancelScheduledRefetches(client);
      setStatus("connecting");
    };
  }, [client]);

  return children;
}
