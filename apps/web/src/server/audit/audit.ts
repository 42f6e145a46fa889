// The audit trail: every mutation the console makes, appended to fleet:console:audit
// (newest first, capped at FLEET_AUDIT_MAX_ENTRIES, default 10,000), encoded like every
// other JSON the console writes (Python's json.dumps). The handler's own announcements
// (announceAdmin / announceConfig) and config before/after values are collected on the
// way through an AsyncLocalStorage scope, so no route has to pass them.
//
// A change is not made unless its entry is written (issue 12.9). The route wrapper writes
// the entry BEFORE the change, with `"outcome": "pending"` and status 0; when that write
// fails the request answers 503 and nothing is changed. After the change the same entry
// is completed in place (`auditReplace`, found by its bytes, which hold a random `id`):
// `"outcome": "done"`, the status and what the handler noted. A request that fails cleanly
// (4xx: by the API's contract it changed nothing) removes its pending entry; any other
// failure leaves `"outcome": "failed"` with its status, as the change may be incomplete.
// An entry still `pending` means the console could not learn or record the outcome (Redis
// went away during the request, or the process died): the change may or may not have been
// made. Sign-in writes its entry in the same atomic step as the session (session-put-3.lua).
// Refusals (401, 403, failed sign-ins) are recorded by refusals.ts.
import { isBackendUnavailable } from "@/server/api/errors";
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomBytes } from "node:crypto";

import { CorruptDataError, NotFoundError, StaleGenerationError, pyJsonBytes, type Backend } from "@fleet/backend";
import type { AuditOutcome } from "@fleet/schema";

import { ApiError } from "@/server/api/errors";
import { authConfig } from "@/server/auth/config";
import type { Principal } from "@/server/auth/roles";
import { logText } from "@/server/log-text";

export interface AuditEntry {
  /** Random, so that an entry can be found again by its bytes (auditReplace). */
  id: string;
  outcome: AuditOutcome;
  ts: number;
  actor: string;
  role: string;
  via: string;
  action: string;
  target: string;
  method: string;
  path: string;
  status: number;
  details?: Record<string, unknown>;
  before?: unknown;
  after?: unknown;
  changes?: Array<{ worker_id: string; before: unknown; after: unknown }>;
  changes_total?: number;
  /** Every change of a fleet-wide write past the first 100 is kept beside the entry: how many (GET /audit/{id}/changes). */
  changes_kept?: number;
}

interface Scope {
  notes: Array<Record<string, unknown>>;
  config: Array<{ worker_id: string; before: unknown; after: unknown }>;
  configTotal: number;
  /** Bytes the values listed in `config` take in the entry (their JSON, or their digest's). */
  configBytes: number;
  /** A value in `config` is listed by its size and digest only (too large for the entry). */
  configCut: boolean;
  /** Every worker's change, whole (up to MAX_KEPT_CHANGES): what keepFleetChanges keeps. */
  all: Array<{ worker_id: string; before: unknown; after: unknown }>;
  /** Set once keepFleetChanges kept them all. */
  changesKept?: number;
  /** Set by the route wrapper once the pending entry is written: how it builds the final one. */
  final?: { pending: PendingAudit; build: (status: number) => AuditEntry };
  /** The final entry, fixed by the handler (fixAuditEntry) before the wrapper writes it. */
  fixed?: AuditEntry;
  /** Run by the wrapper after it wrote the final entry of a handler that succeeded (afterAudit). */
  after: Array<() => Promise<void>>;
}

const storage = new AsyncLocalStorage<Scope>();

/** Values larger than this are stored as their size and digest, so the capped list stays small. */
export const MAX_VALUE_BYTES = 64 * 1024;
/** Lists in details (task ids, refs) beyond this are cut, with the full count kept. */
export const MAX_LIST_ITEMS = 100;
/** A fleet-wide rollout keeps before/after of this many workers. */
export const MAX_CONFIG_CHANGES = 100;
/**
 * The bytes the config values listed in one entry may take: one worker's whole change (two
 * values of MAX_VALUE_BYTES). Past it a value is listed by its size and digest, unless it is
 * smaller than that (SMALL_VALUE_BYTES): an entry of a rollout of 100 workers with large configs
 * stays ~150 KiB instead of 100 times a config, so the trail (10,000 entries) and each page or
 * chunk of it read stay small (issue 11). A fleet-wide write so cut keeps every change whole
 * beside its entry (keepFleetChanges), so it can still be reverted as a whole.
 */
export const MAX_CHANGES_BYTES = 2 * MAX_VALUE_BYTES;
/** Values this small are listed whole however full the entry is: their digest would not be smaller. */
const SMALL_VALUE_BYTES = 128;
/**
 * A fleet-wide config write of more workers keeps every worker's change beside its entry
 * (fleet:console:audit:changes:<id>, GET /audit/{id}/changes) for this long, so that "revert
 * to before" works past the first 100; up to MAX_KEPT_CHANGES workers and MAX_KEPT_BYTES.
 */
export const AUDIT_CHANGES_TTL_SECONDS = 30 * 24 * 3600;
export const MAX_KEPT_CHANGES = 10_000;
export const MAX_KEPT_BYTES = 32 * 1024 * 1024;

export function runInAuditScope<T>(fn: () => Promise<T>): Promise<T> {
  return storage.run({ notes: [], config: [], configTotal: 0, configBytes: 0, configCut: false, all: [], after: [] }, fn);
}

/**
 * For a change that goes on after its request (a bulk job, completed in place when it ends):
 * the entry the route wrapper will write when the handler answers `status`, built now from
 * what was noted so far (nothing noted later reaches it), its bytes, and the bytes of the
 * pending entry it replaces. Null outside a mutation's audit scope.
 */
export function fixAuditEntry(status: number): { pending: Buffer; entry: AuditEntry; bytes: Buffer } | null {
  const s = storage.getStore();
  if (!s?.final) return null;
  s.fixed = s.final.build(status);
  return { pending: s.final.pending.bytes, entry: s.fixed, bytes: pyJsonBytes(s.fixed) };
}

/** Runs `fn` once the wrapper has written the request's final entry (only when the handler succeeded); failures are logged. */
export function afterAudit(fn: () => Promise<void>): void {
  storage.getStore()?.after.push(fn);
}

/** Called by announceAdmin: the fields of what the handler says it did. */
export function noteAction(fields: Record<string, unknown>): void {
  storage.getStore()?.notes.push(fields);
}

/** Called by config writes with the config before and after, per worker. */
export function noteConfigChange(workerId: string, before: unknown, after: unknown): void {
  const s = storage.getStore();
  if (!s) return;
  s.configTotal += 1;
  if (s.config.length < MAX_CONFIG_CHANGES) {
    const b = boundedTo(before, Math.min(MAX_VALUE_BYTES, MAX_CHANGES_BYTES - s.configBytes));
    const a = boundedTo(after, Math.min(MAX_VALUE_BYTES, MAX_CHANGES_BYTES - s.configBytes - b.bytes));
    s.config.push({ worker_id: workerId, before: b.value, after: a.value });
    s.configBytes += b.bytes + a.bytes;
    if (b.cut || a.cut) s.configCut = true;
  }
  if (s.all.length < MAX_KEPT_CHANGES) s.all.push({ worker_id: workerId, before: before ?? null, after: after ?? null });
}

/**
 * Before the final entry of a fleet-wide config write of more than MAX_CONFIG_CHANGES workers,
 * or of one whose entry lists a value by its digest only (MAX_CHANGES_BYTES, MAX_VALUE_BYTES),
 * is written (the route wrapper calls it with the pending entry, whose id the final one
 * keeps): every worker's change, whole, beside the entry, and the entry then says so
 * (`changes_kept`). A write too large to keep, or a failure to keep it, leaves the entry as
 * it was (its first 100 changes, some by digest; no revert of the whole write), logged.
 */
export async function keepFleetChanges(backend: Backend, entry: AuditEntry): Promise<void> {
  const s = storage.getStore();
  if (!s || !FLEET_CONFIG_ACTIONS.has(entry.action) || (s.configTotal <= MAX_CONFIG_CHANGES && !s.configCut)) return;
  const what = `${logText(entry.action)} on ${logText(entry.target)} (entry ${entry.id})`;
  if (s.all.length !== s.configTotal) {
    console.warn(`[audit] ${what}: ${s.configTotal} workers changed, more than the ${MAX_KEPT_CHANGES} whose changes are kept: it cannot be reverted as a whole`);
    return;
  }
  const items = s.all.map((c) => pyJsonBytes(c));
  const bytes = items.reduce((n, b) => n + b.length, 0);
  if (bytes > MAX_KEPT_BYTES) {
    console.warn(`[audit] ${what}: its changes take ${bytes} bytes, more than the ${MAX_KEPT_BYTES} kept: it cannot be reverted as a whole`);
    return;
  }
  try {
    await backend.auditChangesPut(entry.id, items, AUDIT_CHANGES_TTL_SECONDS);
    s.changesKept = items.length;
  } catch (err) {
    console.error(`[audit] ${what}: its changes could not be kept, so it cannot be reverted as a whole:`, errorText(err));
  }
}

function bounded(value: unknown): unknown {
  return boundedTo(value, MAX_VALUE_BYTES).value;
}

/**
 * `value` as an entry keeps it: whole when its JSON takes at most `room` bytes (or is small),
 * else its size and SHA-256 (`cut`); `bytes`, what it takes in the entry.
 */
function boundedTo(value: unknown, room: number): { value: unknown; bytes: number; cut: boolean } {
  const bytes = pyJsonBytes(value ?? null);
  if (bytes.length <= Math.max(room, SMALL_VALUE_BYTES)) return { value: value ?? null, bytes: bytes.length, cut: false };
  const digest = { truncated: true, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
  return { value: digest, bytes: pyJsonBytes(digest).length, cut: true };
}

function boundedDetails(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (k === "action") continue;
    if (Array.isArray(v) && v.length > MAX_LIST_ITEMS) {
      out[k] = bounded(v.slice(0, MAX_LIST_ITEMS));
      out[`${k}_count`] = v.length;
    } else out[k] = bounded(v);
  }
  return out;
}

type Params = Record<string, string>;

/** Action name and target of each mutating route, by method and path template. */
const ACTIONS: Record<string, { action: string; target: (p: Params) => string }> = {
  "DELETE /workers/[type]/[id]": { action: "worker.delete", target: (p) => `worker:${p.type}/${p.id}` },
  "PATCH /workers/[type]/[id]/config": { action: "worker.config.patch", target: (p) => `worker:${p.type}/${p.id}` },
  "PUT /workers/[type]/[id]/config": { action: "worker.config.put", target: (p) => `worker:${p.type}/${p.id}` },
  "PATCH /automations/[type]/config": { action: "automation.config.rollout", target: (p) => `automation:${p.type}` },
  "POST /automations/[type]/tasks": { action: "tasks.submit", target: (p) => `queue:${p.type}` },
  "POST /queues/[name]/dead/requeue": { action: "dead.requeue", target: (p) => `queue:${p.name}` },
  "POST /queues/[name]/dead/delete": { action: "dead.delete", target: (p) => `queue:${p.name}` },
  "POST /queues/[name]/sweep": { action: "queue.sweep", target: (p) => `queue:${p.name}` },
  "POST /queues/[name]/bulk": { action: "queue.bulk", target: (p) => `queue:${p.name}` },
  "POST /queues/[name]/bulk/[id]/cancel": { action: "queue.bulk.cancel", target: (p) => `queue:${p.name}` },
  "POST /pools/[name]/items/[id]/release": { action: "pool.item.release", target: (p) => `pool:${p.name}/${p.id}` },
  "POST /pools/[name]/items/[id]/reveal": { action: "pool.item.reveal", target: (p) => `pool:${p.name}/${p.id}` },
  "DELETE /pools/[name]/items/[id]": { action: "pool.item.delete", target: (p) => `pool:${p.name}/${p.id}` },
  "DELETE /pools/[name]": { action: "pool.delete", target: (p) => `pool:${p.name}` },
  "DELETE /locks/[name]": { action: "lock.release", target: (p) => `lock:${p.name}` },
  "PUT /counters/[name]": { action: "counter.set", target: (p) => `counter:${p.name}` },
  "DELETE /counters/[name]": { action: "counter.delete", target: (p) => `counter:${p.name}` },
  "PUT /kv/[ns]/[key]": { action: "kv.set", target: (p) => `kv:${p.ns}:${p.key}` },
  "DELETE /kv/[ns]/[key]": { action: "kv.delete", target: (p) => `kv:${p.ns}:${p.key}` },
  "PUT /alerts/rules": { action: "alerts.rules.put", target: () => "alerts:rules" },
  "POST /workers/bulk-remove": { action: "workers.bulk.remove", target: () => "workers" },
  "POST /workers/bulk-config": { action: "workers.bulk.config", target: () => "workers" },
};

/** Config writes to several workers at once: their entries list each worker's before / after (`changes`). */
const FLEET_CONFIG_ACTIONS = new Set(["automation.config.rollout", "workers.bulk.config"]);

export function actionFor(method: string, template: string, params: Params): { action: string; target: string } {
  const known = ACTIONS[`${method} ${template}`];
  if (known) return { action: known.action, target: known.target(params) };
  return { action: `${method.toLowerCase()} ${template}`, target: Object.values(params).join("/") };
}

export function buildEntry(
  principal: Principal,
  request: Request,
  template: string,
  params: Params,
  status: number,
  scope?: Scope,
  override?: { action: string; target: string; details?: Record<string, unknown> },
): AuditEntry {
  const { action, target } = override ?? actionFor(request.method, template, params);
  const entry: AuditEntry = {
    id: newAuditId(),
    outcome: "done",
    ts: Math.round(Date.now()) / 1000,
    actor: principal.name,
    role: principal.role,
    via: principal.via ?? "none",
    action,
    target,
    method: request.method,
    path: new URL(request.url).pathname,
    status,
  };
  const details: Record<string, unknown> = { ...(override?.details ?? {}) };
  for (const note of scope?.notes ?? []) Object.assign(details, boundedDetails(note));
  if (Object.keys(details).length > 0) entry.details = details;
  // A fleet-wide write keeps its per-worker list even when one worker changed: the list names
  // the worker (the entry's target is the automation), which "revert to before" needs.
  if (scope && scope.configTotal >= 1 && FLEET_CONFIG_ACTIONS.has(action)) {
    entry.changes = scope.config;
    entry.changes_total = scope.configTotal;
    // every change is kept beside the entry (keepFleetChanges): GET /audit/{id}/changes
    if (scope.changesKept !== undefined) entry.changes_kept = scope.changesKept;
  } else if (scope && scope.configTotal === 1 && scope.config.length === 1) {
    entry.before = scope.config[0]!.before;
    entry.after = scope.config[0]!.after;
  } else if (scope && scope.configTotal > 1) {
    entry.changes = scope.config;
    entry.changes_total = scope.configTotal;
  }
  return entry;
}

export function currentScope(): Scope | undefined {
  return storage.getStore();
}

export function newAuditId(): string {
  return randomBytes(8).toString("hex");
}

/**
 * Appends one entry, for what has already happened (sign-out): a failure is logged loudly
 * rather than turned into an error answer for a change that was made.
 */
export async function appendAudit(backend: Backend, entry: AuditEntry): Promise<void> {
  try {
    await backend.auditAppend(pyJsonBytes(entry), authConfig().auditMaxEntries);
  } catch (err) {
    console.error(`[audit] could not record ${logText(entry.action)} on ${logText(entry.target)} by ${logText(entry.actor)}:`, errorText(err));
  }
}

export const AUDIT_UNWRITABLE = "The change was not made: its entry could not be written to the audit trail (fleet:console:audit). The cause is in the server log.";

/** What the route wrapper needs to complete a pending entry. */
export interface PendingAudit {
  entry: AuditEntry;
  bytes: Buffer;
}

/** Writes the entry of a change before the change; throws 503 (change nothing!) when it cannot. */
export async function auditBefore(backend: Backend, entry: AuditEntry): Promise<PendingAudit> {
  const pending: AuditEntry = { ...entry, outcome: "pending", status: 0 };
  const bytes = pyJsonBytes(pending);
  try {
    await backend.auditAppend(bytes, authConfig().auditMaxEntries);
  } catch (err) {
    // Redis is away: the usual 503 says so (and nothing was changed either)
    if (isBackendUnavailable(err)) throw err;
    console.error(`[audit] refused ${logText(entry.action)} on ${logText(entry.target)} by ${logText(entry.actor)}: its entry could not be written:`, errorText(err));
    throw new ApiError("backend_unavailable", AUDIT_UNWRITABLE);
  }
  return { entry: pending, bytes };
}

/** Completes a pending entry: the final entry in its place, or (null) its removal. Failures are logged. */
export async function auditAfter(backend: Backend, pending: PendingAudit, final: AuditEntry | null): Promise<void> {
  try {
    await backend.auditReplace(pending.bytes, final === null ? null : pyJsonBytes(final), authConfig().auditMaxEntries);
  } catch (err) {
    console.error(
      `[audit] the entry ${pending.entry.id} (${logText(pending.entry.action)} on ${logText(pending.entry.target)}) stays pending: its outcome could not be written:`,
      errorText(err),
    );
  }
}

/**
 * Completes, when its change has ended, an entry its route wrote as fixed (fixAuditEntry):
 * `final` takes the place of `started`; a `pending` entry still there (its request's process
 * died before completing it) goes, so the change keeps one entry. When `started` was trimmed
 * away, `final` is appended. Failures are logged. Call it once per change.
 */
export async function completeAudit(backend: Backend, pending: Buffer, started: Buffer, final: AuditEntry): Promise<void> {
  try {
    await backend.auditReplace(pending, null, authConfig().auditMaxEntries);
    await backend.auditReplace(started, pyJsonBytes(final), authConfig().auditMaxEntries);
  } catch (err) {
    console.error(`[audit] could not complete the entry ${final.id} (${logText(final.action)} on ${logText(final.target)}):`, errorText(err));
  }
}

/**
 * The final entry of a change whose handler threw: none (the pending entry goes) when the
 * failure is one that by the API's contract changed nothing, else `failed` with its status.
 */
export function failedEntry(pending: AuditEntry, err: unknown): AuditEntry | null {
  if (err instanceof ApiError && err.status < 500) return null;
  if (err instanceof NotFoundError || err instanceof StaleGenerationError || err instanceof CorruptDataError) return null;
  const status = isBackendUnavailable(err) || (err instanceof ApiError && err.code === "backend_unavailable") ? 503 : 500;
  return {
    ...pending,
    outcome: "failed",
    status,
    details: { ...(pending.details ?? {}), error: "the change failed part way and may be incomplete; the cause is in the server log" },
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
