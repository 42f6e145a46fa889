// GET /api/v1/audit: the trail newest first, paged, filtered by actor, action and target.
// Without a filter a page is read in LRANGEs of auditChunkSize entries (one for the usual page
// of small entries); with one, the whole (capped) list is read in such chunks and filtered
// here, which is bounded by FLEET_AUDIT_MAX_ENTRIES.
import { decodeUtf8, parseJsonBytes, type Backend } from "@fleet/backend";
import { AuditOutcomeSchema, type AuditChange, type AuditItem, type AuditList, type AuditQuery } from "@fleet/schema";

import { jsonForBrowser } from "@/server/api/serialize";

/** One kept change of a fleet-wide write (GET /audit/{id}/changes): `{worker_id, before, after}`, or a corrupt marker with its text. */
export function decodeAuditChange(buf: Buffer): AuditChange {
  const parsed = parseJsonBytes(buf);
  const o = parsed.ok ? parsed.value : null;
  if (o === null || typeof o !== "object" || Array.isArray(o) || typeof (o as Record<string, unknown>).worker_id !== "string") {
    return { worker_id: null, before: null, after: null, raw: decodeUtf8(buf) ?? `base64:${buf.toString("base64")}`, corrupt: ["change"] };
  }
  const c = o as Record<string, unknown>;
  return { worker_id: c.worker_id as string, before: jsonForBrowser(c.before ?? null), after: jsonForBrowser(c.after ?? null) };
}

const STRING_FIELDS = ["actor", "role", "via", "action", "target", "method", "path"] as const;

/**
 * One stored entry of the trail. Entries are written as Python's json.dumps writes (pyJsonBytes),
 * so a config change of a Python worker holds its bare `NaN` / `Infinity` tokens: they are read
 * as Python reads them and shown as the API shows them everywhere (the strings "NaN",
 * "Infinity", "-Infinity"), not as a corrupt entry.
 */
export function decodeAuditEntry(buf: Buffer): AuditItem {
  const read = parseJsonBytes(buf);
  const parsed = read.ok ? read.value : undefined;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    const text = decodeUtf8(buf);
    return {
      ts: null,
      actor: null,
      role: null,
      via: null,
      action: null,
      target: null,
      method: null,
      path: null,
      status: null,
      raw: text ?? `base64:${buf.toString("base64")}`,
      corrupt: ["entry"],
    };
  }
  const o = parsed as Record<string, unknown>;
  const corrupt: string[] = [];
  const item: AuditItem = { ...(jsonForBrowser(o) as Record<string, unknown>) } as AuditItem;
  for (const f of STRING_FIELDS) {
    if (typeof o[f] === "string") continue;
    item[f] = null;
    corrupt.push(f);
  }
  for (const f of ["ts", "status"] as const) {
    if (typeof o[f] === "number" && Number.isFinite(o[f])) continue;
    item[f] = null;
    corrupt.push(f);
  }
  if (o.details !== undefined && (o.details === null || typeof o.details !== "object" || Array.isArray(o.details))) {
    delete item.details;
    corrupt.push("details");
  }
  if (o.changes !== undefined && !Array.isArray(o.changes)) {
    delete item.changes;
    corrupt.push("changes");
  }
  if (o.outcome !== undefined && !AuditOutcomeSchema.safeParse(o.outcome).success) {
    delete item.outcome;
    corrupt.push("outcome");
  }
  if (o.changes_total !== undefined && !(typeof o.changes_total === "number" && Number.isFinite(o.changes_total))) {
    delete item.changes_total;
    corrupt.push("changes_total");
  }
  if (corrupt.length > 0) item.corrupt = corrupt;
  else delete item.corrupt;
  return item;
}

export function matchesAudit(item: AuditItem, q: Pick<AuditQuery, "actor" | "action" | "target">): boolean {
  if (q.actor && item.actor !== q.actor) return false;
  if (q.action && item.action !== q.action && !(item.action ?? "").startsWith(`${q.action}.`)) return false;
  if (q.target && !(item.target ?? "").includes(q.target)) return false;
  return true;
}

/** The most entries one LRANGE of a chunked read of the trail (or of a write's kept changes) asks for. */
export const AUDIT_READ_CHUNK = 500;
/** Entries the first LRANGE of a chunked read asks for, before it knows how large they are. */
export const AUDIT_FIRST_CHUNK = 100;
/** What one LRANGE of a chunked read aims to answer, in bytes. */
export const AUDIT_CHUNK_BYTES = 1024 * 1024;
const AUDIT_CHUNK_MIN = 8;

/**
 * Entries the next LRANGE of a chunked read asks for, after the last answered `items`: as many
 * as fit AUDIT_CHUNK_BYTES at their average size, from 8 to AUDIT_READ_CHUNK. An entry can be
 * large (up to ~150 KiB: a fleet write's changes, audit.ts MAX_CHANGES_BYTES; a kept change, a
 * whole config before and after), and hundreds of them in one reply would hold Redis and this
 * process for long (issue 11); the usual ~1 KiB entries go 500 at a time.
 */
export function auditChunkSize(items: readonly Buffer[]): number {
  let bytes = 0;
  for (const b of items) bytes += b.length;
  if (bytes === 0) return AUDIT_READ_CHUNK;
  return Math.max(AUDIT_CHUNK_MIN, Math.min(AUDIT_READ_CHUNK, Math.floor((AUDIT_CHUNK_BYTES * items.length) / bytes)));
}
/** A filtered read looks at this many entries at most (the trail is capped well below: FLEET_AUDIT_MAX_ENTRIES). */
const AUDIT_READ_LIMIT = 1_000_000;

export async function readAudit(backend: Backend, q: AuditQuery): Promise<AuditList> {
  if (!q.actor && !q.action && !q.target) {
    // the page itself: the usual page (the audit view asks for 50 small entries) is one LRANGE;
    // 1,000 fleet writes of ~150 KiB each would otherwise be one LRANGE answering ~150 MB
    const { total, items } = await readTrail(backend, q.offset, q.limit);
    return { total, items: items.map(decodeAuditEntry) };
  }
  // A filter: the whole (capped) trail, then filtered here.
  const { items } = await readTrail(backend, 0, AUDIT_READ_LIMIT);
  const matching = items.map(decodeAuditEntry).filter((i) => matchesAudit(i, q));
  return { total: matching.length, items: matching.slice(q.offset, q.offset + q.limit) };
}

/**
 * Up to `max` entries of the trail from `start`, newest first, and its length at the first read,
 * in LRANGEs of AUDIT_FIRST_CHUNK entries and then auditChunkSize, one after the other, never
 * the whole list in one command: an entry can be large (a bulk config change lists workers'
 * before and after), and thousands of them in one reply would hold Redis for tens of
 * milliseconds, or hundreds of MB (issue 11). Entries pushed meanwhile shift the older ones
 * down: one seen twice (each is unique, it carries a random id) is kept once, and the read
 * goes one further, so `max` entries come back whenever the trail has them.
 */
async function readTrail(backend: Backend, start: number, max: number): Promise<{ total: number; items: Buffer[] }> {
  if (max <= 0) return { total: (await backend.auditRange(start, 0)).total, items: [] };
  const seen = new Set<string>();
  const items: Buffer[] = [];
  let total: number | null = null;
  for (let at = start, size = Math.min(AUDIT_FIRST_CHUNK, max); items.length < max; ) {
    const chunk = await backend.auditRange(at, size);
    total ??= chunk.total;
    for (const b of chunk.items) {
      const k = b.toString("latin1");
      if (seen.has(k)) continue;
      seen.add(k);
      if (items.length < max) items.push(b);
    }
    if (chunk.items.length < size) break;
    at += size;
    size = Math.min(auditChunkSize(chunk.items), max - items.length);
  }
  return { total: total ?? 0, items };
}
