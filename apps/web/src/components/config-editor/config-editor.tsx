"use client";
// One worker's config, editable by someone who is not an engineer: a form generated from
// the automation's config schema (or raw JSON), problems explained beside each field as it
// is typed, a review of old and new values before anything is sent, a save that is a
// compare-and-set on the generation that was loaded, and a clear choice when someone
// else saved first.
import { useCallback, useEffect, useEffectEvent, useMemo, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ConfigResultSchema, type Automation, type ErrorDetail, type WorkerDetail } from "@fleet/schema";

import { ApiError, apiFetch, errorMessage, seg } from "@/lib/api";
import { absoluteTime } from "@/lib/format";
import { useLeaveGuard } from "@/lib/leave-guard";
import { takeRevert } from "@/lib/revert";
import { queries } from "@/lib/query";
import { useSession } from "@/lib/session";
import { ErrorState, JsonView, LoadingState } from "@/components";

import { ChangeList } from "./change-list";
import { applyMergePatch, diffConfig, fromPointer, isPlainObject, mergePatchBetween, mergePatchExpresses, stripUndefined, type ConfigChange, type JsonObject } from "./diff";
import { EditorDialog } from "./editor-dialog";
import { detailsToErrorSchema, humanizeServerMessage } from "./messages";
import { parseJsonObject, RawJsonEditor } from "./raw-json-editor";
import { SchemaForm } from "./schema-form";
import { titleAt } from "./schema-info";
import { configIssues, pretty, useEditorSchema, withDefaults, type EditorSchema } from "./shared";
import { AppliedStatus, OfflineWarning } from "./worker-notes";

export interface ConfigEditorProps {
  automationType: string;
  workerId: string;
}

interface Version {
  config: JsonObject;
  gen: number;
}

type Phase = "edit" | "review" | "saving" | "conflict";

interface Conflict {
  mine: Version;
  theirs: Version;
  /** My edit as a merge patch of the version I started from. */
  patch: unknown;
  changes: ConfigChange[];
}

export function ConfigEditor({ automationType, workerId }: ConfigEditorProps) {
  const workerQ = useQuery(queries.worker(automationType, workerId));
  const autoQ = useQuery(queries.automation(automationType));
  return (
    // id="config": the worker page's "Edit config" jumps here (the root's scroll-padding keeps the
    // heading clear of the sticky header).
    <section id="config" aria-labelledby="config-editor-heading" className="card sm:p-5">
      {workerQ.isPending || autoQ.isPending ? (
        <>
          <h2 id="config-editor-heading" className="text-lg font-semibold">
            Config
          </h2>
          <LoadingState label="Loading the config and its schema…" />
        </>
      ) : workerQ.isError || autoQ.isError ? (
        <>
          <h2 id="config-editor-heading" className="text-lg font-semibold">
            Config
          </h2>
          <ErrorState
            error={workerQ.error ?? autoQ.error}
            title="The config cannot be edited right now"
            onRetry={() => {
              void workerQ.refetch();
              void autoQ.refetch();
            }}
          />
        </>
      ) : (
        <LoadedEditor automationType={automationType} workerId={workerId} worker={workerQ.data} automation={autoQ.data} />
      )}
    </section>
  );
}

function versionOf(worker: WorkerDetail): Version {
  return { config: isPlainObject(worker.config) ? worker.config : {}, gen: worker.config_gen ?? 0 };
}

function LoadedEditor({ automationType, workerId, worker, automation }: { automationType: string; workerId: string; worker: WorkerDetail; automation: Automation }) {
  const qc = useQueryClient();
  // Config writes need the admin role (the API checks too): others read the form, disabled.
  const canEdit = useSession().can("admin");
  const s = useEditorSchema(automation.schemas?.config ?? null);
  const configCorrupt = worker.corrupt?.includes("config") ?? false;
  const genCorrupt = worker.corrupt?.includes("config_gen") ?? false;

  const [base, setBase] = useState<Version>(() => versionOf(worker));
  const baseForm = useMemo(() => withDefaults(s, base.config), [s, base]);
  const [draft, setDraft] = useState<JsonObject>(baseForm);
  const [mode, setMode] = useState<"form" | "raw">(s.form ? "form" : "raw");
  const [rawText, setRawText] = useState(() => pretty(baseForm));
  const [parseError, setParseError] = useState<string | null>(null);
  const [serverErrors, setServerErrors] = useState<ErrorDetail[]>([]);
  const [phase, setPhase] = useState<Phase>("edit");
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saved, setSaved] = useState<{ from: number; to: number } | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  /** Set while the draft is a "revert to before" from the audit trail: the save says so (intent=revert) and names the entry (revert_of). */
  const [reverting, setReverting] = useState<{ entryId?: string } | null>(null);

  const changes = useMemo(() => diffConfig(baseForm, draft), [baseForm, draft]);
  const issues = useMemo(() => configIssues(s, draft), [s, draft]);
  const dirty = changes.length > 0 || parseError !== null;
  // A stored config that is not an object cannot be patched: it is replaced whole.
  const usePut = configCorrupt || !mergePatchExpresses(baseForm, draft);
  const canReview = dirty && parseError === null && issues.length === 0 && !genCorrupt && phase === "edit";
  useLeaveGuard(dirty && canEdit, `the config of ${workerId}`);

  const loadVersion = useCallback(
    (v: Version) => {
      const filled = withDefaults(s, v.config);
      setBase(v);
      setDraft(filled);
      setRawText(pretty(filled));
      setParseError(null);
      setServerErrors([]);
    },
    [s],
  );

  // "Revert to before" from the audit trail (src/lib/revert.ts): load those values as my edit
  // and open the usual review, against the stored config and its generation.
  // Once, on the first render of a loaded editor (the key is used up): an effect event, so it
  // reads the editor's state of that moment without re-running when it changes.
  const takeRevertFromUrl = useEffectEvent(() => {
    const url = new URL(window.location.href);
    const key = url.searchParams.get("revert");
    if (key === null) return;
    url.searchParams.delete("revert");
    window.history.replaceState(window.history.state, "", url.toString());
    if (!canEdit) return;
    const r = takeRevert(key, automationType, workerId);
    if (r === null) {
      setNotice("That revert is no longer available here (it was started in another tab, or already used). Start it again from the audit trail.");
      return;
    }
    const filled = withDefaults(s, r.config);
    setDraft(filled);
    setRawText(pretty(filled));
    setParseError(null);
    const by = `${r.actor ?? "someone"}'s change${r.ts !== null ? ` of ${absoluteTime(r.ts)}` : ""}`;
    if (diffConfig(baseForm, filled).length === 0) {
      setNotice(`The config is already as it was before ${by}: nothing to revert.`);
    } else {
      setReverting({ entryId: r.entryId });
      setNotice(`Reverting to the config as it was before ${by}. Review the changes against what is stored now, then save.`);
      if (configIssues(s, filled).length === 0) setPhase("review");
    }
  });
  useEffect(() => takeRevertFromUrl(), []);

  // Someone else's save, seen live (a `workers` frame updates the cached worker) or on a refetch.
  const serverVersion = versionOf(worker);
  const serverGen = serverVersion.gen;
  const stale = serverGen !== base.gen;
  useEffect(() => {
    // Nothing of mine to lose: follow the stored config.
    if (stale && !dirty && phase === "edit") loadVersion(versionOf(worker));
  }, [stale, dirty, phase, worker, loadVersion]);

  const onFormChange = (data: unknown) => {
    if (!isPlainObject(data)) return;
    setDraft(data);
    setServerErrors([]);
    setSaved(null);
    setNotice(null);
  };

  const onRawChange = (text: string) => {
    setRawText(text);
    setServerErrors([]);
    setSaved(null);
    setNotice(null);
    const parsed = parseJsonObject(text);
    if (parsed.ok) {
      setDraft(parsed.value);
      setParseError(null);
    } else {
      setParseError(parsed.message);
    }
  };

  const switchMode = (next: "form" | "raw") => {
    if (next === mode) return;
    if (next === "raw") {
      setRawText(pretty(draft));
      setParseError(null);
    }
    setMode(next);
  };

  const discard = () => {
    setReverting(null);
    loadVersion(versionOf(worker));
    setSaved(null);
    setNotice(null);
  };

  const save = async () => {
    const from = base;
    const patch = mergePatchBetween(baseForm, draft);
    setPhase("saving");
    setSaveError(null);
    try {
      const query = reverting === null ? "" : `?intent=revert${reverting.entryId !== undefined ? `&revert_of=${reverting.entryId}` : ""}`;
      const result = await apiFetch(`/workers/${seg(automationType)}/${seg(workerId)}/config${query}`, ConfigResultSchema, {
        method: usePut ? "PUT" : "PATCH",
        body: usePut ? stripUndefined(draft) : patch,
        headers: { "If-Match": `"${from.gen}"` },
      });
      qc.setQueryData<WorkerDetail>(queries.worker(automationType, workerId).queryKey, (old) =>
        old ? { ...old, config: result.config, config_gen: result.config_gen, corrupt: old.corrupt?.filter((c) => c !== "config" && c !== "config_gen") } : old,
      );
      loadVersion({ config: result.config, gen: result.config_gen });
      setSaved({ from: from.gen, to: result.config_gen });
      setReverting(null);
      setNotice(null);
      setPhase("edit");
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        try {
          const fresh = await qc.fetchQuery({ ...queries.worker(automationType, workerId), staleTime: 0 });
          setConflict({ mine: from, theirs: versionOf(fresh), patch, changes: diffConfig(baseForm, draft) });
          setPhase("conflict");
        } catch (fetchErr) {
          setSaveError(fetchErr);
          setPhase("review");
        }
      } else if (err instanceof ApiError && err.status === 422) {
        setServerErrors(err.details.length > 0 ? err.details : [{ path: "", message: err.message }]);
        setPhase("edit");
      } else {
        setSaveError(err);
        setPhase("review");
      }
    }
  };

  const reloadTheirs = () => {
    if (!conflict) return;
    loadVersion(conflict.theirs);
    setConflict(null);
    setPhase("edit");
    setNotice(`Loaded their version (generation ${conflict.theirs.gen}); your change was discarded.`);
  };

  const applyOnTop = () => {
    if (!conflict) return;
    const rebased = applyMergePatch(conflict.theirs.config, conflict.patch);
    const theirsForm = withDefaults(s, conflict.theirs.config);
    const filled = withDefaults(s, isPlainObject(rebased) ? rebased : {});
    setBase(conflict.theirs);
    setDraft(filled);
    setRawText(pretty(filled));
    setParseError(null);
    setServerErrors([]);
    setConflict(null);
    if (diffConfig(theirsForm, filled).length === 0) {
      setNotice(`Their version (generation ${conflict.theirs.gen}) already has your change: nothing left to save.`);
      setPhase("edit");
    } else if (configIssues(s, filled).length > 0) {
      setNotice("Your change on top of their version is not valid: fix the settings marked below, then save again.");
      setPhase("edit");
    } else {
      setNotice(`Your change is now applied on top of generation ${conflict.theirs.gen}. Review it and save.`);
      setPhase("review");
    }
  };

  const extraErrors = useMemo(() => (serverErrors.length > 0 ? detailsToErrorSchema(serverErrors) : undefined), [serverErrors]);
  const rawIssues = useMemo(
    () =>
      serverErrors.length > 0 ? serverErrors.map((d) => ({ where: d.path ? titleAt(s.declared, fromPointer(d.path)) : "", message: humanizeServerMessage(d.message) })) : issues,
    [serverErrors, issues, s.declared],
  );

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <h2 id="config-editor-heading" className="text-lg font-semibold">
            Config
          </h2>
          <span className="text-sm text-slate-600 dark:text-slate-400" data-testid="config-generation">
            Generation <span className="font-mono font-semibold text-slate-900 dark:text-slate-100">{base.gen}</span>
          </span>
        </div>
        <ModeSwitch mode={mode} onChange={switchMode} formAvailable={s.form !== null} rawBlocked={false} formBlocked={parseError !== null} />
      </div>

      {s.form === null && (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {s.declared === null
            ? `Automation ${automationType} declares no config schema, so there is no form: edit the config as JSON. It must be a JSON object.`
            : "This automation's config schema does not describe named settings, so there is no form: edit the config as JSON."}
        </p>
      )}
      {configCorrupt && (
        <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200">
          The stored config is not a readable JSON object, so it is shown as empty. Saving replaces it as a whole.
        </p>
      )}
      {genCorrupt && (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
          The stored config generation is not a number, so a safe save is impossible. Repair wkr:{automationType}:{workerId}:gen first.
        </p>
      )}
      {stale && dirty && phase === "edit" && (
        <div
          role="status"
          data-testid="config-changed-elsewhere"
          className="flex flex-wrap items-center gap-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
        >
          <span className="min-w-0 flex-1">
            Someone else saved this config (now generation {serverGen}) while you were editing generation {base.gen}. Your edits are kept; when you save you will choose how to
            combine them.
          </span>
          <button type="button" className="btn" onClick={discard}>
            Discard mine and load theirs
          </button>
        </div>
      )}
      {notice && (
        <p role="status" className="rounded-md border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:border-sky-800 dark:bg-sky-950/40 dark:text-sky-200">
          {notice}
        </p>
      )}
      {serverErrors.length > 0 && (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
          The console refused this config: {serverErrors.length === 1 ? "one setting is" : `${serverErrors.length} settings are`} not valid. Nothing was saved; see the{" "}
          {mode === "form" ? "marked fields" : "list under the JSON"}.
          {mode === "form" && serverErrors.some((d) => d.path === "")
            ? ` ${serverErrors
                .filter((d) => d.path === "")
                .map((d) => humanizeServerMessage(d.message))
                .join(" ")}`
            : ""}
        </p>
      )}

      {mode === "form" && s.form ? (
        <SchemaForm
          schema={s.form}
          validator={s.validator}
          formData={draft}
          onChange={onFormChange}
          extraErrors={extraErrors}
          disabled={phase === "saving" || !canEdit}
          idPrefix={`cfg-${automationType}-${workerId}`.replace(/[^A-Za-z0-9_-]/g, "_")}
        />
      ) : (
        <RawJsonEditor
          label="Config (JSON)"
          hint={s.validation ? "Checked against the automation's config schema as you type." : undefined}
          text={rawText}
          onChange={onRawChange}
          parseError={parseError}
          issues={rawIssues}
          disabled={phase === "saving" || !canEdit}
        />
      )}

      {!canEdit ? (
        <p className="border-t border-slate-200 pt-4 text-sm text-slate-600 dark:border-slate-800 dark:text-slate-400">
          Read only: changing a worker&apos;s config needs the admin role.
        </p>
      ) : (
        <div className="flex flex-wrap items-center gap-3 border-t border-slate-200 pt-4 dark:border-slate-800">
          <button type="button" className="btn-primary" disabled={!canReview} onClick={() => setPhase("review")}>
            Review and save…
          </button>
          <button type="button" className="btn" disabled={!dirty || phase === "saving"} onClick={discard}>
            Discard changes
          </button>
          <span className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
            {saved && !dirty ? (
              <span role="status" className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
                <span className="font-medium text-emerald-700 dark:text-emerald-400">
                  Saved: generation {saved.from} → {saved.to}.
                </span>
                <AppliedStatus worker={worker} gen={saved.to} />
              </span>
            ) : parseError !== null ? (
              "Fix the JSON to continue."
            ) : issues.length > 0 ? (
              `${issues.length === 1 ? "One problem" : `${issues.length} problems`} to fix before saving.`
            ) : dirty ? (
              `${changes.length === 1 ? "One change" : `${changes.length} changes`} not saved yet.`
            ) : (
              "No unsaved changes."
            )}
          </span>
        </div>
      )}

      <ReviewDialog
        open={phase === "review" || phase === "saving"}
        busy={phase === "saving"}
        changes={changes}
        schema={s}
        stored={base.config}
        gen={base.gen}
        usePut={usePut}
        worker={worker}
        error={saveError}
        onConfirm={() => void save()}
        onCancel={() => {
          setSaveError(null);
          setPhase("edit");
        }}
      />

      {conflict && (
        <ConflictDialog
          open={phase === "conflict"}
          conflict={conflict}
          schema={s}
          onReloadTheirs={reloadTheirs}
          onApplyOnTop={applyOnTop}
          onClose={() => {
            // Keep editing: the next save meets the same conflict.
            setPhase("edit");
          }}
        />
      )}
    </div>
  );
}

export function ModeSwitch({
  mode,
  onChange,
  formAvailable,
  formBlocked,
  rawBlocked,
  formBlockedReason = "Fix the JSON first",
}: {
  mode: "form" | "raw";
  onChange: (m: "form" | "raw") => void;
  formAvailable: boolean;
  formBlocked: boolean;
  rawBlocked: boolean;
  /** Why the form cannot show the JSON (its button's title). */
  formBlockedReason?: string;
}) {
  if (!formAvailable) return null;
  const item = (m: "form" | "raw", label: string, disabled: boolean, title?: string) => (
    <button
      type="button"
      aria-pressed={mode === m}
      disabled={disabled}
      title={title}
      onClick={() => onChange(m)}
      className={`rounded-md px-3 py-1 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:cursor-not-allowed disabled:opacity-50 ${
        mode === m ? "bg-white text-slate-900 shadow-sm dark:bg-slate-700 dark:text-white" : "text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white"
      }`}
    >
      {label}
    </button>
  );
  return (
    <div role="group" aria-label="Edit as" className="inline-flex rounded-lg bg-slate-100 p-0.5 dark:bg-slate-800">
      {item("form", "Form", formBlocked && mode !== "form", formBlocked ? formBlockedReason : undefined)}
      {item("raw", "JSON", rawBlocked)}
    </div>
  );
}

function ReviewDialog({
  open,
  busy,
  changes,
  schema,
  stored,
  gen,
  usePut,
  worker,
  error,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  busy: boolean;
  changes: ConfigChange[];
  schema: EditorSchema;
  stored: JsonObject;
  gen: number;
  usePut: boolean;
  worker: WorkerDetail;
  error: unknown;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <EditorDialog
      open={open}
      busy={busy}
      title={`Review ${changes.length === 1 ? "1 change" : `${changes.length} changes`}`}
      testId="config-review"
      onClose={onCancel}
      footer={
        <>
          <button type="button" className="btn" onClick={onCancel} disabled={busy}>
            Back to editing
          </button>
          <button type="button" className="btn-primary" onClick={onConfirm} disabled={busy} aria-busy={busy} autoFocus>
            {busy ? "Saving…" : "Save changes"}
          </button>
        </>
      }
    >
      <OfflineWarning workers={[worker]} />
      <p className="mb-3 text-slate-600 dark:text-slate-300">
        These settings change from generation {gen}. The worker picks the new config up on its next check.
        {usePut ? " The whole config is sent (it sets a value to null, or replaces an unreadable config)." : ""}
      </p>
      <ChangeList changes={changes} schema={schema.declared} stored={stored} />
      {error !== null && error !== undefined && (
        <div role="alert" className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
          Not saved: {errorMessage(error)}
        </div>
      )}
    </EditorDialog>
  );
}

function ConflictDialog({
  open,
  conflict,
  schema,
  onReloadTheirs,
  onApplyOnTop,
  onClose,
}: {
  open: boolean;
  conflict: Conflict;
  schema: EditorSchema;
  onReloadTheirs: () => void;
  onApplyOnTop: () => void;
  onClose: () => void;
}) {
  const theirChanges = diffConfig(conflict.mine.config, conflict.theirs.config);
  return (
    <EditorDialog
      open={open}
      title="Someone else saved first"
      testId="config-conflict"
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn" onClick={onReloadTheirs}>
            Reload theirs
          </button>
          <button type="button" className="btn-primary" onClick={onApplyOnTop} autoFocus>
            Apply my change on top
          </button>
        </>
      }
    >
      <div className="flex flex-col gap-4">
        <p className="text-slate-700 dark:text-slate-300">
          Nothing of yours was saved. You started from generation {conflict.mine.gen}; while you were editing, someone else saved generation <strong>{conflict.theirs.gen}</strong>.
          Reload theirs to drop your change, or apply your change on top of their version and review it again.
        </p>
        <div>
          <h3 className="mb-1 font-semibold">What they changed</h3>
          <ChangeList changes={theirChanges} schema={schema.declared} />
        </div>
        <div>
          <h3 className="mb-1 font-semibold">Your change (not saved)</h3>
          <ChangeList changes={conflict.changes} schema={schema.declared} />
        </div>
        <details className="rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700">
          <summary className="cursor-pointer text-sm font-medium">Their whole config (generation {conflict.theirs.gen})</summary>
          <JsonView value={conflict.theirs.config} className="mt-2" />
        </details>
      </div>
    </EditorDialog>
  );
}
