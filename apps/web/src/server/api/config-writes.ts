// Config writes: PATCH (RFC 7386 merge patch) and PUT of one worker's config, and the
// fleet-wide rollout of a patch to every worker of a type. The merged result is checked
// against the catalog's `config` schema before anything is written, and the write is a
// compare-and-set on the config generation, so a concurrent change is never lost.
import { StaleGenerationError, isJsonObject, sameDocument, type Backend, type JsonObject, type WorkerRecord } from "@fleet/backend";
import { applyMergePatch, type ConfigResult, type ConfigRolloutResult, type ErrorDetail } from "@fleet/schema";

import { noteAction, noteConfigChange } from "@/server/audit/audit";
import { revertedWorkerBefore } from "@/server/audit/revert-of";

import { catalogValidator, checkAgainst, workerConfigDetails } from "./catalog-validation";
import { badRequest, conflict, notFound, preconditionFailed, validationFailed } from "./errors";
import { announceConfig, byString } from "./resources";
import { Reply } from "./route";
import { jsonForBrowser, keepNonFinite } from "./serialize";
import { refuseSharedWorkerKeys } from "./workers";

/**
 * `If-Match` as generations: null when absent or `*` (no precondition beyond existence),
 * else the generations listed (`"3"`, `W/"3"`, `"3", "4"`). Anything else is a 400.
 */
export function parseIfMatch(header: string | null): number[] | null {
  if (header === null) return null;
  const value = header.trim();
  if (value === "*" || value === "") return null;
  const gens: number[] = [];
  for (const part of value.split(",")) {
    const m = /^\s*(?:W\/)?"(\d{1,15})"\s*$/.exec(part);
    if (!m) throw badRequest(`If-Match must be the quoted config generation from the ETag, e.g. "3"; got ${header}.`);
    gens.push(Number(m[1]));
  }
  return gens;
}

export function etag(gen: number): string {
  return `"${gen}"`;
}

function requireObject(body: unknown, what: string): JsonObject {
  if (!isJsonObject(body)) throw validationFailed(`The body must be a JSON object (${what}).`, [{ path: "", message: "must be a JSON object" }]);
  return body;
}

/** The generation a write must start from; 0 when the worker has none yet. */
function currentGen(record: WorkerRecord): number {
  if (record.configGen !== null) return record.configGen;
  if (record.corrupt.includes("config_gen")) {
    throw conflict(
      `The stored config generation of worker '${record.workerId}' is not an integer, so a safe write is impossible; repair wkr:${record.automationType}:${record.workerId}:gen first.`,
    );
  }
  return 0;
}

function mergedConfig(record: WorkerRecord, patch: JsonObject): JsonObject {
  if (record.corrupt.includes("config")) {
    throw conflict(`The stored config of worker '${record.workerId}' is not a JSON object, so a patch cannot be applied to it; replace it with PUT.`);
  }
  return applyMergePatch(record.config ?? {}, patch) as JsonObject;
}

/**
 * What a config write is for, as the console's Pause / Resume buttons and the audit trail's
 * "Revert to before" say (`?intent=`, an
 * extension): recorded in the audit entry's details, and checked against the write (a pause
 * sets slots to 0, a resume sets them above 0), so the trail never calls a change a pause
 * that was not one.
 */
export type ConfigIntent = "pause" | "resume" | "revert";

function checkIntent(intent: ConfigIntent | undefined, before: JsonObject | null, after: JsonObject): void {
  if (intent === undefined) return;
  // a revert ("revert to before" on the audit trail) is any write; the entry says what it was for
  if (intent === "revert") {
    noteAction({ intent });
    return;
  }
  const slots = after.slots;
  if (intent === "pause" && slots !== 0) throw badRequest("intent=pause is a write that sets slots to 0; this one does not.");
  if (intent === "resume" && !(typeof slots === "number" && Number.isInteger(slots) && slots > 0)) {
    throw badRequest("intent=resume is a write that sets slots to a whole number above 0; this one does not.");
  }
  if (intent === "resume" && before?.slots !== 0) throw badRequest("intent=resume resumes a paused worker (slots 0); this one is not paused.");
  noteAction({ intent, slots_before: before?.slots ?? null, slots_after: slots });
}

export async function writeWorkerConfig(
  backend: Backend,
  request: Request,
  automationType: string,
  workerId: string,
  mode: "patch" | "put",
  body: unknown,
  intent?: ConfigIntent,
  revertOf?: string,
): Promise<Reply<ConfigResult>> {
  const given = requireObject(body, mode === "patch" ? "a JSON merge patch of the config" : "the whole new config");
  const ifMatch = parseIfMatch(request.headers.get("if-match"));
  const [record, catalog] = await Promise.all([backend.workerGet(automationType, workerId), backend.catalogGet(automationType)]);
  if (record === null) throw notFound(`There is no worker '${workerId}' of automation '${automationType}'.`);
  await refuseSharedWorkerKeys(backend, [record]);
  const gen = currentGen(record);
  if (ifMatch !== null && !ifMatch.includes(gen)) {
    throw preconditionFailed(`The config has changed: it is at generation ${gen}, not ${ifMatch.join(" or ")}. Reload it and apply your change again.`);
  }
  // a NaN the page was shown as "NaN" and sent back stays Python's NaN (see keepNonFinite):
  // where the config holds it now, and for a revert where the reverted entry's `before` held it
  const reverted = revertOf !== undefined ? await revertedWorkerBefore(backend, revertOf, automationType, workerId) : null;
  const config = keepNonFinite(record.config, keepNonFinite(reverted, mode === "patch" ? mergedConfig(record, given) : given));
  const details = checkAgainst(catalogValidator(automationType, catalog, "config"), config);
  if (details.length > 0) throw invalidConfig(automationType, details);
  checkIntent(intent, record.config, config);
  let written: { config: JsonObject; gen: number };
  try {
    written = await backend.workerSetConfig(automationType, workerId, config, { expectedGen: gen });
  } catch (err) {
    if (!(err instanceof StaleGenerationError)) throw err;
    if (ifMatch !== null) {
      throw preconditionFailed(`The config changed while this write was checked (now generation ${err.currentGen ?? "unreadable"}). Reload it and apply your change again.`);
    }
    throw conflict(`Someone else changed this worker's config at the same moment (now generation ${err.currentGen ?? "unreadable"}); nothing was written. Reload and try again.`);
  }
  noteConfigChange(workerId, record.config, written.config);
  await announceConfig(backend, automationType, workerId, written.gen);
  return new Reply({ config: jsonForBrowser(written.config), config_gen: written.gen }, { headers: { ETag: etag(written.gen) } });
}

function invalidConfig(automationType: string, details: ErrorDetail[]) {
  return validationFailed(
    `The config does not match the '${automationType}' config schema: ${details.length} problem${details.length > 1 ? "s" : ""}, listed in details.`,
    details,
  );
}

/**
 * PATCH /automations/{type}/config: every merged config validated first, then all written at once.
 * `skipUnchanged` (the console's `?skip_unchanged=true` extension): a worker whose merged config
 * equals its stored one is neither validated nor written (its generation stays), and is left out
 * of the answer, so "Apply to 4 workers" touches exactly those 4.
 */
export async function rolloutConfig(
  backend: Backend,
  automationType: string,
  body: unknown,
  { skipUnchanged = false }: { skipUnchanged?: boolean } = {},
): Promise<ConfigRolloutResult> {
  const patch = requireObject(body, "a JSON merge patch applied to every worker's config");
  const [refs, catalog] = await Promise.all([backend.workerList(automationType), backend.catalogGet(automationType)]);
  if (refs.length === 0 && catalog === null) throw notFound(`There is no automation '${automationType}' (no catalog entry and no worker).`);
  refs.sort((a, b) => byString(a.workerId, b.workerId));
  await refuseSharedWorkerKeys(backend, refs);
  const records = await backend.workersGet(refs);
  const validate = catalogValidator(automationType, catalog, "config");
  const writes = records.flatMap((record) => {
    const expectedGen = currentGen(record);
    const config = keepNonFinite(record.config, mergedConfig(record, patch));
    if (skipUnchanged && record.config !== null && sameDocument(config, record.config)) return [];
    return [{ automationType, workerId: record.workerId, config, expectedGen }];
  });
  const details = workerConfigDetails(validate, writes);
  if (details.length > 0) throw invalidConfig(automationType, details);
  if (writes.length === 0) return { workers: [] };
  let written: Array<{ workerId: string; gen: number }>;
  try {
    written = await backend.workerSetConfigMany(writes);
  } catch (err) {
    if (!(err instanceof StaleGenerationError)) throw err;
    throw conflict("A worker's config changed while the rollout was checked; nothing was written. Try the rollout again.");
  }
  const byWorker = new Map(records.map((r) => [r.workerId, r.config]));
  const after = new Map(writes.map((w) => [w.workerId, w.config]));
  for (const w of written) noteConfigChange(w.workerId, byWorker.get(w.workerId) ?? null, after.get(w.workerId) ?? null);
  await Promise.all(written.map((w) => announceConfig(backend, automationType, w.workerId, w.gen)));
  return { workers: written.map((w) => ({ worker_id: w.workerId, config_gen: w.gen })) };
}
