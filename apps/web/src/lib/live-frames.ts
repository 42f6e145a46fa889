// What travels between the tabs of one browser that share one live stream, and how a raw
// SSE frame becomes a cache update. Pure (no EventSource, no BroadcastChannel): the leader
// tab and its followers run the very same `routeFrame`, and the tests run it in Node.
import type { QueryClient, QueryKey } from "@tanstack/react-query";
import { BusEventSchema, PoolsEventSchema, QueuesEventSchema, StreamsEventSchema, SyncEventSchema, WorkersEventSchema } from "@fleet/schema";
import type { z } from "zod";

import { applyBulkJob, applyPools, applyQueues, applyStreams, applyWorkers, BULK_TOPIC } from "./live-cache";
import type { ScheduleRefetch } from "./refetch";

/**
 * `signed-out`: the stream answered 401 (the session expired or was revoked); it is
 * retried when a tab of this browser shows the session works again.
 */
export type LiveStatus = "connecting" | "live" | "reconnecting" | "down" | "signed-out";
export const LIVE_STATUSES: readonly LiveStatus[] = ["connecting", "live", "reconnecting", "down", "signed-out"];

/**
 * Every event of GET /api/v1/events and the @fleet/schema schema its `data:` is parsed by.
 * `sync` comes once per connection, after any replayed frames: whether the tab must refetch
 * (src/server/events/replay.ts).
 */
export const FRAME_SCHEMAS = {
  bus: BusEventSchema,
  workers: WorkersEventSchema,
  queues: QueuesEventSchema,
  pools: PoolsEventSchema,
  streams: StreamsEventSchema,
  sync: SyncEventSchema,
} as const;

export type LiveKind = keyof typeof FRAME_SCHEMAS;
export type LiveFrameData = { [K in LiveKind]: z.output<(typeof FRAME_SCHEMAS)[K]> };
export const LIVE_KINDS = Object.keys(FRAME_SCHEMAS) as readonly LiveKind[];

export type RoutedFrame = { [K in LiveKind]: { kind: K; data: LiveFrameData[K] } }[LiveKind];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isKind(kind: string): kind is LiveKind {
  return Object.hasOwn(FRAME_SCHEMAS, kind);
}

/**
 * What a frame of each kind would have patched: refetched when one arrives that cannot be
 * read (a console of another version behind the same address), so the tab does not keep
 * showing what the frame changed. The full worker lists are left to their own refresh (a
 * refetch reads the whole registry).
 */
const REFETCH_ON_BAD_FRAME: Partial<Record<LiveKind, QueryKey[]>> = {
  workers: [
    ["workers", "page"],
    ["workers", "detail"],
  ],
  queues: [["queues"]],
  pools: [["pools"]],
  streams: [["streams"]],
};

const warned = new Set<LiveKind>();

/**
 * Parses one frame by its schema and applies it to the tab's cache. Returns the parsed frame
 * for the tab's listeners, or null when the frame is unusable (not JSON, unknown kind, wrong
 * shape): one bad frame must not break the tab's stream. A `sync` frame that cannot be read
 * counts as `refetch` (the safe side).
 */
export function routeFrame(client: QueryClient, kind: string, raw: string, refetch: ScheduleRefetch): RoutedFrame | null {
  if (!isKind(kind)) return null;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    json = undefined;
  }
  const parsed = FRAME_SCHEMAS[kind].safeParse(json);
  if (!parsed.success) {
    if (kind === "sync") return { kind, data: { mode: "refetch" } };
    if (!warned.has(kind)) {
      warned.add(kind);
      console.warn(`[live] a ${kind} frame does not match its schema; dropped (what it would change is refetched)`, parsed.error.issues.slice(0, 3));
    }
    for (const key of REFETCH_ON_BAD_FRAME[kind] ?? []) refetch(key);
    return null;
  }
  const frame = { kind, data: parsed.data } as RoutedFrame;
  switch (frame.kind) {
    case "bus":
      // a bulk job's progress: the page that shows the job follows it live
      if (frame.data.topic === BULK_TOPIC) applyBulkJob(client, frame.data.payload);
      break;
    case "workers":
      applyWorkers(client, frame.data, refetch);
      break;
    case "queues":
      applyQueues(client, frame.data, refetch);
      break;
    case "pools":
      applyPools(client, frame.data, refetch);
      break;
    case "streams":
      applyStreams(client, frame.data, refetch);
      break;
  }
  return frame;
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
