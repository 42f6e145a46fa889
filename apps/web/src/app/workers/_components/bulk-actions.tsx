"use client";
// Bulk actions of the worker list (issue 14.4): the selection's bar, "remove offline workers"
// (only offline ones; the dialog names the count; POST /workers/bulk-remove) and "change
// config" (a merge patch reviewed per worker, old beside new, then written at the generations
// the review showed: POST /workers/bulk-config answers 412 and writes nothing when one moved).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import {
  BulkConfigResultSchema,
  BulkRemoveWorkersResultSchema,
  WorkerDetailSchema,
  WorkerListSchema,
  type BulkConfigBody,
  type BulkRemoveWorkersBody,
  type Worker,
  type WorkerFilterBody,
} from "@fleet/schema";

import { ConfirmDialog } from "@/components/confirm-dialog";
import { ChangeList } from "@/components/config-editor/change-list";
import { applyMergePatch, diffConfig, isPlainObject, jsonEqual, type JsonObject } from "@/components/config-editor/diff";
import { ApiError, apiGet, apiPost, errorMessage, qs, seg } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { queries, queryKeys } from "@/lib/query";

const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** What is selected: rows picked one by one, or every worker matching the filter. */
export type Selection = { kind: "rows"; workers: Worker[] } | { kind: "all"; total: number; offline: number };

export function BulkBar({
  selection,
  filter,
  status,
  onClear,
  onDone,
}: {
  selection: Selection;
  filter: WorkerFilterBody;
  /** The list's status filter: "all matching" means these statuses only. */
  status?: string;
  onClear: () => void;
  onDone: (note: string) => void;
}) {
  const [dialog, setDialog] = useState<"remove" | "config" | null>(null);
  const count = selection.kind === "rows" ? selection.workers.length : selection.total;
  const offline = selection.kind === "rows" ? selection.workers.filter((w) => w.status === "offline").length : selection.offline;
  const types = selection.kind === "rows" ? [...new Set(selection.workers.map((w) => w.automation_type))] : filter.type ? [filter.type] : [];
  const configReason = types.length !== 1 ? "Select workers of one automation (or filter by one) to change their config." : count > 1000 ? "At most 1,000 workers at once." : null;
  return (
    <div
      role="region"
      aria-label="Selected workers"
      className="mb-2 flex flex-wrap items-center gap-2 rounded-md border border-sky-300 bg-sky-50 px-3 py-2 text-sm dark:border-sky-800 dark:bg-sky-950/40"
    >
      <span className="font-medium" data-testid="bulk-count">
        {plural(count, "worker")} selected{selection.kind === "all" ? " (all matching this filter)" : ""}
      </span>
      <button type="button" className="btn-danger" disabled={offline === 0} onClick={() => setDialog("remove")}>
        Remove {plural(offline, "offline worker")}…
      </button>
      <button type="button" className="btn" disabled={configReason !== null} title={configReason ?? undefined} onClick={() => setDialog("config")}>
        Change config…
      </button>
      {configReason !== null && <span className="text-xs text-slate-600 dark:text-slate-300">{configReason}</span>}
      <button type="button" className="link ml-auto" onClick={onClear}>
        Clear selection
      </button>
      {dialog === "remove" && (
        <RemoveDialog
          selection={selection}
          offline={offline}
          filter={filter}
          onClose={() => setDialog(null)}
          onDone={(note) => {
            setDialog(null);
            onDone(note);
          }}
        />
      )}
      {dialog === "config" && types.length === 1 && (
        <ConfigDialog
          automationType={types[0]!}
          selection={selection}
          filter={filter}
          status={status}
          onClose={() => setDialog(null)}
          onDone={(note) => {
            setDialog(null);
            onDone(note);
          }}
        />
      )}
    </div>
  );
}

function RemoveDialog({
  selection,
  offline,
  filter,
  onClose,
  onDone,
}: {
  selection: Selection;
  offline: number;
  filter: WorkerFilterBody;
  onClose: () => void;
  onDone: (note: string) => void;
}) {
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const skipped = (selection.kind === "rows" ? selection.workers.length : selection.total) - offline;
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      const body: BulkRemoveWorkersBody =
        selection.kind === "rows"
          ? { workers: selection.workers.filter((w) => w.status === "offline").map((w) => ({ automation_type: w.automation_type, worker_id: w.worker_id })) }
          : { all: true, filter, expected: offline };
      const res = await apiPost("/workers/bulk-remove", BulkRemoveWorkersResultSchema, body);
      await client.invalidateQueries({ queryKey: queryKeys.workers.all });
      await client.invalidateQueries({ queryKey: queryKeys.automations.all });
      const kept = res.kept_online.length > 0 ? `; ${plural(res.kept_online.length, "worker")} reported again and ${res.kept_online.length === 1 ? "was" : "were"} kept` : "";
      const gone = res.missing.length > 0 ? `; ${plural(res.missing.length, "worker was", "workers were")} already gone` : "";
      onDone(`Removed ${plural(res.removed, "offline worker")}${kept}${gone}.`);
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };
  return (
    <ConfirmDialog
      open
      title={`Remove ${plural(offline, "offline worker")}?`}
      confirmLabel={`Remove ${plural(offline, "worker")}`}
      busy={busy}
      error={error}
      onConfirm={() => void confirm()}
      onCancel={onClose}
    >
      <p>
        Every key of {offline === 1 ? "this worker" : `these ${formatNumber(offline)} workers`} (config, stats and their history) and both index entries are deleted. A worker that
        reports again before the removal is kept.
      </p>
      {skipped > 0 && <p className="mt-2">{plural(skipped, "selected worker is", "selected workers are")} not offline and will be left alone.</p>}
    </ConfirmDialog>
  );
}

/** The named workers of a type as they are now: one list read (1,000 a page), then one read per worker not in it. */
async function currentWorkers(automationType: string, ids: string[]): Promise<Map<string, Worker>> {
  const out = new Map<string, Worker>();
  const wanted = new Set(ids);
  const page = await apiGet(`/workers${qs({ type: automationType, limit: 1000 })}`, WorkerListSchema);
  for (const w of page.workers) if (wanted.has(w.worker_id)) out.set(w.worker_id, w);
  const rest = ids.filter((id) => !out.has(id)).slice(0, 100);
  const details = await Promise.all(rest.map((id) => apiGet(`/workers/${seg(automationType)}/${seg(id)}`, WorkerDetailSchema).catch(() => null)));
  for (const d of details) if (d) out.set(d.worker_id, d);
  return out;
}

function ConfigDialog({
  automationType,
  selection,
  filter,
  status,
  onClose,
  onDone,
}: {
  automationType: string;
  selection: Selection;
  filter: WorkerFilterBody;
  status?: string;
  onClose: () => void;
  onDone: (note: string) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const patchId = useId();
  const client = useQueryClient();
  const automation = useQuery(queries.automation(automationType));
  // "all matching": the workers (with their configs and generations) are read once, for the review
  const everyone = useQuery({
    queryKey: ["workers", "bulk-config", automationType, filter, status ?? null],
    queryFn: ({ signal }) => apiGet(`/workers${qs({ type: automationType, status, q: filter.q, error_group: filter.error_group, limit: 1000 })}`, WorkerListSchema, signal),
    enabled: selection.kind === "all",
    staleTime: Infinity,
  });
  // After a conflict (412: a worker's config moved since the review), the workers as they are
  // now: the review is shown again over them, so a change is never applied to a config nobody saw.
  const [fresh, setFresh] = useState<Map<string, Worker> | null>(null);
  const picked = selection.kind === "rows" ? selection.workers : (everyone.data?.workers ?? null);
  const workers = picked === null ? null : fresh === null ? picked : picked.map((w) => fresh.get(w.worker_id) ?? w);
  const [text, setText] = useState("{\n  \n}");
  const [step, setStep] = useState<"edit" | "review">("edit");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);

  let patch: JsonObject | null = null;
  let parseProblem: string | null = null;
  try {
    const v: unknown = JSON.parse(text);
    if (isPlainObject(v)) patch = v as JsonObject;
    else parseProblem = "The change must be a JSON object (a merge patch: the settings to set, null to remove one).";
  } catch (e) {
    parseProblem = `Not JSON: ${errorMessage(e)}`;
  }
  const plans = (workers ?? []).map((w) => {
    const before = (w.config ?? {}) as JsonObject;
    const after = patch ? (applyMergePatch(before, patch) as JsonObject) : before;
    return { w, before, after, changes: diffConfig(before, after) };
  });
  const changing = plans.filter((p) => !jsonEqual(p.before, p.after));
  const unreadable = plans.filter((p) => p.w.config === null || p.w.config_gen === null);

  const apply = async () => {
    if (patch === null) return;
    setBusy(true);
    setError(null);
    try {
      const body: BulkConfigBody = {
        automation_type: automationType,
        patch,
        workers: changing.map((p) => ({ worker_id: p.w.worker_id, config_gen: p.w.config_gen ?? 0 })),
      };
      const res = await apiPost("/workers/bulk-config", BulkConfigResultSchema, body);
      await client.invalidateQueries({ queryKey: queryKeys.workers.all });
      onDone(`Config changed on ${plural(res.workers.length, "worker")} of ${automationType}.`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        // nothing was written: read the selected workers again and review the change over them
        try {
          setFresh(
            await currentWorkers(
              automationType,
              (workers ?? []).map((w) => w.worker_id),
            ),
          );
          setError(`${errorMessage(err)} The review below now shows their configs as they are: check it, then apply again.`);
        } catch (readErr) {
          setError(`${errorMessage(err)} (They could not be read again: ${errorMessage(readErr)}.)`);
        }
      } else setError(errorMessage(err));
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
      className="m-auto w-[min(48rem,calc(100vw-2rem))] rounded-xl border border-slate-200 bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <div className="p-5">
        <h2 id={titleId} className="text-lg font-semibold">
          {step === "edit" ? `Change the config of ${plural(workers?.length ?? 0, "worker")} of ${automationType}` : `Review: ${plural(changing.length, "worker")} change`}
        </h2>
        {workers === null ? (
          <p className="mt-2 text-sm">{everyone.isError ? `Could not load the workers: ${errorMessage(everyone.error)}` : "Loading the workers…"}</p>
        ) : step === "edit" ? (
          <div className="mt-3 text-sm">
            <label htmlFor={patchId} className="font-medium">
              Settings to change (a JSON merge patch applied to each worker&apos;s own config)
            </label>
            <textarea
              id={patchId}
              className="field mt-1 h-40 w-full font-mono text-xs"
              spellCheck={false}
              value={text}
              onChange={(e) => setText(e.target.value)}
              aria-invalid={parseProblem !== null}
            />
            {parseProblem !== null && text.trim() !== "" && <p className="mt-1 text-red-700 dark:text-red-400">{parseProblem}</p>}
            {unreadable.length > 0 && (
              <p className="mt-1 text-amber-800 dark:text-amber-300">
                {plural(unreadable.length, "worker has", "workers have")} an unreadable config; the server will refuse them.
              </p>
            )}
          </div>
        ) : (
          <div className="mt-3 max-h-[60vh] overflow-y-auto text-sm" data-testid="bulk-config-review">
            <p className="mb-2 text-slate-600 dark:text-slate-300">
              {plural(changing.length, "worker")} change; {plural(plans.length - changing.length, "worker")} already {plans.length - changing.length === 1 ? "has" : "have"} these
              settings and
              {plans.length - changing.length === 1 ? " is" : " are"} left alone. Each is written only if its config is still the one shown (its version).
            </p>
            {changing.slice(0, 50).map((p) => (
              <div key={p.w.worker_id} className="mb-3">
                <ChangeList changes={p.changes} schema={automation.data?.schemas?.config} stored={p.before} caption={`${p.w.worker_id} (version ${p.w.config_gen ?? "?"})`} />
              </div>
            ))}
            {changing.length > 50 && <p>…and {plural(changing.length - 50, "more worker")}.</p>}
          </div>
        )}
        {error && (
          <div role="alert" className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
            {error}
          </div>
        )}
        <div className="mt-5 flex flex-wrap justify-end gap-2">
          <button type="button" className="btn" onClick={step === "review" ? () => setStep("edit") : onClose} disabled={busy}>
            {step === "review" ? "Back" : "Cancel"}
          </button>
          {step === "edit" ? (
            <button type="button" className="btn-primary" disabled={patch === null || workers === null || changing.length === 0} onClick={() => setStep("review")}>
              Review {plural(changing.length, "change")}…
            </button>
          ) : (
            <button type="button" className="btn-primary" disabled={busy || changing.length === 0} aria-busy={busy} onClick={() => void apply()}>
              {busy ? "Working…" : `Apply to ${plural(changing.length, "worker")}`}
            </button>
          )}
        </div>
      </div>
    </dialog>
  );
}
