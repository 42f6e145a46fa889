"use client";
// "Apply to every worker of this automation": each setting starts as "keep current" and shows
// what the workers run today ("stealth ×5", "mixed: 4 ×3, 2 ×2"); the settings a person sets
// (any value, the schema's default included), or a merge patch written as JSON, are applied
// to each worker's own config by the rollout endpoint, which validates every merged config
// before writing any. Only the workers the patch really changes are counted, reviewed and
// written (`?skip_unchanged=true`), so the button, the review and the result agree.
import { useId, useMemo, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ConfigRolloutResultSchema, type Automation, type ConfigRolloutResult, type Worker } from "@fleet/schema";

import { ApiError, apiFetch, errorMessage, seg } from "@/lib/api";
import { useLeaveGuard } from "@/lib/leave-guard";
import { queries, queryKeys } from "@/lib/query";
import { useSession } from "@/lib/session";
import { ErrorState, LoadingState } from "@/components";

import { ChangeList } from "./change-list";
import { applyMergePatch, diffConfig, getPath, isPlainObject, jsonEqual, type JsonObject } from "./diff";
import { EditorDialog } from "./editor-dialog";
import { FleetRevert } from "./fleet-revert";
import { ModeSwitch } from "./config-editor";
import { humanizeServerMessage } from "./messages";
import { parseJsonObject, RawJsonEditor } from "./raw-json-editor";
import { currentValues, describeCurrent, pathKey, patchFromChoices, rolloutLeaves, startingValue, type RolloutLeaf } from "./rollout-plan";
import { SchemaForm } from "./schema-form";
import { configIssues, pretty, useEditorSchema, type EditorSchema } from "./shared";
import { AppliedStatus, OfflineWarning, generationsText } from "./worker-notes";

export function ConfigRolloutEditor({ automationType }: { automationType: string }) {
  // A rollout writes every worker's config: admin only (the API checks too).
  const canEdit = useSession().can("admin");
  const autoQ = useQuery(queries.automation(automationType));
  const workersQ = useQuery(queries.workersEverything(automationType));
  return (
    // #rollout: the automation page's header jumps here (the root's scroll padding keeps the heading clear of the sticky header).
    <section id="rollout" aria-labelledby="rollout-heading" className="card sm:p-5">
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

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A one-setting schema for the form of one leaf: the member under its own name, $defs kept for $refs. */
function leafSchema(root: EditorSchema["form"], leaf: RolloutLeaf): JsonObject {
  const r = (root ?? {}) as JsonObject;
  const out: JsonObject = { type: "object", properties: { [leaf.path.at(-1)!]: { ...leaf.schema, title: leaf.title } } };
  if (r.$defs !== undefined) out.$defs = r.$defs;
  if (r.definitions !== undefined) out.definitions = r.definitions;
  return out;
}

function LeafField({
  leaf,
  s,
  configs,
  value,
  setting,
  onSet,
  onKeep,
  onValue,
  disabled,
  idBase,
}: {
  leaf: RolloutLeaf;
  s: EditorSchema;
  configs: unknown[];
  value: unknown;
  setting: boolean;
  onSet: (start: unknown) => void;
  onKeep: () => void;
  onValue: (v: unknown) => void;
  disabled: boolean;
  idBase: string;
}) {
  const titleId = useId();
  const groups = useMemo(() => currentValues(configs, leaf.path), [configs, leaf.path]);
  const now = describeCurrent(groups, leaf.default);
  const key = leaf.path.at(-1)!;
  const schema = useMemo(() => (setting ? leafSchema(s.form, leaf) : null), [setting, s.form, leaf]);
  const radio = `${idBase}-choice`;
  return (
    <div
      role="group"
      aria-labelledby={titleId}
      data-testid="rollout-field"
      data-path={leaf.path.join(".")}
      className={`flex min-w-0 flex-col gap-2 rounded-lg border p-3 ${
        setting ? "border-sky-400 bg-sky-50/50 dark:border-sky-700 dark:bg-sky-950/20" : "border-slate-200 dark:border-slate-800"
      }`}
    >
      <div className="flex flex-wrap items-baseline justify-between gap-x-2">
        <span id={titleId} className="text-sm font-medium text-slate-900 dark:text-slate-100">
          {leaf.title}
        </span>
        <code className="break-all font-mono text-xs text-slate-500 dark:text-slate-400">{leaf.path.join(".")}</code>
      </div>
      {leaf.description && <p className="text-sm text-slate-600 dark:text-slate-400">{leaf.description}</p>}
      <p className="text-sm">
        <span className="text-slate-600 dark:text-slate-400">Now: </span>
        <span className="font-medium break-words" data-testid="rollout-current">
          {now}
        </span>
      </p>
      <div className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <label className="inline-flex items-center gap-1.5">
          <input type="radio" name={radio} className="size-4 accent-slate-800 dark:accent-slate-200" checked={!setting} disabled={disabled} onChange={() => onKeep()} />
          Keep current
        </label>
        <label className="inline-flex items-center gap-1.5">
          <input
            type="radio"
            name={radio}
            className="size-4 accent-slate-800 dark:accent-slate-200"
            checked={setting}
            disabled={disabled}
            onChange={() => onSet(startingValue(groups, leaf.default))}
          />
          Set to
        </label>
      </div>
      {setting && schema && (
        <SchemaForm
          schema={schema}
          validator={s.validator}
          formData={value === undefined ? {} : { [key]: value }}
          onChange={(d) => onValue(isPlainObject(d) ? d[key] : undefined)}
          disabled={disabled}
          idPrefix={idBase}
          uiSchema={{ [key]: { "ui:title": `${leaf.title}: new value` } }}
          compact
        />
      )}
    </div>
  );
}

function LoadedRollout({ automationType, automation, workers }: { automationType: string; automation: Automation; workers: Worker[] }) {
  const qc = useQueryClient();
  const s = useEditorSchema(automation.schemas?.config ?? null);
  const leaves = useMemo(() => (s.form ? rolloutLeaves(s.form) : []), [s]);
  // The chosen values of the settings set to something; a setting not in the map is kept.
  const [chosen, setChosen] = useState<ReadonlyMap<string, unknown>>(new Map());
  const [mode, setMode] = useState<"form" | "raw">(s.form && leaves.length > 0 ? "form" : "raw");
  const [rawText, setRawText] = useState("{}");
  const [rawPatch, setRawPatch] = useState<JsonObject>({});
  const [parseError, setParseError] = useState<string | null>(null);
  const [reviewing, setReviewing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<ConfigRolloutResult | null>(null);
  const idBase = `rollout-${automationType}`.replace(/[^A-Za-z0-9_-]/g, "_");

  const configs = useMemo(() => workers.map((w) => (isPlainObject(w.config) ? w.config : {})), [workers]);
  const setLeaves = leaves.filter((l) => chosen.has(pathKey(l.path)));
  const unfilled = setLeaves.filter((l) => chosen.get(pathKey(l.path)) === undefined);

  const patch = useMemo<JsonObject>(() => {
    if (mode === "raw") return rawPatch;
    return patchFromChoices(
      leaves.filter((l) => chosen.has(pathKey(l.path)) && chosen.get(pathKey(l.path)) !== undefined).map((l) => ({ path: l.path, value: chosen.get(pathKey(l.path)) })),
    );
  }, [mode, rawPatch, leaves, chosen]);
  const patchEmpty = Object.keys(patch).length === 0;
  useLeaveGuard(mode === "form" ? chosen.size > 0 : rawText.trim() !== "{}", `the rollout to the workers of ${automationType}`);

  const plans = useMemo<WorkerPlan[]>(
    () =>
      workers.map((w, i) => {
        const before = configs[i]!;
        const merged = applyMergePatch(before, patch);
        const after = isPlainObject(merged) ? merged : {};
        const changes = diffConfig(before, after);
        // Only the workers that change are written (skip_unchanged), so only theirs are checked.
        const problems = changes.length === 0 ? [] : configIssues(s, after).map((i) => (i.where ? `${i.where}: ${i.message}` : i.message));
        return { worker: w, before, after, changes, problems };
      }),
    [workers, configs, patch, s],
  );
  const invalidPlans = plans.filter((p) => p.problems.length > 0);
  const changing = plans.filter((p) => p.changes.length > 0);
  const unchanged = plans.length - changing.length;
  const canReview = !patchEmpty && parseError === null && unfilled.length === 0 && invalidPlans.length === 0 && changing.length > 0 && !busy;
  const n = changing.length;

  // A raw patch the form can show: every member one of its settings, none a removal (null).
  const formCanShow = useMemo(() => {
    if (mode !== "raw" || parseError !== null) return parseError === null;
    const mapped = leaves.map((l) => ({ path: l.path, value: getPath(rawPatch, l.path) })).filter((c) => c.value !== undefined && c.value !== null);
    return jsonEqual(patchFromChoices(mapped), rawPatch);
  }, [mode, parseError, leaves, rawPatch]);

  const clearOutcome = () => {
    setResult(null);
    setError(null);
  };

  const choose = (leaf: RolloutLeaf, value: unknown | typeof KEEP) => {
    clearOutcome();
    setChosen((prev) => {
      const next = new Map(prev);
      if (value === KEEP) next.delete(pathKey(leaf.path));
      else next.set(pathKey(leaf.path), value);
      return next;
    });
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
      const map = new Map<string, unknown>();
      for (const l of leaves) {
        const v = getPath(rawPatch, l.path);
        if (v !== undefined && v !== null) map.set(pathKey(l.path), v);
      }
      setChosen(map);
    }
    setMode(next);
  };

  const reset = () => {
    setChosen(new Map());
    setRawText("{}");
    setRawPatch({});
    setParseError(null);
  };

  const apply = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await apiFetch(`/automations/${seg(automationType)}/config?skip_unchanged=true`, ConfigRolloutResultSchema, { method: "PATCH", body: patch });
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

  const byId = new Map(workers.map((w) => [w.worker_id, w]));
  return (
    <div className="mt-2 flex flex-col gap-4">
      {/* The audit trail's "Revert to before" of a rollout lands here (?revert=). */}
      <FleetRevert automationType={automationType} workers={workers} s={s} />
      <div className="flex flex-wrap items-start justify-between gap-3">
        <p className="max-w-prose text-sm text-slate-600 dark:text-slate-400">
          Every setting starts as <strong className="font-medium text-slate-800 dark:text-slate-200">Keep current</strong>: each of the {plural(workers.length, "worker")} keeps its
          own value. Choose <strong className="font-medium text-slate-800 dark:text-slate-200">Set to</strong> for the settings to change. Every changed config is checked first,
          and nothing is written unless all of them are valid.
        </p>
        <ModeSwitch
          mode={mode}
          onChange={switchMode}
          formAvailable={s.form !== null && leaves.length > 0}
          formBlocked={parseError !== null || !formCanShow}
          formBlockedReason={parseError !== null ? "Fix the JSON first" : "This patch removes settings or sets ones the form does not list: keep editing it as JSON"}
          rawBlocked={false}
        />
      </div>

      {mode === "form" && s.form && leaves.length > 0 ? (
        <div className="grid grid-cols-1 items-start gap-3 md:grid-cols-2">
          {leaves.map((l) => {
            const k = pathKey(l.path);
            return (
              <LeafField
                key={k}
                leaf={l}
                s={s}
                configs={configs}
                setting={chosen.has(k)}
                value={chosen.get(k)}
                onSet={(start) => choose(l, start)}
                onKeep={() => choose(l, KEEP)}
                onValue={(v) => choose(l, v)}
                disabled={busy}
                idBase={`${idBase}-${l.path.join("-").replace(/[^A-Za-z0-9_-]/g, "_")}`}
              />
            );
          })}
        </div>
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
          <p className="font-medium">This change would leave {plural(invalidPlans.length, "worker")} with an invalid config:</p>
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
          {canReview ? `Review the change to ${plural(n, "worker")}…` : "Review rollout…"}
        </button>
        <button type="button" className="btn" disabled={patchEmpty && chosen.size === 0 && parseError === null && rawText.trim() === "{}"} onClick={reset}>
          Reset
        </button>
        <span className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite" data-testid="rollout-summary">
          {result
            ? null
            : unfilled.length > 0
              ? `Give ${unfilled.map((l) => l.title).join(", ")} a value, or keep the current one.`
              : patchEmpty
                ? mode === "form"
                  ? "Choose “Set to” on a setting to roll it out."
                  : "Write a patch to roll it out."
                : n === 0
                  ? `Every worker already has ${setLeaves.length === 1 || mode === "raw" ? "this value" : "these values"}: nothing would change.`
                  : `${plural(n, "worker")} of ${workers.length} would change${unchanged > 0 ? `; ${unchanged} already ${unchanged === 1 ? "has" : "have"} ${setLeaves.length === 1 ? "this value" : "these values"}` : ""}.`}
        </span>
      </div>
      {result && (
        <div
          role="status"
          className="rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-100"
          data-testid="rollout-result"
        >
          <p className="font-medium">
            {result.workers.length === 0
              ? "Nothing was written: every worker already had these values."
              : `Applied to ${plural(result.workers.length, "worker")}: ${generationsText(result.workers)}.`}
          </p>
          {result.workers.length > 0 && (
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
      )}
      {error !== null && !reviewing && <ErrorState error={error} title="The rollout was not applied" />}

      <EditorDialog
        open={reviewing}
        busy={busy}
        title={`Apply to ${plural(n, "worker")} of ${automationType}?`}
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
              {busy ? "Applying…" : `Apply to ${plural(n, "worker")}`}
            </button>
          </>
        }
      >
        <p className="mb-3 text-slate-600 dark:text-slate-300">
          {n === 1 ? "1 worker changes" : `${n} workers change`}; each one&apos;s config generation goes up by one.
          {unchanged > 0 ? ` ${unchanged === 1 ? "1 worker already has" : `${unchanged} workers already have`} these values and ${unchanged === 1 ? "is" : "are"} left alone.` : ""}
        </p>
        <OfflineWarning workers={changing.map((p) => p.worker)} />
        <div className="flex flex-col gap-4">
          {changing.map((p) => (
            <div key={p.worker.worker_id}>
              <h3 className="mb-1 font-mono text-sm font-semibold">
                {p.worker.worker_id}{" "}
                <span className="font-sans font-normal text-slate-500">
                  (generation {p.worker.config_gen ?? 0} → {(p.worker.config_gen ?? 0) + 1}
                  {p.worker.status === "offline" ? ", offline" : ""})
                </span>
              </h3>
              <ChangeList changes={p.changes} schema={s.declared} stored={p.before} />
            </div>
          ))}
        </div>
        {unchanged > 0 && (
          <details className="mt-4 text-slate-600 dark:text-slate-400">
            <summary className="cursor-pointer">
              Left alone: {plural(unchanged, "worker")} already {unchanged === 1 ? "has" : "have"} these values
            </summary>
            <p className="mt-1 break-words font-mono text-xs">
              {plans
                .filter((p) => p.changes.length === 0)
                .map((p) => p.worker.worker_id)
                .join(", ")}
            </p>
          </details>
        )}
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

const KEEP = Symbol("keep current");
