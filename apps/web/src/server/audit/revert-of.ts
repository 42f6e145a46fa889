// "Revert to before" names the audit entry it reverts (`revert_of`, a console extension). The
// page was shown that entry's `before` as the API shows every value: a Python worker's `NaN`,
// `Infinity` and `-Infinity` as the strings "NaN", "Infinity", "-Infinity", which is all it can
// send back. Where the config sent holds such a string at the very place the entry's `before`
// held the number, the number is written (keepNonFinite against the entry), so reverting a
// change that replaced a worker's NaN puts Python's NaN back, not a string it never wrote.
//
// The entry is found in the trail in chunks (auditChunkSize; the trail is capped:
// FLEET_AUDIT_MAX_ENTRIES; a revert is of a recent change, near the head); a fleet-wide
// write's kept changes are read only when a config sent holds one of the three strings at
// all, in chunks, and only those whose bytes hold a non-finite token are parsed.
import { isJsonObject as isObject, parseJsonBytes, type Backend } from "@fleet/backend";
import { isNonFiniteToken } from "@fleet/schema";

import { revertableFleet, revertableWorker } from "@/lib/revert";
import { badRequest, conflict } from "@/server/api/errors";

import { AUDIT_FIRST_CHUNK, auditChunkSize } from "./read";

/** Whether `v` holds, anywhere, one of the strings the API shows a non-finite number as. */
export function holdsNonFiniteToken(v: unknown): boolean {
  if (typeof v === "string") return isNonFiniteToken(v);
  if (typeof v !== "object" || v === null) return false;
  if (Array.isArray(v)) return v.some(holdsNonFiniteToken);
  for (const k in v) if (Object.hasOwn(v, k) && holdsNonFiniteToken((v as Record<string, unknown>)[k])) return true;
  return false;
}

/**
 * The done entry `id` of the trail, as Python reads it (bare NaN tokens are numbers), or null
 * when the trail no longer holds it. Entries pushed meanwhile move older ones further down,
 * never past the chunk being read.
 */
export async function findAuditEntry(backend: Backend, id: string): Promise<Record<string, unknown> | null> {
  const needle = Buffer.from(`"${id}"`, "latin1");
  for (let start = 0, size = AUDIT_FIRST_CHUNK; ; ) {
    const { total, items } = await backend.auditRange(start, size);
    for (const b of items) {
      if (!b.includes(needle)) continue;
      const read = parseJsonBytes(b);
      if (read.ok && isObject(read.value) && read.value.id === id && (read.value.outcome === undefined || read.value.outcome === "done")) return read.value;
    }
    if (items.length < size || start + size >= total) return null;
    start += size;
    size = auditChunkSize(items);
  }
}

const gone = (id: string) =>
  conflict(
    `The audit entry ${id} this revert is of is no longer in the audit trail (it keeps the latest entries only), so the values it held cannot be checked; nothing was written. Edit the config by hand instead.`,
  );

/** The config before the change of entry `id`, which must be a done config write of this worker that kept its whole `before`. */
export async function revertedWorkerBefore(backend: Backend, id: string, automationType: string, workerId: string): Promise<Record<string, unknown>> {
  const entry = await findAuditEntry(backend, id);
  if (entry === null) throw gone(id);
  const of = revertableWorker(entry as Parameters<typeof revertableWorker>[0]);
  if (of === null || of.automationType !== automationType || of.workerId !== workerId) {
    throw badRequest(`revert_of: audit entry ${id} is not a change of the config of worker '${workerId}' of '${automationType}' that can be reverted; nothing was written.`);
  }
  return entry.before as Record<string, unknown>;
}

/**
 * Each named worker's config before the fleet-wide write of entry `id` (a rollout or a bulk
 * change of `automationType` that kept every worker's whole `before`), read only when `needed`
 * (a config sent holds a token string: otherwise there is nothing to restore, and only the
 * entry is checked). A worker the write did not change has none.
 */
export async function revertedFleetBefores(backend: Backend, id: string, automationType: string, workerIds: ReadonlySet<string>, needed: boolean): Promise<Map<string, unknown>> {
  const entry = await findAuditEntry(backend, id);
  if (entry === null) throw gone(id);
  const of = revertableFleet(entry as Parameters<typeof revertableFleet>[0]);
  if (of === null || of.automationType !== automationType) {
    throw badRequest(`revert_of: audit entry ${id} is not a config change of the workers of '${automationType}' that can be reverted; nothing was written.`);
  }
  const befores = new Map<string, unknown>();
  if (!needed) return befores;
  if (of.kept === undefined) {
    for (const w of of.workers) if (workerIds.has(w.workerId)) befores.set(w.workerId, w.before);
    return befores;
  }
  // the kept changes, in chunks; a change without a non-finite token cannot restore one
  const tokens = [Buffer.from("NaN"), Buffer.from("Infinity")];
  for (let start = 0, size = AUDIT_FIRST_CHUNK; ; ) {
    const page = await backend.auditChangesRange(id, start, size);
    if (page === null) throw gone(id);
    for (const b of page.items) {
      if (!tokens.some((t) => b.includes(t))) continue;
      const read = parseJsonBytes(b);
      if (!read.ok || !isObject(read.value)) continue;
      const c = read.value;
      if (typeof c.worker_id === "string" && workerIds.has(c.worker_id) && isObject(c.before)) befores.set(c.worker_id, c.before);
    }
    if (page.items.length < size || start + size >= page.total) return befores;
    start += size;
    size = auditChunkSize(page.items);
  }
}
