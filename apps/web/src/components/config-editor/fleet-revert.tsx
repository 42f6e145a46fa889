"use client";
// "Revert to before" of a fleet-wide config write (issue 19.5), opened from the audit trail on
// the automation page (`?revert=<key>`, the request in sessionStorage: src/lib/revert.ts). The
// review is the rollout's: per worker, what changes from the config stored now back to the one
// before that write, with its generation, offline workers named, workers already back left
// alone. Saving writes each worker's earlier config at the generation this review shows
// (POST /workers/bulk-config, intent=revert): when one moved meanwhile nothing is written and
// the review, which follows the live worker list, shows the new state to confirm again.
// A write of more than 100 workers keeps its changes beside its audit entry: they are read
// from GET /audit/{id}/changes (1,000 a page) when the review opens, and the revert is written
// MAX_BULK_CONFIG_WORKERS at a time, one request (and one audit entry) each, in order; the
// first that fails stops the rest, and the notice says how far it got.
import { useEffect, useMemo, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { AuditChangesSchema, BulkConfigResultSchema, MAX_BULK_CONFIG_WORKERS, type BulkConfigBody, type BulkConfigResult, type Worker } from "@fleet/schema";

import { ApiError, apiGet, apiPost, errorMessage } from "@/lib/api";
import { localDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query";
import { takeFleetRevert, type FleetRevertRequest } from "@/lib/revert";

import { ChangeList } from "./change-list";
import { diffConfig, isPlainObject, jsonEqual } from "./diff";
import { EditorDialog } from "./editor-dialog";
import { humanizeServerMessage } from "./messages";
import { configIssues, type EditorSchema } from "./shared";
import { AppliedStatus, OfflineWarning, generationsText } from "./worker-notes";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Workers whose changes the review shows in full; past that it says how many more there are. */
const REVIEW_SHOWN = 500;

type RevertWorker = FleetRevertRequest["workers"][number];

/** Every change kept beside audit entry `entryId`, page by page; items that are not a worker's change are counted, not used. */
async function fetchKeptChanges(entryId: string, signal: AbortSignal): Promise<{ workers: RevertWorker[]; unreadable: number }> {
  const workers: RevertWorker[] = [];
  let unreadable = 0;
  for (let offset = 0; ; offset += 1000) {
    const page = await apiGet(`/audit/${entryId}/changes?offset=${offset}&limit=1000`, AuditChangesSchema, signal);
    for (const c of page.changes) {
      const before = c.before === null ? {} : c.before;
      if (c.worker_id === null || !isPlainObject(before)) unreadable += 1;
      else workers.push({ workerId: c.worker_id, before, after: c.after });
    }
    if (page.changes.length === 0 || offset + 1000 >= page.total) break;
  }
  return { workers, unreadable };
}

interface Plan {
  worker: Worker;
  now: Record<string, unknown>;
  before: Record<string, unknown>;
  changes: ReturnType<typeof diffConfig>;
  /** Its config is no longer what that write left: reverting also undoes the later changes. */
  changedSince: boolean;
  problems: string[];
}

/** The request named in the URL, taken once (the key is used up) and the URL cleaned. */
function useRevertRequest(automationType: string): { request: FleetRevertRequest | null; unavailable: boolean } {
  const [state, setState] = useState<{ request: FleetRevertRequest | null; unavailable: boolean }>({ request: null, unavailable: false });
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on the first render of a loaded rollout form (the key is used up)
  useEffect(() => {
    const url = new URL(window.location.href);
    const key = url.searchParams.get("revert");
    if (key === null) return;
    url.searchParams.delete("revert");
    window.history.replaceState(window.history.state, "", url.toString());
    const r = takeFleetRevert(key, automationType);
    setState(r === null ? { request: null, unavailable: true } : { request: r, unavailable: false });
  }, []);
  return state;
}

export function FleetRevert({ automationType, workers, s }: { automationType: string; workers: Worker[]; s: EditorSchema }) {
  const qc = useQueryClient();
  const { request, unavailable } = useRevertRequest(automationType);
  const [open, setOpen] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<BulkConfigResult | null>(null);

  const [progress, setProgress] = useState<{ done: number; of: number } | null>(null);
  const entryId = request?.kept?.entryId ?? null;
  const keptQ = useQuery({
    queryKey: ["audit", "changes", entryId],
    queryFn: ({ signal }) => fetchKeptChanges(entryId!, signal),
    enabled: entryId !== null,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const entries = useMemo(() => (request?.kept ? (keptQ.data?.workers ?? []) : (request?.workers ?? [])), [request, keptQ.data]);

  const byId = useMemo(() => new Map(workers.map((w) => [w.worker_id, w])), [workers]);
  const plans = useMemo<Plan[]>(() => {
    if (!request) return [];
    return entries.flatMap((r) => {
      const worker = byId.get(r.workerId);
      if (!worker) return [];
      const now = isPlainObject(worker.config) ? worker.config : {};
      const changes = diffConfig(now, r.before);
      const problems = changes.length === 0 ? [] : configIssues(s, r.before).map((i) => (i.where ? `${i.where}: ${i.message}` : i.message));
      return [{ worker, now, before: r.before, changes, changedSince: !jsonEqual(now, r.after ?? {}), problems }];
    });
  }, [request, entries, byId, s]);
  if (!request && !unavailable) return null;

  if (unavailable) {
    return (
      <p role="status" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100">
        That revert is no longer available here (it was started in another tab, or already used). Start it again from the audit trail.
      </p>
    );
  }
  const req = request!;
  const by = `${req.actor ?? "someone"}'s change${req.ts !== null ? ` of ${localDateTime(req.ts)}` : ""}`;
  if (req.kept && (keptQ.isPending || keptQ.isError)) {
    return (
      <p
        role="status"
        data-testid="fleet-revert-notice"
        className="rounded-md border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-950 dark:border-sky-800 dark:bg-sky-950/40 dark:text-sky-100"
      >
        {keptQ.isPending ? (
          `Loading the ${plural(req.kept.total, "worker")}' configs from before ${by}…`
        ) : (
          <>
            Could not load the configs from before {by}: {errorMessage(keptQ.error)}{" "}
            <button type="button" className="link" onClick={() => void keptQ.refetch()}>
              Try again
            </button>
          </>
        )}
      </p>
    );
  }
  const unreadable = keptQ.data?.unreadable ?? 0;
  const gone = entries.filter((r) => !byId.has(r.workerId)).map((r) => r.workerId);
  const changing = plans.filter((p) => p.changes.length > 0);
  const already = plans.length - changing.length;
  const invalid = changing.filter((p) => p.problems.length > 0);
  const n = changing.length;

  const save = async () => {
    setBusy(true);
    setError(null);
    // MAX_BULK_CONFIG_WORKERS per request, in order; the first failure stops the rest
    const done: BulkConfigResult = { workers: [], unchanged: 0 };
    setProgress(n > MAX_BULK_CONFIG_WORKERS ? { done: 0, of: n } : null);
    try {
      for (let i = 0; i < changing.length; i += MAX_BULK_CONFIG_WORKERS) {
        const body: BulkConfigBody = {
          automation_type: automationType,
          intent: "revert",
          ...(req.entryId !== undefined ? { revert_of: req.entryId } : {}),
          workers: changing.slice(i, i + MAX_BULK_CONFIG_WORKERS).map((p) => ({ worker_id: p.worker.worker_id, config_gen: p.worker.config_gen ?? 0, config: p.before })),
        };
        const res = await apiPost("/workers/bulk-config", BulkConfigResultSchema, body);
        done.workers.push(...res.workers);
        done.unchanged += res.unchanged;
        if (n > MAX_BULK_CONFIG_WORKERS) setProgress({ done: Math.min(n, i + MAX_BULK_CONFIG_WORKERS), of: n });
      }
      setResult(done);
      setOpen(false);
    } catch (err) {
      setError(err);
      // what the earlier requests wrote stays written: say so
      if (done.workers.length > 0) setResult(done);
    } finally {
      setBusy(false);
      // Either way, the review and the form follow what is stored now.
      void qc.invalidateQueries({ queryKey: queryKeys.workers.all });
    }
  };

  return (
    <>
      <div
        role="status"
        data-testid="fleet-revert-notice"
        className="rounded-md border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-950 dark:border-sky-800 dark:bg-sky-950/40 dark:text-sky-100"
      >
        {result
          ? result.workers.length === 0
            ? `Nothing was written: every worker was already as it was before ${by}.`
            : `Reverted ${plural(result.workers.length, "worker")} to the config before ${by}: ${generationsText(result.workers)}.`
          : n === 0
            ? `Every worker is already as it was before ${by}: nothing to revert.`
            : `Reverting ${plural(n, "worker")} to the config before ${by}.`}
        {!result && n > 0 && !open && (
          <>
            {" "}
            <button type="button" className="link" onClick={() => setOpen(true)}>
              Review the revert again
            </button>
          </>
        )}
        {result && error !== null && (
          <span className="block font-medium" role="alert">
            Then stopped, {plural(n - result.workers.length - result.unchanged, "worker")} not reverted: {errorMessage(error)}
          </span>
        )}
        {gone.length > 0 && (
          <span className="block">
            No longer registered, left out: {gone.slice(0, 50).join(", ")}
            {gone.length > 50 ? ` and ${gone.length - 50} more` : ""}.
          </span>
        )}
        {unreadable > 0 && <span className="block">{plural(unreadable, "kept change")} of that write could not be read and are left out.</span>}
        {result && result.workers.length > 0 && (
          <ul className="mt-1 flex flex-col gap-0.5">
            {result.workers.slice(0, 20).map((w) => (
              <li key={w.worker_id} className="flex flex-wrap gap-x-2">
                <span className="font-mono">{w.worker_id}</span>
                <AppliedStatus worker={byId.get(w.worker_id)} gen={w.config_gen} short />
              </li>
            ))}
            {result.workers.length > 20 && <li className="text-slate-600 dark:text-slate-300">…and {result.workers.length - 20} more</li>}
          </ul>
        )}
      </div>

      <EditorDialog
        open={open && !result && n > 0}
        busy={busy}
        title={`Revert ${plural(n, "worker")} of ${automationType}?`}
        testId="fleet-revert-review"
        onClose={() => {
          setOpen(false);
          setError(null);
        }}
        footer={
          <>
            <button type="button" className="btn" disabled={busy} onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="button" className="btn-primary" disabled={busy || invalid.length > 0} aria-busy={busy} onClick={() => void save()} autoFocus>
              {busy ? (progress ? `Reverting… ${progress.done} of ${progress.of}` : "Reverting…") : `Revert ${plural(n, "worker")}`}
            </button>
          </>
        }
      >
        <p className="mb-3 text-slate-600 dark:text-slate-300">
          Each worker goes back to its config from before {by}. Below: what changes from what it stores now (its generation goes up by one). If a worker&apos;s config changes while
          you read this, nothing is written and this review shows the new state.
          {already > 0 ? ` ${already === 1 ? "1 worker is" : `${already} workers are`} already back and left alone.` : ""}
        </p>
        <OfflineWarning workers={changing.map((p) => p.worker)} />
        <div className="flex flex-col gap-4">
          {changing.slice(0, REVIEW_SHOWN).map((p) => (
            <div key={p.worker.worker_id} data-testid="fleet-revert-worker">
              <h3 className="mb-1 font-mono text-sm font-semibold">
                {p.worker.worker_id}{" "}
                <span className="font-sans font-normal text-slate-500 dark:text-slate-400">
                  (generation {p.worker.config_gen ?? 0} → {(p.worker.config_gen ?? 0) + 1}
                  {p.worker.status === "offline" ? ", offline" : ""})
                </span>
              </h3>
              {p.changedSince && (
                <p className="mb-1 text-sm text-amber-800 dark:text-amber-300" data-testid="changed-since">
                  ⚠ Changed again since that change: reverting also undoes the later changes listed here.
                </p>
              )}
              <ChangeList changes={p.changes} schema={s.declared} stored={p.now} />
              {p.problems.length > 0 && (
                <p role="alert" className="mt-1 text-sm text-red-800 dark:text-red-300">
                  The earlier config no longer passes the schema: {p.problems.join(" ")}
                </p>
              )}
            </div>
          ))}
        </div>
        {changing.length > REVIEW_SHOWN && (
          <p className="mt-3 text-sm text-slate-600 dark:text-slate-300" data-testid="fleet-revert-more">
            …and {plural(changing.length - REVIEW_SHOWN, "more worker")}, each back to its own config from before {by} (written {MAX_BULK_CONFIG_WORKERS} at a time).
          </p>
        )}
        {error !== null && !result && (
          <div role="alert" className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
            Not reverted: {errorMessage(error)}
            {error instanceof ApiError && error.details.length > 0 && (
              <ul className="mt-1 list-disc pl-5">
                {error.details.map((d, i) => (
                  <li key={i}>
                    <code>{d.path || "/"}</code>: {humanizeServerMessage(d.message)}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </EditorDialog>
    </>
  );
}
