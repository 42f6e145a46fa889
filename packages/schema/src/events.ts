// The SSE event union of GET /api/v1/events (../shared/API.md, "Live events").
import { z } from "zod";
import { PoolSummarySchema, QueueSchema, StreamSummarySchema, WorkerSchema } from "./api";

export const BusEventSchema = z.object({
  topic: z.string(),
  payload: z.unknown(),
  received_at: z.number(),
});
export type BusEvent = z.infer<typeof BusEventSchema>;

export const WorkersEventSchema = z.object({
  changed: z.array(WorkerSchema),
  removed: z.array(z.object({ automation_type: z.string(), worker_id: z.string() })),
});
export type WorkersEvent = z.infer<typeof WorkersEventSchema>;

export const QueuesEventSchema = z.object({ queues: z.array(QueueSchema), removed: z.array(z.string()).optional() });
export type QueuesEvent = z.infer<typeof QueuesEventSchema>;

export const PoolsEventSchema = z.object({ pools: z.array(PoolSummarySchema), removed: z.array(z.string()).optional() });
export type PoolsEvent = z.infer<typeof PoolsEventSchema>;

export const StreamsEventSchema = z.object({ streams: z.array(StreamSummarySchema), removed: z.array(z.string()).optional() });
export type StreamsEvent = z.infer<typeof StreamsEventSchema>;

/**
 * Sent once per connection, after any replayed frames (issue 15.3): `fresh` (no Last-Event-ID:
 * catch up once), `replayed` (everything missed came again just before this frame: nothing to
 * refetch), `refetch` (what was missed cannot be replayed: refetch everything shown).
 */
export const SyncEventSchema = z.object({
  mode: z.enum(["fresh", "replayed", "refetch"]),
  replayed: z.number().int().optional(),
  reason: z.string().optional(),
});
export type SyncEvent = z.infer<typeof SyncEventSchema>;

export const LiveEventSchema = z.discriminatedUnion("event", [
  z.object({ event: z.literal("bus"), data: BusEventSchema }),
  z.object({ event: z.literal("workers"), data: WorkersEventSchema }),
  z.object({ event: z.literal("queues"), data: QueuesEventSchema }),
  z.object({ event: z.literal("pools"), data: PoolsEventSchema }),
  z.object({ event: z.literal("streams"), data: StreamsEventSchema }),
  z.object({ event: z.literal("sync"), data: SyncEventSchema }),
]);
export type LiveEvent = z.infer<typeof LiveEventSchema>;
export type LiveEventName = LiveEvent["event"];

/** What the console publishes after its own writes. */
export const ConfigChangedMessageSchema = z.object({
  automation_type: z.string(),
  worker_id: z.string(),
  config_gen: z.number().int(),
});
export const AdminMessageSchema = z.looseObject({ action: z.string() });
