// The check GET /workers' answer goes through instead of WorkerListSchema.safeParse: the
// same rules, written out, over up to 1,000 rows. zod's parse copies every row and every
// JSON object inside it (z.record) to check values the serializer built a moment ago; on
// 1,000 workers that was more time than reading them from Redis. workers-check.test.ts
// holds this check to the schema: for generated rows both accept or both refuse.
const STATES = new Set(["IDLE", "RUNNING", "ERROR"]);
const STATUSES = new Set(["running", "idle", "error", "offline"]);
const WORKER_KEYS = new Set([
  "automation_type",
  "worker_id",
  "state",
  "status",
  "last_seen",
  "last_error",
  "last_error_since",
  "config",
  "config_gen",
  "hardware",
  "stats",
  "corrupt",
]);

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isInt = (v: unknown): boolean => isNumber(v) && Number.isSafeInteger(v);
const isRecord = (v: unknown): boolean => typeof v === "object" && v !== null && !Array.isArray(v);
const nullOr = (v: unknown, ok: (v: unknown) => boolean): boolean => v === null || ok(v);

/** What is wrong with one row (`at` names it), or null. */
function workerProblem(w: unknown, at: string): string | null {
  if (!isRecord(w)) return `${at} is not an object`;
  const o = w as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!WORKER_KEYS.has(k)) return `${at}.${k} is not a Worker field`;
  if (typeof o.automation_type !== "string") return `${at}.automation_type is not a string`;
  if (typeof o.worker_id !== "string") return `${at}.worker_id is not a string`;
  if (!nullOr(o.state, (v) => typeof v === "string" && STATES.has(v))) return `${at}.state is not IDLE, RUNNING, ERROR or null`;
  if (typeof o.status !== "string" || !STATUSES.has(o.status)) return `${at}.status is not a status`;
  if (!nullOr(o.last_seen, isNumber)) return `${at}.last_seen is not a finite number or null`;
  if (!nullOr(o.last_error, (v) => typeof v === "string")) return `${at}.last_error is not a string or null`;
  if (o.last_error_since !== undefined && !nullOr(o.last_error_since, isNumber)) return `${at}.last_error_since is not a finite number or null`;
  if (!nullOr(o.config, isRecord)) return `${at}.config is not an object or null`;
  if (!nullOr(o.config_gen, isInt)) return `${at}.config_gen is not an integer or null`;
  if (!nullOr(o.hardware, isRecord)) return `${at}.hardware is not an object or null`;
  if (!nullOr(o.stats, isRecord)) return `${at}.stats is not an object or null`;
  if (o.corrupt !== undefined && !(Array.isArray(o.corrupt) && o.corrupt.every((c) => typeof c === "string"))) return `${at}.corrupt is not a list of strings`;
  return null;
}

/** Null when `body` is a valid WorkerList (as WorkerListSchema decides), else what is wrong. */
export function workerListProblem(body: unknown): string | null {
  if (!isRecord(body)) return "the answer is not an object";
  const o = body as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== "total" && k !== "counts" && k !== "workers") return `${k} is not a WorkerList field`;
  if (!isInt(o.total)) return "total is not an integer";
  if (!isRecord(o.counts)) return "counts is not an object";
  const counts = o.counts as Record<string, unknown>;
  for (const k of Object.keys(counts)) if (!STATUSES.has(k)) return `counts.${k} is not a status`;
  for (const k of STATUSES) if (!isInt(counts[k])) return `counts.${k} is not an integer`;
  if (!Array.isArray(o.workers)) return "workers is not a list";
  for (let i = 0; i < o.workers.length; i++) {
    const problem = workerProblem(o.workers[i], `workers[${i}]`);
    if (problem !== null) return problem;
  }
  return null;
}
