// Error groups and bulk actions on the worker list (issue 14.3 and 14.4): the shapes of
// GET /errors, GET /queues/{name}/errors, POST /workers/bulk-remove and POST /workers/bulk-config.
import { z } from "zod";

import { LimitSchema } from "./api";
import { AuditEntryIdSchema } from "./audit";
import { ERROR_GROUP_MAX } from "./error-group";
import { JsonObjectSchema } from "./redis";

/** Newest dead letters read per queue by GET /queues/{name}/errors. */
export const QUEUE_ERRORS_DEAD_READ = 5000;
/** Newest dead letters read per queue by GET /errors (fleet-wide)... */
export const FLEET_ERRORS_DEAD_READ = 1000;
/** ...and in all, over the queues with the most dead letters first. */
export const FLEET_ERRORS_DEAD_BUDGET = 20_000;
/** How long a computed answer is served again (seconds): the stated freshness. */
export const ERRORS_MAX_AGE_SECONDS = 10;
/** Characters of a group's example message. */
export const ERROR_SAMPLE_MAX = 300;

export const ErrorsQuerySchema = z.object({ limit: LimitSchema.default(50) });

export const ErrorGroupSchema = z.object({
  group: z.string().describe("the normalised message (numbers, ids, urls, hex and quoted values replaced): the key of the group"),
  sample: z.string().describe(`one message of the group as it was written, cut at ${ERROR_SAMPLE_MAX} characters`),
  count: z.number().int().describe("dead letters read plus workers showing it"),
  dead: z.number().int().describe("dead letters among those read whose last_error is in the group"),
  workers: z.number().int().describe("workers whose last_error is in the group now"),
  first_seen: z.number().nullable().describe("oldest last_seen (unix seconds) of the workers showing it; null when only dead letters show it (a dead letter carries no time)"),
  last_seen: z.number().nullable().describe("newest last_seen of the workers showing it; null when only dead letters show it"),
  newest_dead_rank: z
    .number()
    .int()
    .nullable()
    .describe("1 when the newest dead letter of its queue is in the group, k when the k-th newest is (the best over queues); null without dead letters"),
  automations: z.array(z.string()).describe("automation types affected: the workers' types and the queues' names, sorted"),
  queues: z.array(z.object({ name: z.string(), dead: z.number().int() })).describe("dead letters of the group per queue, most first"),
});
export type ErrorGroup = z.infer<typeof ErrorGroupSchema>;

export const ErrorsScanSchema = z.object({
  dead_read_per_queue: z.number().int().describe("the newest this many dead letters of each queue read are grouped"),
  queues: z.array(z.object({ name: z.string(), dead: z.number().int(), read: z.number().int() })).describe("queues whose dead letters were read"),
  queues_not_read: z.number().int().describe("queues with dead letters left out by the budget (fleet-wide only)"),
  dead_without_error: z.number().int().describe("dead letters read that carry no last_error"),
  dead_unreadable: z.number().int().describe("dead letters read that are not a JSON object"),
  workers: z.number().int().describe("workers read"),
  workers_with_error: z.number().int(),
});

export const ErrorGroupsSchema = z.object({
  total_groups: z.number().int(),
  groups: z.array(ErrorGroupSchema).describe("most frequent first, then by group"),
  scanned: ErrorsScanSchema,
  computed_at: z.number().describe("unix seconds when the groups were computed"),
  max_age_seconds: z.number().int().describe("answers are computed at most this often and may be this old"),
});
export type ErrorGroups = z.infer<typeof ErrorGroupsSchema>;

const WorkerRefBodySchema = z.strictObject({
  automation_type: z.string().min(1, "automation_type must not be empty").max(1000),
  worker_id: z.string().min(1, "worker_id must not be empty").max(1000),
});

/** The filter of the worker list, as GET /workers takes it (status aside: a bulk removal is of offline workers). */
export const WorkerFilterBodySchema = z.strictObject({
  type: z.string().min(1).max(1000).optional(),
  q: z.string().max(200, "q must be at most 200 characters").optional(),
  error_group: z.string().min(1).max(ERROR_GROUP_MAX).optional(),
});
export type WorkerFilterBody = z.infer<typeof WorkerFilterBodySchema>;

/** At most this many workers named in one bulk request. */
export const MAX_BULK_WORKERS = 10_000;

export const BulkRemoveWorkersBodySchema = z.union([
  z.strictObject({
    workers: z.array(WorkerRefBodySchema).min(1, "name at least one worker").max(MAX_BULK_WORKERS, `at most ${MAX_BULK_WORKERS} workers at once`),
  }),
  z.strictObject({
    all: z.literal(true),
    filter: WorkerFilterBodySchema,
    expected: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("the count the confirmation named: 409 and nothing removed when the offline workers matching the filter are now another number"),
  }),
]);
export type BulkRemoveWorkersBody = z.infer<typeof BulkRemoveWorkersBodySchema>;

export const BulkRemoveWorkersResultSchema = z.object({
  requested: z.number().int(),
  removed: z.number().int(),
  kept_online: z.array(WorkerRefBodySchema.strip()).describe("offline when checked, reporting again by the time of removal: kept"),
  missing: z.array(WorkerRefBodySchema.strip()).describe("no longer there"),
});
export type BulkRemoveWorkersResult = z.infer<typeof BulkRemoveWorkersResultSchema>;

/** At most this many workers in one bulk config change: their writes are one atomic script. */
export const MAX_BULK_CONFIG_WORKERS = 1000;

/**
 * One change to selected workers of one automation: either one merge `patch` for all of them,
 * or (the audit trail's "revert to before" of a rollout, issue 19.5) each worker's whole new
 * `config`. Either way each worker names the generation the review showed.
 */
export const BulkConfigBodySchema = z
  .strictObject({
    automation_type: z.string().min(1).max(1000),
    patch: JsonObjectSchema.optional().describe("a JSON merge patch (RFC 7386) applied to each worker's config; absent when every worker gives its own config"),
    intent: z.enum(["revert"]).optional().describe("what the change is for, recorded in the audit entry: revert = the audit trail's revert to before"),
    revert_of: AuditEntryIdSchema.optional().describe(
      "with intent=revert: the audit entry reverted; a Python NaN / Infinity its before held, sent back as the string the API showed, is written as the number",
    ),
    workers: z
      .array(
        z.strictObject({
          worker_id: z.string().min(1).max(1000),
          config_gen: z.number().int().min(0).describe("the generation the review showed"),
          config: JsonObjectSchema.optional().describe("this worker's whole new config (instead of the patch)"),
        }),
      )
      .min(1, "name at least one worker")
      .max(MAX_BULK_CONFIG_WORKERS, `at most ${MAX_BULK_CONFIG_WORKERS} workers at once`),
  })
  .superRefine((b, ctx) => {
    if (b.revert_of !== undefined && b.intent !== "revert") ctx.addIssue({ code: "custom", path: ["revert_of"], message: "revert_of goes with intent=revert" });
    const own = b.workers.filter((w) => w.config !== undefined).length;
    if (b.patch !== undefined && own > 0) ctx.addIssue({ code: "custom", path: ["patch"], message: "give either one patch or a config per worker, not both" });
    else if (b.patch === undefined && own === 0) ctx.addIssue({ code: "custom", path: ["patch"], message: "give a patch, or a config for every worker" });
    else if (b.patch === undefined && own < b.workers.length) {
      const i = b.workers.findIndex((w) => w.config === undefined);
      ctx.addIssue({ code: "custom", path: ["workers", i, "config"], message: "without a patch every worker needs its config" });
    }
  });
export type BulkConfigBody = z.infer<typeof BulkConfigBodySchema>;

export const BulkConfigResultSchema = z.object({
  workers: z.array(z.object({ worker_id: z.string(), config_gen: z.number().int() })),
  unchanged: z.number().int().describe("workers the patch would not change: left alone"),
});
export type BulkConfigResult = z.infer<typeof BulkConfigResultSchema>;

/** The URL of the dead letters of a group: the search page's filter (issue 14.1), `error_group = "<group>"`. */
export function errorGroupSearchHref(queue: string, group: string): string {
  const where = `error_group = ${JSON.stringify(group)}`;
  return `/queues/${encodeURIComponent(queue)}/search?in=dead&where=${encodeURIComponent(where)}`;
}

/** The worker list filtered to a group. */
export function errorGroupWorkersHref(group: string, type?: string): string {
  const q = new URLSearchParams();
  if (type !== undefined) q.set("type", type);
  q.set("error_group", group);
  return `/workers?${q.toString()}`;
}
