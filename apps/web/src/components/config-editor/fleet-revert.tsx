"use client";
// "Revert to before" of a fleet-wide config write (issue 19.5), opened from the audit trail on
// the automation page (`?revert=<key>`, the request in sessionStorage: src/lib/revert.ts). The
// review is the rollout's: per worker, what changes from the config stored now back to the one
// before that write, with its generation, offline workers named, workers already back left
// alone. Saving writes each worker's earlier config at the generation this review shows
// (POST /workers/bulk-config, intent=revert): when one moved meanwhile nothing is written and
// the review, which follows the live worker list, shows the new state to confirm again.
import { useEffect, useMemo, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { BulkConfigResultSchema, type BulkConfigBody, type BulkConfigResult, type Worker } from "@fleet/schema";

import { ApiError, apiPost, errorMessage } from "@/lib/api";
import { localDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query";
import { takeFleetRevert, type FleetRevertRequest } from "@/lib/revert";

import { ChangeList } from "./change-list";
import { diffConfig, isPlainObject, jsonEqual } from "./diff";
import { EditorDialog } from "./editor-dialog";
import { humanizeServerMessage } from "./messages";
import { configIssues, type EditorSchema } from "./shared";
import { AppliedStatus, OfflineWarning } from "./worker-notes";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

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

  const byId = useMemo(() => new Map(workers.map((w) => [w.worker_id, w])), [workers]);
  const plans = useMemo<Plan[]>(() => {
    if (!request) return [];
    return request.workers.flatMap((r) => {
      const worker = byId.get(r.workerId);
      if (!worker) return [];
      const now = isPlainObject(worker.config) ? worker.config : {};
      const changes = diffConfig(now, r.before);
      const problems = changes.length === 0 ? [] : configIssues(s, r.before).map((i) => (i.where ? `${i.where}: ${i.message}` : i.message));
      return [{ worker, now, before: r.before, changes, changedSince: !jsonEqual(now, r.after ?? {}), problems }];
    });
  }, [request, byId, s]);
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
  const gone = req.workers.filter((r) => !byId.has(r.workerId)).map((r) => r.workerId);
  const changing = plans.filter((p) => p.changes.length > 0);
  const already = plans.length - changing.length;
  const invalid = changing.filter((p) => p.problems.length > 0);
  const n = changing.length;

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const body: BulkConfigBody = {
        automation_type: automationType,
        intent: "revert",
        workers: changing.map((p) => ({ worker_id: p.worker.worker_id, config_gen: p.worker.config_gen ?? 0, config: p.before })),
      };
      const res = await apiPost("/workers/bulk-config", BulkConfigResultSchema, body);
      setResult(res);
      setOpen(false);
    } catch (err) {
      setError(err);
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
            : `Reverted ${plural(result.workers.length, "worker")} to the config before ${by}: ${result.workers.map((w) => `${w.worker_id} → generation ${w.config_gen}`).join(", ")}.`
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
        {gone.length > 0 && <span className="block">No longer registered, left out: {gone.join(", ")}.</span>}
        {result && result.workers.length > 0 && (
          <ul className="mt-1 flex flex-col gap-0.5">
            {result.workers.slice(0, 20).map((w) => (
              <li key={w.worker_id} className="flex flex-wrap gap-x-2">
                <span className="font-mono">{w.worker_id}</span>
                <AppliedStatus worker={byId.get(w.worker_id)} gen={w.config_gen} short />
              </li>
            ))}
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
              {busy ? "Reverting…" : `Revert ${plural(n, "worker")}`}
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
          {changing.map((p) => (
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
        {error !== null && (
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
