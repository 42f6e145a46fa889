// What travels between the tabs of one browser that share one live stream, and how a raw
// SSE frame becomes a cache update. Pure (no EventSource, no BroadcastChannel): the leader
// tab and its followers run the very same `routeFrame`, and the tests run it in Node.
import type { QueryClient } from "@tanstack/react-query";
import type { BusEvent, PoolsEvent, QueuesEvent, StreamsEvent, SyncEvent, WorkersEvent } from "@fleet/schema";

import { applyBulkJob, applyPools, applyQueues, applyStreams, applyWorkers, BULK_TOPIC, type Invalidate } from "./live-cache";

/**
 * `signed-out`: the stream answered 401 (the session expired or was revoked); it is
 * retried when a tab of this browser shows the session works again.
 */
export type LiveStatus = "connecting" | "live" | "reconnecting" | "down" | "signed-out";
export const LIVE_STATUSES: readonly LiveStatus[] = ["connecting", "live", "reconnecting", "down", "signed-out"];

export interface LiveFrameData {
  bus: BusEvent;
  workers: WorkersEvent;
  queues: QueuesEvent;
  pools: PoolsEvent;
  streams: StreamsEvent;
  /** Once per connection, after any replayed frames: whether the tab must refetch (src/server/events/replay.ts). */
  sync: SyncEvent;
}
export type LiveKind = keyof LiveFrameData;
export const LIVE_KINDS: readonly LiveKind[] = ["bus", "workers", "queues", "pools", "streams", "sync"];

export type RoutedFrame = { [K in LiveKind]: { kind: K; data: LiveFrameData[K] } }[LiveKind];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Parses one frame and applies it to the tab's cache. Returns the parsed frame for the
 * tab's listeners, or null when the frame is unusable (not JSON, unknown kind, wrong shape):
 * one bad frame must not break the tab's stream.
 */
export function routeFrame(client: QueryClient, kind: string, raw: string, invalidate: Invalidate): RoutedFrame | null {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isObject(data)) return null;
  switch (kind) {
    case "bus": {
      if (typeof data.topic !== "string") return null;
      // a bulk job's progress: the page that shows the job follows it live
      if (data.topic === BULK_TOPIC) applyBulkJob(client, data.payload);
      return { kind, data: data as unknown as BusEvent };
    }
    case "workers": {
      const ev: WorkersEvent = {
        changed: Array.isArray(data.changed) ? (data.changed as WorkersEvent["changed"]) : [],
        removed: Array.isArray(data.removed) ? (data.removed as WorkersEvent["removed"]) : [],
      };
      applyWorkers(client, ev, invalidate);
      return { kind, data: data as unknown as WorkersEvent };
    }
    case "queues": {
      if (!Array.isArray(data.queues)) return null;
      const ev = data as unknown as QueuesEvent;
      applyQueues(client, ev, invalidate);
      return { kind, data: ev };
    }
    case "pools": {
      if (!Array.isArray(data.pools)) return null;
      const ev = data as unknown as PoolsEvent;
      applyPools(client, ev, invalidate);
      return { kind, data: ev };
    }
    case "streams": {
      if (!Array.isArray(data.streams)) return null;
      const ev = data as unknown as StreamsEvent;
      applyStreams(client, ev, invalidate);
      return { kind, data: ev };
    }
    case "sync": {
      // an unknown mode is treated as the safe one: refetch
      const mode = data.mode === "fresh" || data.mode === "replayed" ? data.mode : "refetch";
      return {
        kind,
        data: { mode, ...(typeof data.reason === "string" ? { reason: data.reason } : {}), ...(typeof data.replayed === "number" ? { replayed: data.replayed } : {}) },
      };
    }
    default:
      return null;
  }
}

// ---------- the tabs' channel

/**
 * Leader to followers: `frame` (every SSE frame, raw), `status` (the stream's, on every
 * change, on request and every few seconds), `bye` (the leader tab is going away).
 * Followers to the leader: `hello` (a new tab: tell me the status; and if the stream is not
 * live, try now: the tab may have just signed in), `poke` (reconnect now: a tab saw a 401,
 * or saw the session work again while the stream says signed-out).
 */
export type TabMessage =
  | { t: "frame"; kind: LiveKind; id: string; data: string }
  | { t: "status"; status: LiveStatus }
  | { t: "bye" }
  | { t: "hello" }
  | { t: "poke"; reason: "auth" | "session-ok" };

/** Validates what arrived on the channel: another build of the console may share it. */
export function decodeTabMessage(msg: unknown): TabMessage | null {
  if (!isObject(msg) || typeof msg.t !== "string") return null;
  switch (msg.t) {
    case "frame":
      if (!(LIVE_KINDS as readonly unknown[]).includes(msg.kind) || typeof msg.data !== "string") return null;
      return { t: "frame", kind: msg.kind as LiveKind, id: typeof msg.id === "string" ? msg.id : "", data: msg.data };
    case "status":
      if (!(LIVE_STATUSES as readonly unknown[]).includes(msg.status)) return null;
      return { t: "status", status: msg.status as LiveStatus };
    case "bye":
    case "hello":
      return { t: msg.t };
    case "poke":
      return { t: "poke", reason: msg.reason === "auth" ? "auth" : "session-ok" };
    default:
      return null;
  }
}

/** Only these statuses mean "nothing arrives": the tab polls its queries meanwhile. */
export function needsPolling(status: LiveStatus): boolean {
  return status === "down" || status === "signed-out";
}
