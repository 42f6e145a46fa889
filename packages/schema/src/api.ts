// Shapes of the HTTP API v1 (../shared/API.md): responses the routes produce and the
// pages consume, request bodies and query strings the routes accept.
import { ERROR_GROUP_MAX } from "./error-group";
import { z } from "zod";
import { CatalogDocSchema, JsonObjectSchema, WorkerStateValueSchema } from "./redis";

// ---------- the one error envelope

export const ErrorCodeSchema = z.enum([
  "bad_request",
  "unauthenticated",
  "forbidden",
  "not_found",
  "conflict",
  "precondition_failed",
  "payload_too_large",
  "validation_failed",
  "backend_unavailable",
  "internal",
  // added by the console (API.md: "add, never rename")
  "unsupported_media_type",
  "misdirected_request",
  "too_many_requests",
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ErrorDetailSchema = z.object({ path: z.string(), message: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

const errorBody = <C extends z.ZodType<string>>(code: C) => z.object({ code, message: z.string(), details: z.array(ErrorDetailSchema).optional() });

export const ErrorEnvelopeSchema = z.object({ error: errorBody(ErrorCodeSchema) });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

/**
 * The envelope as a client reads it: API.md adds codes and never renames them, so a code
 * this build does not know yet is still an error with a message to show.
 */
export const ClientErrorEnvelopeSchema = z.object({ error: errorBody(z.string()) });
export type ClientErrorEnvelope = z.infer<typeof ClientErrorEnvelopeSchema>;

export const ERROR_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  validation_failed: 422,
  backend_unavailable: 503,
  internal: 500,
  unsupported_media_type: 415,
  misdirected_request: 421,
  too_many_requests: 429,
};

// ---------- values that may not be JSON or UTF-8

export const RawValueSchema = z.object({
  json: z.unknown().nullable(),
  text: z.string().nullable(),
  base64: z.string(),
  bytes: z.number().int().nonnegative(),
  truncated: z.boolean().optional(),
});
export type RawValue = z.infer<typeof RawValueSchema>;

// ---------- common query parameters

export const LimitSchema = z.coerce
  .number({ error: "limit must be a number" })
  .int("limit must be a whole number")
  .min(0, "limit must not be negative")
  .max(1000, "limit must be at most 1000");

export const OffsetSchema = z.coerce.number({ error: "offset must be a number" }).int("offset must be a whole number").min(0, "offset must not be negative");

export const PageQuerySchema = z.object({
  limit: LimitSchema.default(100),
  offset: OffsetSchema.default(0),
});

/** Largest `preview_bytes` a GET of raw values accepts: one answer stays a few tens of MiB at most. */
export const MAX_PREVIEW_BYTES = 16 * 1024 * 1024;
/** Bytes of a raw value shown before it is cut (API.md: "default 4 KiB"). */
export const DEFAULT_PREVIEW_BYTES = 4096;

export const PreviewBytesSchema = z.coerce
  .number({ error: "preview_bytes must be a number of bytes" })
  .int("preview_bytes must be a whole number of bytes")
  .min(1, "preview_bytes must be at least 1")
  .max(MAX_PREVIEW_BYTES, `preview_bytes must be at most ${MAX_PREVIEW_BYTES} (16 MiB)`);

/** `?preview_bytes=n` of every GET that answers raw values (an extension of API.md; default 4 KiB). */
export const PreviewQuerySchema = z.object({ preview_bytes: PreviewBytesSchema.default(DEFAULT_PREVIEW_BYTES) });

// ---------- workers

export const WorkerStatusSchema = z.enum(["running", "idle", "error", "offline"]);
export type WorkerStatus = z.infer<typeof WorkerStatusSchema>;

export const WorkerSchema = z.object({
  automation_type: z.string(),
  worker_id: z.string(),
  state: WorkerStateValueSchema.nullable(),
  status: WorkerStatusSchema,
  last_seen: z.number().nullable(),
  last_error: z.string().nullable(),
  config: JsonObjectSchema.nullable(),
  config_gen: z.number().int().nullable(),
  hardware: JsonObjectSchema.nullable(),
  stats: JsonObjectSchema.nullable(),
  /** Fields whose stored value did not parse. */
  corrupt: z.array(z.string()).optional(),
  /**
   * Since when the worker has reported this `last_error` (unix seconds), as far as the
   * console's error history knows it (GET /workers/{type}/{id}/errors); null when it does not.
   * Only in GET /workers and GET /workers/{type}/{id}, for a worker that has a last_error.
   */
  last_error_since: z.number().nullable().optional(),
});
export type Worker = z.infer<typeof WorkerSchema>;

/**
 * One entry of a worker's error history, as the console's watch saw it (at most one entry per
 * 10 s tick): `error` a new error (state ERROR, or a new last_error while running), `offline`
 * heartbeats stopped, `recovered` back to running or idle (or the error cleared).
 */
export const WorkerErrorEntrySchema = z.object({
  ts: z.number(),
  kind: z.enum(["error", "offline", "recovered"]),
  status: WorkerStatusSchema,
  /** The raw `state` field then (IDLE, RUNNING, ERROR or anything a worker wrote). */
  state: z.string().nullable(),
  error: z.string().nullable(),
  last_seen: z.number().nullable(),
});
export type WorkerErrorEntry = z.infer<typeof WorkerErrorEntrySchema>;

export const WorkerErrorHistorySchema = z.object({
  /** Newest first, at most the last 50. */
  items: z.array(WorkerErrorEntrySchema),
  /** Entries that did not parse (left out of items). */
  corrupt: z.number().int().nonnegative(),
});
export type WorkerErrorHistory = z.infer<typeof WorkerErrorHistorySchema>;

export const WorkerDetailSchema = WorkerSchema.extend({ history_len: z.number().int().nonnegative() });
export type WorkerDetail = z.infer<typeof WorkerDetailSchema>;

export const WorkerCountsSchema = z.object({
  running: z.number().int(),
  idle: z.number().int(),
  error: z.number().int(),
  offline: z.number().int(),
});
export type WorkerCounts = z.infer<typeof WorkerCountsSchema>;

export const WorkersSortSchema = z.enum(["name", "last_seen", "-last_seen"], {
  error: "sort must be name, last_seen or -last_seen",
});
export type WorkersSort = z.infer<typeof WorkersSortSchema>;

/** `GET /kv/{ns}`: `cursor` (console extension) pages with a cursor instead of `offset`; "0" starts. */
export const KvKeysQuerySchema = PageQuerySchema.extend({
  cursor: z
    .string()
    .max(4096, "cursor is too long")
    .regex(/^(0|o\d{1,15}|s[A-Za-z0-9_-]+)$/, "cursor must be 0 or the next_cursor of an earlier answer")
    .optional(),
});

/**
 * A console extension of GET /pools/{name} (apps/web/README.md): `cursor=0`, then each answer's
 * `next_cursor`: `o<n>` pages a small pool by its sorted ids, `s<n>` a large one by HSCAN.
 */
export const PoolItemsQuerySchema = PageQuerySchema.extend({
  cursor: z
    .string()
    .max(32, "cursor is too long")
    .regex(/^(0|o\d{1,15}|s\d{1,20})$/, "cursor must be 0 or the next_cursor of an earlier answer")
    .optional(),
});

export const WorkersQuerySchema = PageQuerySchema.extend({
  type: z.string().optional(),
  status: WorkerStatusSchema.optional(),
  q: z.string().max(200, "q must be at most 200 characters").optional(),
  /**
   * A console extension of API.md: `name` (type, then id: the contract's order),
   * `last_seen` (oldest first) or `-last_seen` (newest first); an unreadable last_seen sorts as the oldest.
   */
  sort: WorkersSortSchema.default("name"),
  /** A console extension (issue 14): only workers whose last_error normalises to this group (normalizeErrorMessage). */
  error_group: z.string().min(1, "error_group must not be empty").max(ERROR_GROUP_MAX, `error_group must be at most ${ERROR_GROUP_MAX} characters`).optional(),
});

export const WorkerListSchema = z.object({
  total: z.number().int(),
  counts: WorkerCountsSchema,
  workers: z.array(WorkerSchema),
});
export type WorkerList = z.infer<typeof WorkerListSchema>;

export const StatsQuerySchema = z.object({
  since: z.coerce.number({ error: "since must be unix seconds" }).finite().default(0),
  limit: LimitSchema.default(240),
});

export const StatsFramesSchema = z.object({
  frames: z.array(z.object({ ts: z.number(), frame: JsonObjectSchema.nullable(), raw: z.string().optional() })),
});
export type StatsFrames = z.infer<typeof StatsFramesSchema>;

export const ConfigBodySchema = JsonObjectSchema;
export const ConfigResultSchema = z.object({ config: JsonObjectSchema, config_gen: z.number().int() });
export type ConfigResult = z.infer<typeof ConfigResultSchema>;

// ---------- queues

export const QueueSchema = z.object({
  name: z.string(),
  pending: z.object({ high: z.number(), normal: z.number(), low: z.number(), total: z.number() }),
  processing: z.number(),
  overdue: z.number(),
  scheduled: z.number(),
  due: z.number(),
  dead: z.number(),
  /** Parts whose Redis key holds another type than Fleet writes there (read as empty); absent when none. */
  corrupt: z.array(z.string()).optional(),
});
export type Queue = z.infer<typeof QueueSchema>;

export const PrioritySchema = z.enum(["high", "normal", "low"]);
export type Priority = z.infer<typeof PrioritySchema>;

export const QueueDetailSchema = QueueSchema.extend({
  pending_items: z.array(z.object({ priority: PrioritySchema, task_id: z.string().nullable(), body: RawValueSchema })),
  processing_items: z.array(z.object({ id: z.string(), deadline: z.number(), overdue: z.boolean(), body: RawValueSchema.nullable() })),
  scheduled_items: z.array(z.object({ ready_at: z.number(), task_id: z.string().nullable(), body: RawValueSchema })),
});
export type QueueDetail = z.infer<typeof QueueDetailSchema>;

export const DeadLetterSchema = z.object({
  ref: z.string(),
  index: z.number().int(),
  body: RawValueSchema,
  task_id: z.string().nullable(),
});
export type DeadLetter = z.infer<typeof DeadLetterSchema>;

export const DeadLettersSchema = z.object({
  total: z.number().int(),
  items: z.array(DeadLetterSchema),
  /** `["dead"]` when the dead-letter key holds another Redis type (read as empty). */
  corrupt: z.array(z.string()).optional(),
});
export type DeadLetters = z.infer<typeof DeadLettersSchema>;

const Sha1RefSchema = z.string().regex(/^[0-9a-f]{40}$/, "a ref is the 40-hex SHA-1 of a dead letter");
export const DeadLetterActionBodySchema = z.union([
  z.strictObject({ refs: z.array(Sha1RefSchema).min(1, "give at least one ref").max(1000, "at most 1000 refs at once") }),
  z.strictObject({ all: z.literal(true) }),
]);
export type DeadLetterActionBody = z.infer<typeof DeadLetterActionBodySchema>;

export const TaskSubmissionSchema = z.strictObject({
  payload: JsonObjectSchema,
  priority: PrioritySchema.default("normal"),
});
export const SubmitTasksBodySchema = z.union([
  TaskSubmissionSchema,
  z.strictObject({
    tasks: z.array(TaskSubmissionSchema).min(1, "give at least one task").max(1000, "at most 1000 tasks in one request"),
  }),
]);
export type SubmitTasksBody = z.infer<typeof SubmitTasksBodySchema>;
/** What a client sends (priority may be left out). */
export type SubmitTasksInput = z.input<typeof SubmitTasksBodySchema>;

// ---------- automations

export const AutomationSchema = z.object({
  automation_type: z.string(),
  schemas: CatalogDocSchema.nullable(),
  workers: z.object({
    total: z.number().int(),
    running: z.number().int(),
    idle: z.number().int(),
    error: z.number().int(),
    offline: z.number().int(),
  }),
  queue: QueueSchema.nullable(),
  stream: z.object({ length: z.number().int() }).nullable(),
  corrupt: z.array(z.string()).optional(),
});
export type Automation = z.infer<typeof AutomationSchema>;

// ---------- pools

export const PoolSummarySchema = z.object({
  name: z.string(),
  size: z.number().int(),
  live: z.number().int(),
  expired: z.number().int(),
  claimed: z.number().int(),
  /** Live items with no claim: what a worker's claim can get now. */
  free: z.number().int(),
  /**
   * Present for a pool bigger than the console reads whole (5,000 items): live, expired,
   * claimed and free are estimates from a random sample of `sampled` items; size is exact.
   */
  estimated: z.object({ sampled: z.number().int() }).optional(),
  /** `["items"]` when the pool's key holds another Redis type (read as empty). */
  corrupt: z.array(z.string()).optional(),
});
export type PoolSummary = z.infer<typeof PoolSummarySchema>;

export type PoolAvailability = "empty" | "exhausted" | "low" | "ok";

/**
 * How much a pool has left to give: `exhausted` when no live item is free (exact counts
 * only: a sample that saw none says `low`), `low` when some live items are claimed and at most
 * 10 % of them (or 2) are free, `empty` without live items. One rule for the list, the pool page and
 * anything else that shows it.
 */
export function poolAvailability(p: Pick<PoolSummary, "live" | "free" | "estimated">): PoolAvailability {
  if (p.live === 0 && p.free === 0) return p.estimated ? "low" : "empty";
  if (p.free === 0) return p.estimated ? "low" : "exhausted";
  // a pool with every item free is never low, however small
  return p.free < p.live && p.free <= Math.max(2, Math.floor(p.live / 10)) ? "low" : "ok";
}

export const PoolItemSchema = z.object({
  id: z.string(),
  tags: JsonObjectSchema.nullable(),
  expires_at: z.number().nullable(),
  in_use_until: z.number().nullable(),
  payload: RawValueSchema.nullable(),
  expired: z.boolean().optional(),
  corrupt: z.array(z.string()).optional(),
  /**
   * What was masked because it looks like a secret (apps/web/src/server/api/secrets.ts):
   * JSON paths of payload members (`$.cookies`, `$.headers.Authorization`), `$` for a whole
   * payload that is one (a cookie header, a JWT), `tags.<name>` for tags. Absent when nothing
   * was. The masked bytes never leave the server; POST .../reveal answers them to an operator.
   */
  masked: z.array(z.string()).optional(),
});
export type PoolItem = z.infer<typeof PoolItemSchema>;

// ---------- streams

export const StreamSummarySchema = z.object({
  name: z.string(),
  length: z.number().int(),
  oldest: z.number().nullable(),
  newest: z.number().nullable(),
  /** `["entries"]` when the stream's key holds another Redis type (read as empty). */
  corrupt: z.array(z.string()).optional(),
});
export type StreamSummary = z.infer<typeof StreamSummarySchema>;

export const StreamQuerySchema = z.object({
  limit: LimitSchema.default(100),
  order: z.enum(["newest", "oldest"], { error: "order must be newest or oldest" }).default("newest"),
});

// ---------- state: locks, counters, kv

export const LockSchema = z.object({ name: z.string(), ttl_ms: z.number().int().nullable() });
export type Lock = z.infer<typeof LockSchema>;
export const CounterSchema = z.object({
  name: z.string(),
  value: z.number().int().nullable(),
  raw: z.string().optional(),
  corrupt: z.array(z.string()).optional(),
});
export type Counter = z.infer<typeof CounterSchema>;
export const CounterBodySchema = z.strictObject({
  value: z.number({ error: "value must be an integer" }).int("value must be an integer").min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
});
export type CounterBody = z.infer<typeof CounterBodySchema>;
export const KvNamespaceSchema = z.object({ ns: z.string(), keys: z.number().int() });
export type KvNamespace = z.infer<typeof KvNamespaceSchema>;
export const KvKeySchema = z.object({ key: z.string(), ttl_ms: z.number().int().nullable(), bytes: z.number().int() });
export type KvKey = z.infer<typeof KvKeySchema>;
export const KvValueSchema = z.object({ value: RawValueSchema, ttl_ms: z.number().int().nullable() });
export type KvValue = z.infer<typeof KvValueSchema>;
export const KvPutBodySchema = z.strictObject({
  value: z.unknown().refine((v) => v !== undefined, "value is required"),
  ttl_seconds: z
    .number()
    .int("ttl_seconds must be a whole number")
    .positive("ttl_seconds must be positive")
    .max(10 * 365 * 86400)
    .optional(),
});
/** What a client sends. */
export type KvPutInput = z.input<typeof KvPutBodySchema>;

// ---------- health

export const HealthSchema = z.object({
  ok: z.boolean(),
  backend: z.enum(["redis", "memory"]),
  redis: z.object({
    version: z.string(),
    latency_ms: z.number(),
    aof_enabled: z.boolean().nullable(),
    used_memory_bytes: z.number().nullable(),
  }),
});
export type Health = z.infer<typeof HealthSchema>;

// ---------- response envelopes of the remaining routes (added with the route handlers)

/** Every list answers `total` (before paging) besides its page. */
export const PageInfoSchema = z.object({ total: z.number().int().nonnegative() });

export const DeletedSchema = z.object({ deleted: z.boolean() });
export type Deleted = z.infer<typeof DeletedSchema>;

export const AutomationListSchema = PageInfoSchema.extend({ automations: z.array(AutomationSchema) });
export type AutomationList = z.infer<typeof AutomationListSchema>;

export const ConfigRolloutResultSchema = z.object({
  workers: z.array(z.object({ worker_id: z.string(), config_gen: z.number().int() })),
});
export type ConfigRolloutResult = z.infer<typeof ConfigRolloutResultSchema>;

export const SubmitTasksResultSchema = z.object({ ids: z.array(z.string().regex(/^[0-9a-f]{32}$/)) });
export type SubmitTasksResult = z.infer<typeof SubmitTasksResultSchema>;

export const QueueListSchema = PageInfoSchema.extend({ queues: z.array(QueueSchema) });
export type QueueList = z.infer<typeof QueueListSchema>;

export const QueueDetailQuerySchema = z.object({ limit: LimitSchema.default(100) });

export const DeadLetterRequeueResultSchema = z.object({ requeued: z.number().int(), missing: z.array(z.string()) });
export type DeadLetterRequeueResult = z.infer<typeof DeadLetterRequeueResultSchema>;
export const DeadLetterDeleteResultSchema = z.object({ deleted: z.number().int(), missing: z.array(z.string()) });
export type DeadLetterDeleteResult = z.infer<typeof DeadLetterDeleteResultSchema>;
export const SweepResultSchema = z.object({ requeued: z.number().int(), orphaned: z.array(z.string()) });
export type SweepResult = z.infer<typeof SweepResultSchema>;

export const PoolListSchema = PageInfoSchema.extend({ pools: z.array(PoolSummarySchema) });
export type PoolList = z.infer<typeof PoolListSchema>;
export const PoolDetailSchema = PageInfoSchema.extend({
  items: z.array(PoolItemSchema),
  corrupt: z.array(z.string()).optional(),
  /**
   * A console extension (apps/web/README.md): with `cursor`, where the next page starts
   * (null at the end); also on a large pool's first page without one.
   */
  next_cursor: z.string().nullable().optional(),
});
export type PoolDetail = z.infer<typeof PoolDetailSchema>;
export const PoolDeletedSchema = z.object({ deleted: z.boolean(), items: z.number().int() });
export type PoolDeleted = z.infer<typeof PoolDeletedSchema>;
export const PoolReleasedSchema = z.object({ released: z.boolean() });
export type PoolReleased = z.infer<typeof PoolReleasedSchema>;

export const StreamListSchema = PageInfoSchema.extend({ streams: z.array(StreamSummarySchema) });
export type StreamList = z.infer<typeof StreamListSchema>;
export const StreamEntrySchema = z.object({ score: z.number(), envelope: RawValueSchema });
export const StreamDetailSchema = z.object({ length: z.number().int(), entries: z.array(StreamEntrySchema), corrupt: z.array(z.string()).optional() });
export type StreamDetail = z.infer<typeof StreamDetailSchema>;

export const LockListSchema = PageInfoSchema.extend({ locks: z.array(LockSchema) });
export type LockList = z.infer<typeof LockListSchema>;
export const CounterListSchema = PageInfoSchema.extend({ counters: z.array(CounterSchema) });
export type CounterList = z.infer<typeof CounterListSchema>;
export const KvNamespaceListSchema = PageInfoSchema.extend({ namespaces: z.array(KvNamespaceSchema) });
export type KvNamespaceList = z.infer<typeof KvNamespaceListSchema>;
export const KvKeyListSchema = PageInfoSchema.extend({
  keys: z.array(KvKeySchema),
  /**
   * Console extension (`?cursor=`): where the next page starts, null after the last one.
   * Present when the request gave a cursor, or when the namespace is too large to be
   * answered by offset.
   */
  next_cursor: z.string().nullable().optional(),
});
export type KvKeyList = z.infer<typeof KvKeyListSchema>;

/**
 * The strings the API shows a Python worker's non-finite floats as (`json.dumps` writes bare
 * `NaN`, `Infinity`, `-Infinity`, which JSON cannot carry): the server's jsonForBrowser makes
 * them, keepNonFinite and the audit trail's revert read them back, the config editor's schema
 * check takes them as numbers.
 */
const NON_FINITE_TOKENS: ReadonlySet<string> = new Set(["NaN", "Infinity", "-Infinity"]);

export function isNonFiniteToken(v: unknown): v is "NaN" | "Infinity" | "-Infinity" {
  return typeof v === "string" && NON_FINITE_TOKENS.has(v);
}
