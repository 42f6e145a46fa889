"use client";
// "Apply to every worker of this automation": the settings changed in the form (or a merge
// patch written as JSON) are applied to each worker's own config by the rollout endpoint,
// which validates every merged config before writing any. The review shows, worker by
// worker, what will change.
import { useMemo, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { Automation, ConfigRolloutResult, Worker } from "@fleet/schema";

import { ApiError, apiFetch, errorMessage, seg } from "@/lib/api";
import { queries, queryKeys } from "@/lib/query";
import { useSession } from "@/lib/session";
import { ErrorState, LoadingState } from "@/components";

import { ChangeList } from "./change-list";
import { applyMergePatch, diffConfig, isPlainObject, mergePatchBetween, type JsonObject } from "./diff";
import { EditorDialog } from "./editor-dialog";
import { ModeSwitch } from "./config-editor";
import { humanizeServerMessage } from "./messages";
import { parseJsonObject, RawJsonEditor } from "./raw-json-editor";
import { SchemaForm } from "./schema-form";
import { configIssues, pretty, useEditorSchema, withDefaults } from "./shared";

export function ConfigRolloutEditor({ automationType }: { automationType: string }) {
  // A rollout writes every worker's config: admin only (the API checks too).
  const canEdit = useSession().can("admin");
  const autoQ = useQuery(queries.automation(automationType));
  const workersQ = useQuery(queries.workersEverything(automationType));
  return (
    <section aria-labelledby="rollout-heading" className="card sm:p-5">
      <h2 id="rollout-heading" className="text-lg font-semibold">
        Apply to every worker of this automation
      </h2>
      {!canEdit ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">Rolling out a config change needs the admin role.</p>
      ) : autoQ.isPending || workersQ.isPending ? (
        <LoadingState label="Loading the schema and the workers…" />
      ) : autoQ.isError || workersQ.isError ? (
        <ErrorState
          error={autoQ.error ?? workersQ.error}
          onRetry={() => {
            void autoQ.refetch();
            void workersQ.refetch();
          }}
        />
      ) : (
        <LoadedRollout automationType={automationType} automation={autoQ.data} workers={workersQ.data.workers} />
      )}
    </section>
  );
}

interface WorkerPlan {
  worker: Worker;
  before: JsonObject;
  after: JsonObject;
  changes: ReturnType<typeof diffConfig>;
  problems: string[];
}

function LoadedRollout({ automationType, automation, workers }: { automationType: string; automation: Automation; workers: Worker[] }) {
  const qc = useQueryClient();
  const s = useEditorSchema(automation.schemas?.config ?? null);
  const start = useMemo(() => withDefaults(s, {}), [s]);
  const [draft, setDraft] = useState<JsonObject>(start);
  const [mode, setMode] = useState<"form" | "raw">(s.form ? "form" : "raw");
  const [rawText, setRawText] = useState("{}");
  const [rawPatch, setRawPatch] = useState<JsonObject>({});
  const [parseError, setParseError] = useState<string | null>(null);
  const [reviewing, setReviewing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<ConfigRolloutResult | null>(null);

  const patch = useMemo<JsonObject>(() => {
    if (mode === "raw") return rawPatch;
    const p = mergePatchBetween(start, draft);
    return isPlainObject(p) ? p : {};
  }, [mode, rawPatch, start, draft]);
  const patchEmpty = Object.keys(patch).length === 0;
  const draftIssues = useMemo(() => (mode === "form" ? configIssues(s, draft) : []), [mode, s, draft]);

  const plans = useMemo<WorkerPlan[]>(
    () =>
      workers.map((w) => {
        const before = isPlainObject(w.config) ? w.config : {};
        const merged = applyMergePatch(before, patch);
        const after = isPlainObject(merged) ? merged : {};
        return { worker: w, before, after, changes: diffConfig(before, after), problems: patchEmpty ? [] : configIssues(s, after).map((i) => (i.where ? `${i.where}: ${i.message}` : i.message)) };
      }),
    [workers, patch, patchEmpty, s],
  );
  const invalidPlans = plans.filter((p) => p.problems.length > 0);
  const changing = plans.filter((p) => p.changes.length > 0);
  const canReview = !patchEmpty && parseError === null && draftIssues.length === 0 && invalidPlans.length === 0 && workers.length > 0 && !busy;

  const clearOutcome = () => {
    setResult(null);
    setError(null);
  };

  const onRawChange = (text: string) => {
    setRawText(text);
    clearOutcome();
    const parsed = parseJsonObject(text);
    if (parsed.ok) {
      setRawPatch(parsed.value);
      setParseError(null);
    } else {
      setParseError(parsed.message.replace("The config must be", "The patch must be"));
    }
  };

  const switchMode = (next: "form" | "raw") => {
    if (next === mode) return;
    if (next === "raw") {
      setRawText(pretty(patch));
      setRawPatch(patch);
      setParseError(null);
    } else {
      const merged = applyMergePatch(start, rawPatch);
      setDraft(isPlainObject(merged) ? merged : start);
    }
    setMode(next);
  };

  const reset = () => {
    setDraft(start);
    setRawText("{}");
    setRawPatch({});
    setParseError(null);
  };

  const apply = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await apiFetch<ConfigRolloutResult>(`/automations/${seg(automationType)}/config`, { method: "PATCH", body: patch });
      setResult(res);
      setReviewing(false);
      reset();
      void qc.invalidateQueries({ queryKey: queryKeys.workers.all });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (workers.length === 0) {
    return <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">No worker of {automationType} is registered: there is nothing to roll out to.</p>;
  }

  return (
    <div className="mt-2 flex flex-col gap-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <p className="max-w-prose text-sm text-slate-600 dark:text-slate-400">
          Only the settings you change here are sent; each of the {workers.length === 1 ? "1 worker" : `${workers.length} workers`} keeps its other
          settings. Every merged config is checked first, and nothing is written unless all of them are valid.
        </p>
        <ModeSwitch mode={mode} onChange={switchMode} formAvailable={s.form !== null} formBlocked={parseError !== null} rawBlocked={false} />
      </div>

      {mode === "form" && s.form ? (
        <SchemaForm
          schema={s.form}
          validator={s.validator}
          formData={draft}
          onChange={(d) => {
            if (isPlainObject(d)) setDraft(d);
            clearOutcome();
          }}
          disabled={busy}
          idPrefix={`rollout-${automationType}`.replace(/[^A-Za-z0-9_-]/g, "_")}
        />
      ) : (
        <RawJsonEditor
          label="Merge patch (JSON)"
          hint={'A JSON merge patch (RFC 7386) applied to every worker\'s config: {"slots": 2} sets slots, {"mode": null} removes mode.'}
          text={rawText}
          onChange={onRawChange}
          parseError={parseError}
          issues={[]}
          disabled={busy}
        />
      )}

      {invalidPlans.length > 0 && (
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
          <p className="font-medium">
            This change would leave {invalidPlans.length === 1 ? "1 worker" : `${invalidPlans.length} workers`} with an invalid config:
          </p>
          <ul className="mt-1 list-disc pl-5">
            {invalidPlans.slice(0, 10).map((p) => (
              <li key={p.worker.worker_id}>
                <span className="font-mono">{p.worker.worker_id}</span>: {p.problems.join(" ")}
              </li>
            ))}
          </ul>
        </div>
      )}

      <div className="flex flex-wrap items-center gap-3 border-t border-slate-200 pt-4 dark:border-slate-800">
        <button type="button" className="btn-primary" disabled={!canReview} onClick={() => setReviewing(true)}>
          Review rollout…
        </button>
        <button type="button" className="btn" disabled={patchEmpty && parseError === null} onClick={reset}>
          Reset
        </button>
        <span className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
          {result ? (
            <span role="status" className="font-medium text-emerald-700 dark:text-emerald-400" data-testid="rollout-result">
              Applied to {result.workers.length === 1 ? "1 worker" : `${result.workers.length} workers`}:{" "}
              {result.workers.map((w) => `${w.worker_id} → generation ${w.config_gen}`).join(", ")}.
            </span>
          ) : patchEmpty ? (
            "Change a setting to roll it out."
          ) : (
            `${changing.length === 1 ? "1 worker" : `${changing.length} workers`} of ${workers.length} would change.`
          )}
        </span>
      </div>
      {error !== null && !reviewing && <ErrorState error={error} title="The rollout was not applied" />}

      <EditorDialog
        open={reviewing}
        busy={busy}
        title={`Apply to ${workers.length === 1 ? "1 worker" : `${workers.length} workers`} of ${automationType}?`}
        testId="rollout-review"
        onClose={() => {
          setReviewing(false);
          setError(null);
        }}
        footer={
          <>
            <button type="button" className="btn" disabled={busy} onClick={() => setReviewing(false)}>
              Back to editing
            </button>
            <button type="button" className="btn-primary" disabled={busy} aria-busy={busy} onClick={() => void apply()} autoFocus>
              {busy ? "Applying…" : `Apply to ${workers.length === 1 ? "1 worker" : `${workers.length} workers`}`}
            </button>
          </>
        }
      >
        <p className="mb-3 text-slate-600 dark:text-slate-300">
          {changing.length === 1 ? "1 worker changes" : `${changing.length} workers change`}
          {plans.length - changing.length > 0 ? `; ${plans.length - changing.length} already ${plans.length - changing.length === 1 ? "has" : "have"} these values` : ""}. Each config
          generation goes up by one.
        </p>
        <div className="flex flex-col gap-4">
          {plans.map((p) => (
            <div key={p.worker.worker_id}>
              <h3 className="mb-1 font-mono text-sm font-semibold">
                {p.worker.worker_id} <span className="font-sans font-normal text-slate-500">(generation {p.worker.config_gen ?? 0})</span>
              </h3>
              {p.changes.length > 0 ? <ChangeList changes={p.changes} schema={s.declared} /> : <p className="text-slate-500">Already has these values.</p>}
            </div>
          ))}
        </div>
        {error !== null && (
          <div role="alert" className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
            Not applied: {errorMessage(error)}
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
    </div>
  );
}
