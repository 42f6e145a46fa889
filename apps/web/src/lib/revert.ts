// "Revert to before" (issue 19.5): the audit trail hands the config as it was before a change
// to the worker page's config editor, which opens its usual review (diff against what is
// stored now, save with If-Match on the generation it loaded). The values travel in this
// tab's sessionStorage under a one-time key named in the URL (`?revert=<key>`), not in the
// URL itself (configs can be large and hold values that do not belong in a history or a log).
import type { AuditItem } from "@fleet/schema";

export interface RevertRequest {
  automationType: string;
  workerId: string;
  /** The config before the change. */
  config: Record<string, unknown>;
  /** Who made the change being reverted, and when (unix seconds). */
  actor: string | null;
  ts: number | null;
  /** The audit entry of that change: the save names it (`revert_of`), so a Python NaN it held is written back as the number. */
  entryId?: string;
}

const PREFIX = "fleet:revert:";
const AUDIT_ID = /^[0-9a-f]{16}$/;

/** An audit entry's `id` as the trail lists it, when it is one (entries older than ids have none). */
export function auditEntryId(id: unknown): string | undefined {
  return typeof id === "string" && AUDIT_ID.test(id) ? id : undefined;
}

/** Stores the request and answers the worker page URL that opens its review. */
export function stashRevert(r: RevertRequest): string {
  const key = typeof crypto.randomUUID === "function" ? crypto.randomUUID() : String(Math.random()).slice(2);
  sessionStorage.setItem(PREFIX + key, JSON.stringify(r));
  return `/workers/${encodeURIComponent(r.automationType)}/${encodeURIComponent(r.workerId)}?revert=${encodeURIComponent(key)}#config`;
}

/** The request under `key` for this worker, removed (a key works once); null when unknown. */
export function takeRevert(key: string, automationType: string, workerId: string): RevertRequest | null {
  const text = sessionStorage.getItem(PREFIX + key);
  sessionStorage.removeItem(PREFIX + key);
  if (text === null) return null;
  try {
    const r = JSON.parse(text) as RevertRequest;
    if (r.automationType !== automationType || r.workerId !== workerId) return null;
    if (r.entryId !== undefined && !AUDIT_ID.test(String(r.entryId))) return null;
    return r.config !== null && typeof r.config === "object" && !Array.isArray(r.config) ? r : null;
  } catch {
    return null;
  }
}

/**
 * The worker a config entry of the audit trail changed, from its request path
 * (`/api/v1/workers/<type>/<id>/config`, segments URL-encoded, so a `/` in a name is no
 * trouble), when the entry can be reverted: a single worker's write that was done and kept
 * its whole `before` object (not one truncated for its size).
 */
export function revertableWorker(e: Pick<AuditItem, "action" | "outcome" | "path" | "before">): { automationType: string; workerId: string } | null {
  if (e.action !== "worker.config.patch" && e.action !== "worker.config.put") return null;
  if (e.outcome !== undefined && e.outcome !== "done") return null;
  const b = e.before;
  if (b === null || typeof b !== "object" || Array.isArray(b) || (b as Record<string, unknown>).truncated === true) return null;
  const m = /^\/api\/v1\/workers\/([^/]+)\/([^/]+)\/config$/.exec(e.path ?? "");
  if (!m) return null;
  try {
    return { automationType: decodeURIComponent(m[1]!), workerId: decodeURIComponent(m[2]!) };
  } catch {
    return null;
  }
}

/**
 * "Revert to before" of a fleet-wide config write (a rollout, or a bulk change of selected
 * workers): each worker's config before that write, reviewed on the automation page against
 * what each stores now and written per worker at the generation the review showed
 * (POST /workers/bulk-config with a config per worker, intent=revert).
 */
export interface FleetRevertRequest {
  automationType: string;
  /** Each worker's change, from the entry itself; empty when `kept` says where they are. */
  workers: Array<{ workerId: string; before: Record<string, unknown>; after: unknown }>;
  /** A write of more than 100 workers, or of values its entry lists by digest: all its changes are read from GET /audit/{entryId}/changes. */
  kept?: { entryId: string; total: number };
  actor: string | null;
  ts: number | null;
  /** The audit entry of that write: the saves name it (`revert_of`), so a Python NaN it held is written back as the number. */
  entryId?: string;
}

/** Stores the request and answers the automation page URL that opens its review. */
export function stashFleetRevert(r: FleetRevertRequest): string {
  const key = typeof crypto.randomUUID === "function" ? crypto.randomUUID() : String(Math.random()).slice(2);
  sessionStorage.setItem(`${PREFIX}fleet:${key}`, JSON.stringify(r));
  return `/automations/${encodeURIComponent(r.automationType)}?revert=${encodeURIComponent(key)}#rollout`;
}

/** The fleet request under `key` for this automation, removed (a key works once); null when unknown. */
export function takeFleetRevert(key: string, automationType: string): FleetRevertRequest | null {
  const text = sessionStorage.getItem(`${PREFIX}fleet:${key}`);
  sessionStorage.removeItem(`${PREFIX}fleet:${key}`);
  if (text === null) return null;
  try {
    const r = JSON.parse(text) as FleetRevertRequest;
    if (r.automationType !== automationType || !Array.isArray(r.workers)) return null;
    if (r.entryId !== undefined && !AUDIT_ID.test(String(r.entryId))) return null;
    if (r.kept !== undefined) return isObject(r.kept) && AUDIT_ID.test(String(r.kept.entryId)) && Number.isInteger(r.kept.total) && r.workers.length === 0 ? r : null;
    return r.workers.every((w) => typeof w.workerId === "string" && isObject(w.before)) ? r : null;
  } catch {
    return null;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The automation and workers a fleet-wide config entry of the audit trail changed, when it can
 * be reverted: a rollout (`automation.config.rollout`, target `automation:<type>`) or a bulk
 * change (`workers.bulk.config`, `details.automation_type`) that was done and kept every
 * worker's whole `before`: in the entry (no worker left out past the first 100, no value listed
 * by its digest for its size), or, for a write of more workers or of larger values, beside it
 * (`changes_kept` equal to `changes_total`: read from GET /audit/{id}/changes when the review
 * opens). A worker that had
 * no config before (`null`) goes back to an empty one.
 */
export function revertableFleet(e: {
  id?: unknown;
  changes_kept?: number;
  action: string | null;
  outcome?: string;
  target: string | null;
  details?: Record<string, unknown>;
  changes?: unknown[];
  changes_total?: number;
}): Omit<FleetRevertRequest, "actor" | "ts"> | null {
  if (e.outcome !== undefined && e.outcome !== "done") return null;
  let automationType: string | null = null;
  if (e.action === "automation.config.rollout" && e.target?.startsWith("automation:")) automationType = e.target.slice("automation:".length);
  else if (e.action === "workers.bulk.config" && typeof e.details?.automation_type === "string") automationType = e.details.automation_type;
  if (!automationType || !Array.isArray(e.changes) || e.changes.length === 0) return null;
  const total = e.changes_total ?? e.changes.length;
  // a value too large for the entry is listed by its size and digest (server/audit/audit.ts boundedTo())
  const cut = e.changes.some((c) => isObject(c) && (isDigest(c.before) || isDigest(c.after)));
  if (total > e.changes.length || cut) {
    // more workers than the entry lists, or values it lists by digest: revertable only when all were kept beside it
    if (e.changes_kept !== total || typeof e.id !== "string" || !AUDIT_ID.test(e.id)) return null;
    return { automationType, workers: [], kept: { entryId: e.id, total: e.changes_kept } };
  }
  if (total !== e.changes.length) return null;
  const workers: FleetRevertRequest["workers"] = [];
  for (const c of e.changes) {
    if (!isObject(c) || typeof c.worker_id !== "string") return null;
    const before = c.before === null ? {} : c.before;
    if (!isObject(before)) return null;
    workers.push({ workerId: c.worker_id, before, after: c.after });
  }
  return { automationType, workers };
}

/** A value the audit trail lists by its size and digest only: `{truncated: true, bytes, sha256}`. */
function isDigest(v: unknown): boolean {
  return isObject(v) && v.truncated === true && typeof v.sha256 === "string";
}
