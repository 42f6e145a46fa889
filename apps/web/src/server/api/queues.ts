// Queue routes' shared logic: the 404 rule for queues, the detail view, and the
// dead-letter action bodies.
import { taskIdOfBody, type Backend, type QueueDepths } from "@fleet/backend";
import type { QueueDetail } from "@fleet/schema";
import { z } from "zod";

import { badRequest, validationFailed, zodDetails } from "./errors";
import { requireExistingOrKnown } from "./resources";
import { DEFAULT_PREVIEW_BYTES, isEmptyQueue, toQueue, toRawValue } from "./serialize";

/**
 * 404 unless the queue has a key or an automation of that name is known. Depths answer
 * the common case; only an all-zero queue costs one EXISTS of its keys (a stray
 * `:processing:body` hash still makes the queue exist).
 */
export async function requireQueue(backend: Backend, name: string, depths?: QueueDepths): Promise<void> {
  const d = depths ?? (await backend.queueDepths([name]))[0];
  if (d && !isEmptyQueue(toQueue(d))) return;
  const [exists] = await backend.queuesExist([name]);
  await requireExistingOrKnown(backend, "queue", name, exists === true);
}

export async function queueDetail(backend: Backend, name: string, limit: number, now: number, previewBytes: number = DEFAULT_PREVIEW_BYTES): Promise<QueueDetail> {
  const detail = await backend.queueDetail(name, limit, now);
  await requireQueue(backend, name, detail.depths);
  return {
    ...toQueue(detail.depths),
    pending_items: detail.pending.map((p) => ({ priority: p.priority, task_id: taskIdOfBody(p.body), body: toRawValue(p.body, previewBytes) })),
    processing_items: detail.processing.map((p) => ({
      id: p.id,
      deadline: p.deadline,
      overdue: p.deadline < now,
      body: p.body === null ? null : toRawValue(p.body, previewBytes),
    })),
    scheduled_items: detail.scheduled.map((s) => ({ ready_at: s.readyAt, task_id: taskIdOfBody(s.body), body: toRawValue(s.body, previewBytes) })),
  };
}

export const MAX_REFS_PER_REQUEST = 1000;

const KeepAttempts = z.boolean({ error: "keep_attempts must be true or false" }).optional();
const RefsSchema = z.strictObject({
  refs: z.array(z.string().regex(/^[0-9a-f]{40}$/, "a ref is the 40-hex SHA-1 of a dead letter")).min(1, "give at least one ref"),
  keep_attempts: KeepAttempts,
});
const AllSchema = z.strictObject({ all: z.literal(true, { error: 'all must be true (or send {"refs": [...]})' }), keep_attempts: KeepAttempts });

/**
 * The requeue body's `keep_attempts` (an extension of API.md): a requeued task gets its
 * attempts back unless it is true. Delete refuses it (its selector is parsed strictly).
 */
export function parseRequeueBody(body: unknown): { which: { refs: string[] } | { all: true }; keepAttempts: boolean } {
  const which = parseDeadLetterSelector(body, true);
  const keepAttempts = typeof body === "object" && body !== null && (body as { keep_attempts?: unknown }).keep_attempts === true;
  return { which, keepAttempts };
}

/** `{"refs": [...]}` or `{"all": true}`; more than 1000 refs is a 400, a bad shape a 422. */
export function parseDeadLetterSelector(body: unknown, requeue = false): { refs: string[] } | { all: true } {
  const obj = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  if (obj && Array.isArray(obj.refs) && obj.refs.length > MAX_REFS_PER_REQUEST) {
    throw badRequest(`At most ${MAX_REFS_PER_REQUEST} refs per request; this one has ${obj.refs.length}. Split it, or send {"all": true}.`);
  }
  const isAll = obj !== null && "all" in obj;
  const schema = requeue ? (isAll ? AllSchema : RefsSchema) : isAll ? AllSchema.omit({ keep_attempts: true }) : RefsSchema.omit({ keep_attempts: true });
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const details = zodDetails(parsed.error);
    throw validationFailed(
      requeue
        ? 'The body must be {"refs": ["<sha1>", ...]} or {"all": true}, optionally with "keep_attempts": true; see details.'
        : 'The body must be {"refs": ["<sha1>", ...]} or {"all": true}; see details.',
      details,
    );
  }
  return "all" in parsed.data ? { all: true } : { refs: parsed.data.refs };
}
