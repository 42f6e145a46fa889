// Bulk actions of the worker list (issue 14.4): remove offline workers, and apply one config
// change to selected workers of one automation. Each request is one audited action with its
// counts (the route wrapper's entry, completed with noteAction / noteConfigChange); the Redis
// work is batched (Backend.workersRemoveOffline: one script per 100 workers, all sent at once;
// workerSetConfigMany: one atomic script). A request that fails its checks writes nothing.
import { StaleGenerationError, isJsonObject, sameDocument, type Backend, type JsonObject, type WorkerRef } from "@fleet/backend";
import { applyMergePatch, type BulkConfigBody, type BulkConfigResult, type BulkRemoveWorkersBody, type BulkRemoveWorkersResult } from "@fleet/schema";

import { noteAction, noteConfigChange } from "@/server/audit/audit";
import { holdsNonFiniteToken, revertedFleetBefores } from "@/server/audit/revert-of";

import { catalogValidator, workerConfigDetails } from "./catalog-validation";
import { conflict, notFound, preconditionFailed, validationFailed } from "./errors";
import { announceAdmin, announceConfig, byString } from "./resources";
import { keepNonFinite, workerStatus } from "./serialize";
import { matchingWorkers, refuseSharedWorkerKeys } from "./workers";

const refKey = (r: WorkerRef) => JSON.stringify([r.automationType, r.workerId]);
const toBody = (r: WorkerRef) => ({ automation_type: r.automationType, worker_id: r.workerId });
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function nameSome(refs: WorkerRef[]): string {
  const shown = refs.slice(0, 5).map((r) => `${r.automationType}/${r.workerId}`);
  return `${shown.join(", ")}${refs.length > 5 ? ` and ${refs.length - 5} more` : ""}`;
}

/**
 * POST /workers/bulk-remove. Named workers: every one must be offline now (else 409, nothing
 * removed); workers no longer there are reported `missing`. `all` + filter: the offline
 * workers matching the filter (as GET /workers?status=offline would list them); `expected`,
 * when given, must still be their number (else 409). Each removal re-checks last_seen
 * atomically: a worker that reported meanwhile is kept (`kept_online`).
 */
export async function bulkRemoveWorkers(backend: Backend, body: BulkRemoveWorkersBody, now: number, offlineAfterSeconds: number): Promise<BulkRemoveWorkersResult> {
  let targets: WorkerRef[];
  let missing: WorkerRef[] = [];
  let requested: number;
  if ("workers" in body) {
    const seen = new Set<string>();
    const refs: WorkerRef[] = [];
    for (const w of body.workers) {
      const ref = { automationType: w.automation_type, workerId: w.worker_id };
      if (seen.has(refKey(ref))) continue;
      seen.add(refKey(ref));
      refs.push(ref);
    }
    requested = refs.length;
    const index = await backend.workersIndex(refs);
    const online: WorkerRef[] = [];
    targets = [];
    index.forEach((e, i) => {
      const ref = refs[i]!;
      const exists = e.registered || e.state !== null || e.lastSeen !== null || e.corrupt.length > 0;
      if (!exists) missing.push(ref);
      else if (workerStatus(e.state, e.lastSeen, now, offlineAfterSeconds) !== "offline") online.push(ref);
      else targets.push(ref);
    });
    if (online.length > 0) {
      throw conflict(`Only offline workers can be removed in bulk; ${plural(online.length, "worker is", "workers are")} not offline: ${nameSome(online)}. Nothing was removed.`);
    }
  } else {
    const entries = await matchingWorkers(backend, body.filter, now, offlineAfterSeconds);
    targets = entries.filter((e) => e.status === "offline").map(({ entry }) => ({ automationType: entry.automationType, workerId: entry.workerId }));
    requested = targets.length;
    if (body.expected !== undefined && body.expected !== targets.length) {
      throw conflict(`The filter now matches ${plural(targets.length, "offline worker")}, not ${body.expected}; nothing was removed. Review the list and try again.`);
    }
  }
  await refuseSharedWorkerKeys(backend, targets);
  const outcome = await backend.workersRemoveOffline(targets, now - offlineAfterSeconds);
  const keptOnline = targets.filter((_, i) => outcome[i] === "online");
  missing = [...missing, ...targets.filter((_, i) => outcome[i] === "absent")];
  const removed = outcome.filter((o) => o === "removed").length;
  noteAction({
    requested,
    removed,
    kept_online: keptOnline.length,
    missing: missing.length,
    ...("filter" in body ? { filter: body.filter } : {}),
    workers: targets.filter((_, i) => outcome[i] === "removed").map((r) => `${r.automationType}/${r.workerId}`),
  });
  if (removed > 0) await announceAdmin(backend, "workers.bulk_remove", { removed });
  return { requested, removed, kept_online: keptOnline.map(toBody), missing: missing.map(toBody) };
}

/**
 * POST /workers/bulk-config: the review's merge patch applied to each named worker of one
 * automation (or each worker's own whole config, for a revert), conflict-safe per worker: each worker's generation must still be the one the
 * review showed (412 naming the changed ones, nothing written), every merged config is
 * validated against the catalog's schema first (422, nothing written), and all are written in
 * one atomic compare-and-set on those generations (409 if one moved in between). Workers the
 * patch would not change are left alone and counted as `unchanged`.
 */
export async function bulkConfigWorkers(backend: Backend, body: BulkConfigBody): Promise<BulkConfigResult> {
  const type = body.automation_type;
  const wanted = new Map<string, number>();
  // Each worker's new config: the patch merged into what it has, or the config it was given.
  const own = new Map<string, JsonObject>();
  for (const w of body.workers) {
    wanted.set(w.worker_id, w.config_gen);
    if (w.config !== undefined) own.set(w.worker_id, w.config as JsonObject);
  }
  const refs = [...wanted.keys()].sort(byString).map((workerId) => ({ automationType: type, workerId }));
  const [records, catalog] = await Promise.all([backend.workersGet(refs), backend.catalogGet(type)]);
  const unknown = records.filter((r) => !r.registered);
  if (unknown.length > 0) throw notFound(`There is no worker ${nameSome(unknown)} of automation '${type}'; nothing was written.`);
  await refuseSharedWorkerKeys(backend, refs);
  const stale = records.filter((r) => (r.configGen ?? 0) !== wanted.get(r.workerId) || r.corrupt.includes("config_gen"));
  if (stale.length > 0) {
    throw preconditionFailed(
      `The config of ${plural(stale.length, "worker")} changed since the review (${stale
        .slice(0, 5)
        .map((r) => `${r.workerId}: now generation ${r.configGen ?? "unreadable"}`)
        .join(", ")}${stale.length > 5 ? ", …" : ""}); nothing was written. Review the change again.`,
    );
  }
  // A worker given its whole config is written like a PUT: an unreadable stored one is no obstacle.
  const unreadable = records.filter((r) => r.corrupt.includes("config") && !own.has(r.workerId));
  if (unreadable.length > 0) {
    throw conflict(`The stored config of ${nameSome(unreadable)} is not a JSON object, so a patch cannot be applied to it; nothing was written.`);
  }
  // a NaN the review was shown as "NaN" and sent back stays Python's NaN (see keepNonFinite):
  // where the config holds it now, and for a revert where the reverted entry's `before` held it
  const reverted =
    body.revert_of !== undefined ? await revertedFleetBefores(backend, body.revert_of, type, new Set(own.keys()), [...own.values()].some(holdsNonFiniteToken)) : null;
  const next = (r: { workerId: string; config: JsonObject | null }) =>
    keepNonFinite(r.config, keepNonFinite(reverted?.get(r.workerId) ?? null, own.get(r.workerId) ?? applyMergePatch(r.config ?? {}, body.patch as JsonObject)));
  const validate = catalogValidator(type, catalog, "config");
  let unchanged = 0;
  const writes = records.flatMap((r) => {
    const config = next(r);
    if (!isJsonObject(config)) return [];
    if (r.config !== null && sameDocument(config, r.config)) {
      unchanged += 1;
      return [];
    }
    return [{ automationType: type, workerId: r.workerId, config, expectedGen: r.configGen ?? 0 }];
  });
  const details = workerConfigDetails(validate, writes);
  if (details.length > 0) {
    throw validationFailed(`The change does not match the '${type}' config schema: ${plural(details.length, "problem")}, listed in details; nothing was written.`, details);
  }
  let written: Array<{ workerId: string; gen: number }> = [];
  if (writes.length > 0) {
    try {
      written = await backend.workerSetConfigMany(writes);
    } catch (err) {
      if (!(err instanceof StaleGenerationError)) throw err;
      throw conflict("A worker's config changed while the change was checked; nothing was written. Review the change again.");
    }
  }
  const before = new Map(records.map((r) => [r.workerId, r.config]));
  const after = new Map(writes.map((w) => [w.workerId, w.config]));
  for (const w of written) noteConfigChange(w.workerId, before.get(w.workerId) ?? null, after.get(w.workerId) ?? null);
  noteAction({ automation_type: type, requested: refs.length, written: written.length, unchanged, ...(body.intent ? { intent: body.intent } : {}) });
  await Promise.all(written.map((w) => announceConfig(backend, type, w.workerId, w.gen)));
  return { workers: written.map((w) => ({ worker_id: w.workerId, config_gen: w.gen })), unchanged };
}
