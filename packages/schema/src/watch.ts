// Shapes of the console's watch (issue 15): queue history answers, the alert rules document
// an admin edits (validated by this zod schema on the server, by its JSON Schema export in
// the browser), firing alerts, deliveries and alert history.
import { z } from "zod";

// ---------------------------------------------------------------- history

export const HistoryRangeSchema = z.enum(["1h", "24h", "30d"]);
export type HistoryRangeName = z.infer<typeof HistoryRangeSchema>;
export const HistoryQuerySchema = z.object({ range: HistoryRangeSchema.default("1h") });

/** Columns of points, one entry per step (null where no point was recorded). */
export const HistoryPointsSchema = z.object({
  ts: z.array(z.number()),
  pending_high: z.array(z.number().nullable()),
  pending_normal: z.array(z.number().nullable()),
  pending_low: z.array(z.number().nullable()),
  processing: z.array(z.number().nullable()),
  overdue: z.array(z.number().nullable()),
  scheduled: z.array(z.number().nullable()),
  dead: z.array(z.number().nullable()),
  finished_per_minute: z.array(z.number().nullable()),
  oldest_pending_age_seconds: z.array(z.number().nullable()),
  /** True where `finished_per_minute` is only a lower bound. */
  finished_at_least: z.array(z.boolean().nullable()),
});
export type HistoryPoints = z.infer<typeof HistoryPointsSchema>;

export const HistoryLatestSchema = z.object({
  ts: z.number(),
  finished_total: z.number(),
  finished_per_minute: z.number().nullable(),
  oldest_pending_age_seconds: z.number().nullable(),
  drain_seconds: z.number().nullable(),
  at_least: z.boolean(),
});

export const HistorySchema = z.object({
  /** Null for the whole fleet. */
  queue: z.string().nullable(),
  range: HistoryRangeSchema,
  step_seconds: z.number(),
  from: z.number(),
  to: z.number(),
  points: HistoryPointsSchema,
  /** What the watch wrote last for this queue (null for the fleet, or before its first tick). */
  latest: HistoryLatestSchema.nullable(),
});
export type History = z.infer<typeof HistorySchema>;

// ---------------------------------------------------------------- alert rules

const idMessage = "use 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter or digit";
export const AlertIdSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, idMessage);

/** A queue, pool or automation type name, or "*" for every one. */
const SubjectSchema = z.string().min(1, "name the queue (or * for every queue)").max(512);
const count = (what: string) => z.number().int(`${what} must be a whole number`).min(0, `${what} cannot be negative`).max(1_000_000_000);
const seconds = (what: string, min: number, max: number) =>
  z.number().int(`${what} must be a whole number of seconds`).min(min, `${what} must be at least ${min} s`).max(max, `${what} must be at most ${max} s`);

export const WebhookSchema = z
  .object({
    id: AlertIdSchema,
    name: z.string().max(200).optional(),
    url: z
      .string()
      .max(2048, "a webhook URL may be at most 2048 characters")
      .refine((u) => {
        try {
          const parsed = new URL(u);
          return (parsed.protocol === "https:" || parsed.protocol === "http:") && parsed.hostname !== "";
        } catch {
          return false;
        }
      }, "must be an http:// or https:// URL"),
    /** `json`: the generic JSON body; `slack`: `{"text": ...}`, which Slack and compatible chats show. */
    format: z.enum(["json", "slack"]).default("json"),
  })
  .strict();
export type Webhook = z.infer<typeof WebhookSchema>;

const ruleBase = {
  id: AlertIdSchema,
  name: z.string().min(1, "give the rule a name").max(200),
  enabled: z.boolean().default(true),
  /** Webhook ids to deliver to; empty: every webhook. */
  webhooks: z.array(AlertIdSchema).max(32).default([]),
};

export const AlertRuleSchema = z.discriminatedUnion("kind", [
  z
    .object({
      ...ruleBase,
      kind: z.literal("dead_letters_growth"),
      queue: SubjectSchema,
      more_than: count("more_than"),
      within_seconds: seconds("within_seconds", 60, 86_400),
    })
    .strict(),
  z.object({ ...ruleBase, kind: z.literal("oldest_pending"), queue: SubjectSchema, older_than_seconds: seconds("older_than_seconds", 10, 30 * 86_400) }).strict(),
  z.object({ ...ruleBase, kind: z.literal("drain_time"), queue: SubjectSchema, over_seconds: seconds("over_seconds", 10, 30 * 86_400) }).strict(),
  z
    .object({
      ...ruleBase,
      kind: z.literal("workers_down"),
      automation_type: SubjectSchema,
      more_than: count("more_than"),
      states: z
        .array(z.enum(["offline", "error"]))
        .min(1, "name offline, error or both")
        .max(2)
        .default(["offline", "error"]),
    })
    .strict(),
  z.object({ ...ruleBase, kind: z.literal("overdue_leases"), queue: SubjectSchema, more_than: count("more_than") }).strict(),
  z.object({ ...ruleBase, kind: z.literal("pool_free"), pool: SubjectSchema, fewer_than: count("fewer_than") }).strict(),
]);
export type AlertRule = z.infer<typeof AlertRuleSchema>;
export type AlertKind = AlertRule["kind"];
export const ALERT_KINDS = ["dead_letters_growth", "oldest_pending", "drain_time", "workers_down", "overdue_leases", "pool_free"] as const satisfies readonly AlertKind[];

export const AlertConfigSchema = z
  .object({
    webhooks: z.array(WebhookSchema).max(32, "at most 32 webhooks").default([]),
    rules: z.array(AlertRuleSchema).max(200, "at most 200 rules").default([]),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const seen = new Set<string>();
    cfg.webhooks.forEach((w, i) => {
      if (seen.has(w.id)) ctx.addIssue({ code: "custom", path: ["webhooks", i, "id"], message: `the webhook id '${w.id}' is used twice` });
      seen.add(w.id);
    });
    const rules = new Set<string>();
    cfg.rules.forEach((r, i) => {
      if (rules.has(r.id)) ctx.addIssue({ code: "custom", path: ["rules", i, "id"], message: `the rule id '${r.id}' is used twice` });
      rules.add(r.id);
      r.webhooks.forEach((id, j) => {
        if (!seen.has(id)) ctx.addIssue({ code: "custom", path: ["rules", i, "webhooks", j], message: `no webhook has the id '${id}'` });
      });
    });
  });
export type AlertConfig = z.infer<typeof AlertConfigSchema>;
export type AlertConfigInput = z.input<typeof AlertConfigSchema>;

/** PUT /alerts/rules: the whole document (If-Match: "<gen>" to compare and set). */
export const PutAlertRulesBodySchema = AlertConfigSchema;

export const AlertRulesSchema = z.object({
  config: z.looseObject({}),
  gen: z.number().int(),
  /** Webhook URLs are shown whole to admins only; others see them masked. */
  urls_masked: z.boolean(),
  /** The JSON Schema the document must satisfy (the browser validates with it as you type). */
  schema: z.looseObject({}),
});
export type AlertRules = z.infer<typeof AlertRulesSchema>;

// ---------------------------------------------------------------- alert state

export const FiringAlertSchema = z.object({
  key: z.string(),
  rule_id: z.string(),
  rule_name: z.string(),
  kind: z.string(),
  subject: z.string(),
  since: z.number(),
  value: z.number().nullable(),
  summary: z.string(),
});
export type FiringAlert = z.infer<typeof FiringAlertSchema>;

export const AlertDeliverySchema = z.object({
  id: z.string(),
  ts: z.number(),
  webhook_id: z.string(),
  webhook: z.string(),
  status: z.enum(["firing", "resolved"]),
  alert_key: z.string(),
  summary: z.string(),
  attempts: z.number().int(),
  next_at: z.number(),
  last_error: z.string().nullable(),
});
export type AlertDelivery = z.infer<typeof AlertDeliverySchema>;

export const AlertHistoryEntrySchema = z.object({
  ts: z.number(),
  type: z.enum(["firing", "resolved", "delivered", "delivery_failed", "delivery_dropped"]),
  alert_key: z.string(),
  rule_id: z.string(),
  summary: z.string(),
  webhook: z.string().optional(),
  attempts: z.number().int().optional(),
  error: z.string().optional(),
});
export type AlertHistoryEntry = z.infer<typeof AlertHistoryEntrySchema>;

export const AlertsStatusSchema = z.object({
  firing: z.array(FiringAlertSchema),
  deliveries: z.array(AlertDeliverySchema),
  history: z.array(AlertHistoryEntrySchema),
  history_total: z.number().int(),
});
export type AlertsStatus = z.infer<typeof AlertsStatusSchema>;
