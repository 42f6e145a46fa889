// What an automation declares: its type, its kind, its zod schemas and its `run`.
import { z } from "zod";
import type { AutomationContext } from "./context";

export type AutomationKind = "batch" | "continuous";

/**
 * Config keys the runtime itself reads. Automations extend this object so every config
 * form shows them; a stored config of `{}` is valid because each key has a default.
 */
export const runtimeConfigShape = {
  slots: z.number().int().min(0).max(64).default(1).meta({ title: "Slots", description: "Concurrent slots this worker runs (0 pauses it)." }),
  max_attempts: z.number().int().min(1).max(100).default(3).meta({ title: "Max attempts", description: "Runs of a task before it is dead-lettered." }),
  visibility_seconds: z.number().int().min(1).max(86_400).default(30).meta({
    title: "Task lease (seconds)",
    description: "How long a worker may hold a task before it counts as lost; past it the sweep puts the task back on the queue.",
  }),
  retry_base_ms: z.number().int().min(0).max(3_600_000).default(1000).meta({ title: "Retry base delay (ms)", description: "First retry delay; doubles on every further attempt." }),
  retry_max_ms: z.number().int().min(0).max(86_400_000).default(60_000).meta({ title: "Retry max delay (ms)", description: "Upper bound of the retry delay." }),
};

export const RuntimeConfigSchema = z.object(runtimeConfigShape);
export type RuntimeConfig = z.infer<typeof RuntimeConfigSchema>;

/** A config schema: a zod object whose output carries the runtime keys (extend `runtimeConfigShape`). */
// biome-ignore lint/suspicious/noExplicitAny: an automation's own config keys have any types; its zod input is not ours to know
export type ConfigSchema = z.ZodType<RuntimeConfig & Record<string, any>, any>;

export interface Task<P> {
  id: string;
  payload: P;
  /** Failed runs so far (0 on the first delivery). */
  attempts: number;
  /** The error of the previous failed run, if any. */
  lastError: string | null;
  /** The body as reserved. */
  body: Record<string, unknown>;
  /** The body's exact bytes as reserved (integers beyond 2^53 and `1.0` as written). */
  raw: Buffer;
}

interface AutomationBase<C extends ConfigSchema, O extends z.ZodType | undefined> {
  /** The automation type: worker keys, queue, stream and catalog entry are named after it. */
  type: string;
  config: C;
  output?: O;
  description?: string;
}

type OutputOf<O> = O extends z.ZodType ? z.input<O> : unknown;

export interface BatchAutomation<
  C extends ConfigSchema = ConfigSchema,
  P extends z.ZodType | undefined = z.ZodType | undefined,
  O extends z.ZodType | undefined = z.ZodType | undefined,
> extends AutomationBase<C, O> {
  kind: "batch";
  taskPayload?: P;
  /** Queue to consume; defaults to the type. */
  queue?: string;
  /** Return a value to emit it to the automation's stream; throw to fail the attempt. */
  run(ctx: AutomationContext<z.output<C>>, task: Task<P extends z.ZodType ? z.output<P> : unknown>): Promise<OutputOf<O> | undefined | void>;
}

export interface ContinuousAutomation<C extends ConfigSchema = ConfigSchema, O extends z.ZodType | undefined = z.ZodType | undefined> extends AutomationBase<C, O> {
  kind: "continuous";
  taskPayload?: undefined;
  /** Called in a loop per slot; pace it with `ctx.sleep`. A returned value is emitted. Throwing counts as a slot crash. */
  run(ctx: AutomationContext<z.output<C>>): Promise<OutputOf<O> | undefined | void>;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds automations of every type; `unknown` would clash with their run() parameters
export type Automation = BatchAutomation<any, any, any> | ContinuousAutomation<any, any>;

const TYPE_RE = /^[^\s|]+$/;

export function defineAutomation<C extends ConfigSchema, P extends z.ZodType | undefined = undefined, O extends z.ZodType | undefined = undefined>(
  def: BatchAutomation<C, P, O>,
): BatchAutomation<C, P, O>;
export function defineAutomation<C extends ConfigSchema, O extends z.ZodType | undefined = undefined>(def: ContinuousAutomation<C, O>): ContinuousAutomation<C, O>;
export function defineAutomation(def: Automation): Automation {
  // `|` separates type and id in `wkrs:all`; whitespace makes keys unreadable in redis-cli
  if (!TYPE_RE.test(def.type)) throw new TypeError(`automation type ${JSON.stringify(def.type)} must be non-empty, without whitespace or '|'`);
  if (def.kind !== "batch" && def.kind !== "continuous") throw new TypeError(`automation kind must be batch or continuous`);
  const probe = def.config.safeParse({});
  if (!probe.success) throw new TypeError(`automation ${def.type}: config {} must be valid (give every key a default): ${probe.error.message}`);
  return def;
}

export function queueOf(automation: Automation): string {
  return automation.kind === "batch" ? (automation.queue ?? automation.type) : automation.type;
}
