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
}

const PREFIX = "fleet:revert:";

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
