"use client";
// What happens after a config is saved, as the worker tells it: whether it runs the new
// generation yet (its stats frame's `config_gen` catching up, seen through the live updates),
// and, before saving, a warning when the worker is offline and will not pick it up soon.
import type { Worker } from "@fleet/schema";

/** The generation a worker says it runs (its latest stats frame's `config_gen`), or null. */
export function reportedGeneration(worker: Pick<Worker, "stats"> | undefined | null): number | null {
  const g = worker?.stats?.config_gen;
  return typeof g === "number" && Number.isFinite(g) ? g : null;
}

/** A worker's own words that it refused generation `gen` (the TypeScript runtime's last_error). */
function rejection(worker: Pick<Worker, "last_error">, gen: number): string | null {
  const e = worker.last_error;
  return typeof e === "string" && e.includes(`config gen ${gen} rejected`) ? e : null;
}

export type AppliedState = "applied" | "waiting" | "offline" | "rejected" | "unknown";

export function appliedState(worker: Pick<Worker, "stats" | "status" | "last_error">, gen: number): AppliedState {
  const reported = reportedGeneration(worker);
  if (rejection(worker, gen) !== null) return "rejected";
  if (reported !== null && reported >= gen) return "applied";
  if (worker.status === "offline") return "offline";
  return reported === null ? "unknown" : "waiting";
}

/**
 * "Waiting for the worker… applied ✓": one line under a save, following the worker's reported
 * generation live. `short` drops the explanations (a list of many workers).
 */
export function AppliedStatus({ worker, gen, short = false }: { worker: Pick<Worker, "worker_id" | "stats" | "status" | "last_error"> | undefined; gen: number; short?: boolean }) {
  if (!worker) return null;
  const state = appliedState(worker, gen);
  const reported = reportedGeneration(worker);
  const cls: Record<AppliedState, string> = {
    applied: "text-emerald-700 dark:text-emerald-400",
    waiting: "text-slate-600 dark:text-slate-300",
    offline: "text-amber-800 dark:text-amber-300",
    rejected: "text-red-700 dark:text-red-400",
    unknown: "text-slate-600 dark:text-slate-400",
  };
  let text: string;
  switch (state) {
    case "applied":
      text = reported !== null && reported > gen ? `Applied ✓ (it already runs generation ${reported})` : "Applied ✓ the worker runs it";
      break;
    case "waiting":
      text = short ? `Waiting for the worker… (runs ${reported})` : `Waiting for the worker… it still runs generation ${reported}.`;
      break;
    case "offline":
      text = short ? "Offline: not picked up yet" : "The worker is offline: it picks this generation up when it comes back, if ever.";
      break;
    case "rejected":
      text = short ? "Rejected by the worker" : `The worker rejected it and keeps its previous config: ${rejection(worker, gen)}`;
      break;
    case "unknown":
      text = short ? "Not reported" : "The worker does not report which generation it runs, so the console cannot tell when it applies it.";
      break;
  }
  return (
    <span className={`inline-flex items-center gap-1.5 ${cls[state]}`} data-testid="config-applied" data-state={state}>
      {state === "waiting" && (
        <span aria-hidden className="inline-block size-3 animate-spin rounded-full border-2 border-current border-r-transparent motion-reduce:animate-none" />
      )}
      <span className="break-words">{text}</span>
    </span>
  );
}

/** The review's warning: offline workers take a config only when they come back. */
export function OfflineWarning({ workers }: { workers: ReadonlyArray<Pick<Worker, "worker_id" | "status">> }) {
  const offline = workers.filter((w) => w.status === "offline");
  if (offline.length === 0) return null;
  const names = offline.slice(0, 5).map((w) => w.worker_id);
  const more = offline.length > names.length ? ` and ${offline.length - names.length} more` : "";
  return (
    <p
      role="note"
      data-testid="offline-warning"
      className="mb-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
    >
      <span aria-hidden>⚠ </span>
      {offline.length === 1 && workers.length === 1 ? (
        <>This worker is offline: the config is saved now, but it picks it up only when it comes back, if ever.</>
      ) : (
        <>
          {offline.length === 1 ? "1 of these workers is" : `${offline.length} of these workers are`} offline ({names.join(", ")}
          {more}): {offline.length === 1 ? "it picks" : "they pick"} the change up only when {offline.length === 1 ? "it comes" : "they come"} back, if ever.
        </>
      )}
    </p>
  );
}

/** "w1 → generation 3, w2 → generation 5" for the first `shown` workers written, then how many more (a rollout can write thousands). */
export function generationsText(workers: ReadonlyArray<{ worker_id: string; config_gen: number }>, shown = 10): string {
  const listed = workers
    .slice(0, shown)
    .map((w) => `${w.worker_id} → generation ${w.config_gen}`)
    .join(", ");
  return workers.length > shown ? `${listed} and ${workers.length - shown} more` : listed;
}
