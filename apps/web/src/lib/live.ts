// One EventSource per tab to /api/v1/events. Frames become cache writes (setQueryData) or
// coalesced invalidations, so TanStack Query stays the only client cache; bus frames are
// kept in a small ring for the overview and /events. When the stream is down, the active
// queries are refetched on a timer until it is back.
"use client";

import { useQueryClient, type QueryClient, type QueryKey } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore, type ReactNode } from "react";
import type { BusEvent, PoolsEvent, QueuesEvent, StreamsEvent, WorkersEvent } from "@fleet/schema";

import { API_BASE } from "./api";
import { applyPools, applyQueues, applyStreams, applyWorkers } from "./live-cache";
import type { WorkersEverything } from "./query";

export type LiveStatus = "connecting" | "live" | "reconnecting" | "down";

export interface BusFrame extends BusEvent {
  /** Local, increasing: a stable React key. */
  seq: number;
}

export interface LiveFrames {
  bus: BusFrame;
  workers: WorkersEvent;
  queues: QueuesEvent;
  pools: PoolsEvent;
  streams: StreamsEvent;
}
export type LiveKind = keyof LiveFrames;

/** Polling pace while the stream is not live. */
export const FALLBACK_POLL_MS = 5_000;
/** How long "reconnecting" may last before we call the stream down and start polling. */
const DOWN_AFTER_MS = 8_000;
export const BUS_BUFFER = 500;

// ---------- the tab's store (module level: there is one EventSource per tab)

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

// ---------- cache updates

/** Coalesces invalidations of one key: at most one per window, trailing. */
function makeInvalidator(client: QueryClient, windowMs = 1_000) {
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  const fn = (queryKey: QueryKey) => {
    const id = JSON.stringify(queryKey);
    if (pending.has(id)) return;
    pending.set(
      id,
      setTimeout(() => {
        pending.delete(id);
        void client.invalidateQueries({ queryKey });
      }, windowMs),
    );
  };
  fn.cancelAll = () => {
    for (const t of pending.values()) clearTimeout(t);
    pending.clear();
  };
  return fn;
}

// ---------- the provider

function parse<T>(e: MessageEvent): T | null {
  try {
    return JSON.parse(e.data as string) as T;
  } catch {
    return null;
  }
}

/** Mount once, inside QueryProvider, in the root layout. */
export function LiveEventsProvider({ children }: { children: ReactNode }): ReactNode {
  const client = useQueryClient();

  useEffect(() => {
    const invalidate = makeInvalidator(client);
    let source: EventSource | null = null;
    let downTimer: ReturnType<typeof setTimeout> | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | null = null;
    let pollTimer: ReturnType<typeof setInterval> | null = null;
    let retryMs = 3_000;
    let everLive = false;
    let stopped = false;

    const startPolling = () => {
      if (pollTimer !== null) return;
      pollTimer = setInterval(() => {
        void client.invalidateQueries({
          type: "active",
          // The full worker list costs a registry read per page: poll it at a slower pace.
          predicate: (q) =>
            q.queryKey[1] !== "everything" ||
            ((q.state.data as WorkersEverything | undefined)?.total ?? 0) <= 1000 ||
            Date.now() - q.state.dataUpdatedAt > 30_000,
        });
      }, FALLBACK_POLL_MS);
    };
    const stopPolling = () => {
      if (pollTimer !== null) clearInterval(pollTimer);
      pollTimer = null;
    };
    const markDown = () => {
      setStatus("down");
      startPolling();
    };

    const connect = () => {
      if (stopped) return;
      const es = new EventSource(`${API_BASE}/events`);
      source = es;

      es.onopen = () => {
        if (downTimer !== null) clearTimeout(downTimer);
        downTimer = null;
        retryMs = 3_000;
        stopPolling();
        setStatus("live");
        // The stream sends no snapshot: whatever was fetched before it opened (the page's
        // first load, or anything before a drop) may have missed a change. Catch up once;
        // on the first open a large full worker list is left to its own slower refresh.
        const openedAt = Date.now();
        void client.invalidateQueries({
          predicate: (q) =>
            q.state.dataUpdatedAt > 0 &&
            q.state.dataUpdatedAt < openedAt &&
            q.queryKey[0] !== "health" &&
            (everLive || !(q.queryKey[1] === "everything" && ((q.state.data as WorkersEverything | undefined)?.total ?? 0) > 1000)),
        });
        everLive = true;
      };
      es.onerror = () => {
        if (es.readyState === EventSource.CLOSED) {
          // The browser gave up (non-200 answer): retry ourselves, with backoff.
          es.close();
          markDown();
          retryTimer = setTimeout(connect, retryMs);
          retryMs = Math.min(retryMs * 2, 30_000);
          return;
        }
        if (status !== "down") setStatus("reconnecting");
        downTimer ??= setTimeout(markDown, DOWN_AFTER_MS);
      };

      es.addEventListener("bus", (e) => {
        const data = parse<BusEvent>(e);
        if (!data) return;
        pushBus(data);
        emit("bus", { ...data, seq: busSeq });
      });
      es.addEventListener("workers", (e) => {
        const data = parse<WorkersEvent>(e);
        if (!data) return;
        applyWorkers(client, { changed: data.changed ?? [], removed: data.removed ?? [] }, invalidate);
        emit("workers", data);
      });
      es.addEventListener("queues", (e) => {
        const data = parse<QueuesEvent>(e);
        if (!data) return;
        applyQueues(client, data, invalidate);
        emit("queues", data);
      });
      es.addEventListener("pools", (e) => {
        const data = parse<PoolsEvent>(e);
        if (!data) return;
        applyPools(client, data, invalidate);
        emit("pools", data);
      });
      es.addEventListener("streams", (e) => {
        const data = parse<StreamsEvent>(e);
        if (!data) return;
        applyStreams(client, data, invalidate);
        emit("streams", data);
      });
    };

    connect();
    // If the first connection never opens, do not wait forever before polling.
    downTimer = setTimeout(markDown, DOWN_AFTER_MS);

    return () => {
      stopped = true;
      source?.close();
      if (downTimer !== null) clearTimeout(downTimer);
      if (retryTimer !== null) clearTimeout(retryTimer);
      stopPolling();
      invalidate.cancelAll();
      setStatus("connecting");
    };
  }, [client]);

  return children;
}
