// GET /api/v1/audit (a console extension, apps/web/README.md): the console's audit trail,
// newest first. The server (apps/web/src/server/audit) writes and reads the entries; the
// audit page and the worker page's pause history read these shapes.
import { z } from "zod";

import { LimitSchema, OffsetSchema } from "./api";

const filterText = z.string().trim().max(256, "must be at most 256 characters").optional();

export const AuditQuerySchema = z.object({
  limit: LimitSchema.default(100),
  offset: OffsetSchema.default(0),
  actor: filterText,
  action: filterText,
  target: filterText,
});
export type AuditQuery = z.output<typeof AuditQuerySchema>;

/** What became of the request an entry is about. */
export const AuditOutcomeSchema = z.enum(["pending", "done", "failed", "refused", "suppressed"]);
export type AuditOutcome = z.infer<typeof AuditOutcomeSchema>;

/**
 * One entry as read back: every field the console writes, null (and named in `corrupt`)
 * where the stored entry has no usable value; members the console does not know are kept.
 */
export const AuditItemSchema = z
  .object({
    ts: z.number().nullable(),
    actor: z.string().nullable(),
    role: z.string().nullable(),
    via: z.string().nullable(),
    action: z.string().nullable(),
    target: z.string().nullable(),
    method: z.string().nullable(),
    path: z.string().nullable(),
    status: z.number().nullable(),
    /** Absent in entries older than the outcome (read as `done`); one not in the list is left out and named in `corrupt`. */
    outcome: AuditOutcomeSchema.optional(),
    details: z.record(z.string(), z.unknown()).optional(),
    before: z.unknown().optional(),
    after: z.unknown().optional(),
    changes: z.array(z.unknown()).optional(),
    changes_total: z.number().optional(),
    /** A fleet-wide config write past the first 100 workers: every change is kept beside the entry, this many (GET /audit/{id}/changes). */
    changes_kept: z.number().optional(),
    /** An entry that is not a JSON object: its text (or base64) instead. */
    raw: z.string().optional(),
    corrupt: z.array(z.string()).optional(),
  })
  .loose();
export type AuditItem = z.infer<typeof AuditItemSchema>;

export const AuditListSchema = z.object({ total: z.number().int(), items: z.array(AuditItemSchema) });
export type AuditList = z.infer<typeof AuditListSchema>;

/** An audit entry's id, as the console makes them. */
export const AuditEntryIdSchema = z.string().regex(/^[0-9a-f]{16}$/, "must be an audit entry id (16 hex digits, as GET /audit lists them)");

export const AuditChangesQuerySchema = z.object({
  limit: LimitSchema.default(1000),
  offset: OffsetSchema.default(0),
});
export type AuditChangesQuery = z.output<typeof AuditChangesQuerySchema>;

/** One worker's change of a fleet-wide config write; a stored item that is not one reads as `worker_id` null, `corrupt` and its text. */
export const AuditChangeSchema = z.object({
  worker_id: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  raw: z.string().optional(),
  corrupt: z.array(z.string()).optional(),
});
export type AuditChange = z.infer<typeof AuditChangeSchema>;

/** GET /audit/{id}/changes (a console extension): a page of every worker's change kept beside an entry. */
export const AuditChangesSchema = z.object({ total: z.number().int(), changes: z.array(AuditChangeSchema) });
export type AuditChanges = z.infer<typeof AuditChangesSchema>;
