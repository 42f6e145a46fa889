// Every value format Fleet keeps in Redis (../shared/spec/README.md, "Key layout").
// These parse what is stored; they do not write it (the backend's pyJsonDumps does).
import { z } from "zod";

/** Any JSON object; Fleet's dict-shaped values. */
export const JsonObjectSchema = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObjectSchema>;

/** `wkr:<type>:<wid>:hardware`: what a worker reports of its host. Free-form beyond these. */
export const HardwareSchema = z.looseObject({
  hostname: z.string().optional(),
  cpus: z.number().optional(),
  memory: z.number().optional(),
  os: z.string().optional(),
  runtime: z.string().optional(),
});
export type Hardware = z.infer<typeof HardwareSchema>;

/** `wkr:<type>:<wid>:config`: the merged config dict. */
export const WorkerConfigSchema = JsonObjectSchema;
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;

/** `wkr:<type>:<wid>:gen`: a non-negative integer as ASCII. */
export const ConfigGenTextSchema = z
  .string()
  .regex(/^\d+$/, "config gen must be a non-negative integer")
  .transform((s) => Number(s));

export const WorkerStateValueSchema = z.enum(["IDLE", "RUNNING", "ERROR"]);
export type WorkerStateValue = z.infer<typeof WorkerStateValueSchema>;

/** `wkr:<type>:<wid>:state` hash, as stored: every field a string. */
export const WorkerStateHashSchema = z.object({
  state: WorkerStateValueSchema,
  /** unix seconds as Python's str(float) */
  last_seen: z.string().regex(/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, "last_seen must be unix seconds"),
  /** "" when none */
  last_error: z.string(),
});
export type WorkerStateHash = z.infer<typeof WorkerStateHashSchema>;

/** `wkr:<type>:<wid>:stats` and each `stats:history` member: a stats frame. Numeric fields chart. */
export const StatsFrameSchema = JsonObjectSchema;
export type StatsFrame = z.infer<typeof StatsFrameSchema>;

/** A JSON Schema document (as Pydantic or zod emit them); kept opaque. */
export const JsonSchemaDocSchema = z.union([JsonObjectSchema, z.boolean()]);

/** `fleet:catalog` value: an automation's declared schemas. */
export const CatalogDocSchema = z.object({
  config: JsonSchemaDocSchema.nullable(),
  output: JsonSchemaDocSchema.nullable(),
  task_payload: JsonSchemaDocSchema.nullable(),
});
export type CatalogDoc = z.infer<typeof CatalogDocSchema>;

/** `fleet:pool:<name>` field value: `{"p": base64 payload, "t": tags, "x": expires_at | null}`. */
export const PoolItemDocSchema = z.object({
  p: z.base64(),
  t: JsonObjectSchema,
  x: z.number().nullable().optional(),
});
export type PoolItemDoc = z.infer<typeof PoolItemDocSchema>;

/** A 32-hex task id, as the console and the Python master mint them (uuid4().hex). */
export const TaskIdSchema = z.string().regex(/^[0-9a-f]{32}$/, "task id must be 32 lowercase hex digits");

/** `fleet:queue:<name>` entries: `{"id", "payload"}`; runtimes add `attempts`, `last_error`. */
export const TaskBodySchema = z.looseObject({
  id: z.union([z.string().min(1), z.number()]),
  payload: z.unknown(),
  attempts: z.number().int().nonnegative().optional(),
  last_error: z.string().nullable().optional(),
});
export type TaskBody = z.infer<typeof TaskBodySchema>;

/** `fleet:lock:<name>`: Python's secrets.token_hex(16). */
export const LockTokenSchema = z.string().regex(/^[0-9a-f]{32}$/, "lock token must be 32 lowercase hex digits");

/** `fleet:counter:<name>`: an integer as ASCII. */
export const CounterTextSchema = z
  .string()
  .regex(/^-?\d+$/, "counter must be an integer")
  .transform((s) => Number(s));

/**
 * `stream:<name>` members: the bytes a worker emitted. Fleet's runtimes emit a JSON
 * envelope; anything else is kept as raw bytes (see RawValue in the API).
 */
export const StreamEnvelopeSchema = z.looseObject({
  ts: z.number().optional(),
  worker_id: z.string().optional(),
  automation_type: z.string().optional(),
  data: z.unknown().optional(),
});
export type StreamEnvelope = z.infer<typeof StreamEnvelopeSchema>;
