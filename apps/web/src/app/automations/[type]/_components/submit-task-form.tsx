"use client";
// Submit one task to the automation's queue: a form generated from the catalog's
// `task_payload` schema (raw JSON when there is none), a priority, and the answer: the
// new task id and the queue's depth before and now (the depth updates live).
import { useMemo, useState } from "react";
import { SubmitTasksResultSchema, type ErrorDetail, type Priority, type SubmitTasksInput } from "@fleet/schema";

import { ApiError, apiPost, errorMessage, seg } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { useSession } from "@/lib/session";
import { CopyButton } from "@/components";
import {
  ModeSwitch,
  RawJsonEditor,
  SchemaForm,
  configIssues,
  detailsToErrorSchema,
  humanizeServerMessage,
  parseJsonObject,
  pretty,
  useEditorSchema,
  withDefaults,
} from "@/components/config-editor";

interface Submitted {
  id: string;
  priority: Priority;
  depthBefore: number;
}

export function SubmitTaskForm(props: { automationType: string; payloadSchema: unknown; pendingNow: number }) {
  // Submitting needs the operator role (the API checks too).
  if (!useSession().can("operator")) {
    return <p className="text-sm text-slate-600 dark:text-slate-400">Submitting tasks needs the operator role.</p>;
  }
  return <SubmitTaskFormInner {...props} />;
}

function SubmitTaskFormInner({ automationType, payloadSchema, pendingNow }: { automationType: string; payloadSchema: unknown; pendingNow: number }) {
  const s = useEditorSchema(payloadSchema ?? null);
  const start = useMemo(() => withDefaults(s, {}), [s]);
  const [draft, setDraft] = useState<Record<string, unknown>>(start);
  const [mode, setMode] = useState<"form" | "raw">(s.form ? "form" : "raw");
  const [rawText, setRawText] = useState(() => pretty(start));
  const [parseError, setParseError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);
  const [priority, setPriority] = useState<Priority>("normal");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [serverErrors, setServerErrors] = useState<ErrorDetail[]>([]);
  const [submitted, setSubmitted] = useState<Submitted | null>(null);

  const issues = useMemo(() => configIssues(s, draft), [s, draft]);
  const canSubmit = parseError === null && issues.length === 0 && !busy;

  const changed = () => {
    setTouched(true);
    setServerErrors([]);
    setError(null);
  };

  const submit = async () => {
    setBusy(true);
    setError(null);
    setServerErrors([]);
    const depthBefore = pendingNow;
    try {
      const body: SubmitTasksInput = { payload: draft, priority };
      const res = await apiPost(`/automations/${seg(automationType)}/tasks`, SubmitTasksResultSchema, body);
      setSubmitted({ id: res.ids[0] ?? "?", priority, depthBefore });
    } catch (err) {
      if (err instanceof ApiError && err.status === 422 && err.details.length > 0) {
        // Payload paths come prefixed with /payload; the form's fields start at the payload.
        setServerErrors(err.details.map((d) => ({ path: d.path.replace(/^\/payload(?=\/|$)/, ""), message: d.message })));
      }
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const extraErrors = useMemo(() => (serverErrors.length > 0 ? detailsToErrorSchema(serverErrors) : undefined), [serverErrors]);
  const rawIssues = serverErrors.length > 0 ? serverErrors.map((d) => ({ where: d.path, message: humanizeServerMessage(d.message) })) : issues;

  return (
    // Not a <form>: rjsf renders its own, and forms do not nest.
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {s.form
            ? "The payload's fields come from the automation's task schema."
            : s.declared === null
              ? "This automation declares no task schema: write the payload as a JSON object."
              : "The task schema names no fields: write the payload as JSON."}
        </p>
        <ModeSwitch
          mode={mode}
          onChange={(m) => {
            if (m === "raw") {
              setRawText(pretty(draft));
              setParseError(null);
            }
            setMode(m);
          }}
          formAvailable={s.form !== null}
          formBlocked={parseError !== null}
          rawBlocked={false}
        />
      </div>

      {mode === "form" && s.form ? (
        // Errors show once something was typed (or the server refused), not on a fresh form.
        <SchemaForm
          schema={s.form}
          validator={s.validator}
          formData={draft}
          onChange={(d) => {
            if (d && typeof d === "object" && !Array.isArray(d)) setDraft(d as Record<string, unknown>);
            changed();
          }}
          extraErrors={extraErrors}
          disabled={busy}
          idPrefix={`task-${automationType}`.replace(/[^A-Za-z0-9_-]/g, "_")}
        />
      ) : (
        <RawJsonEditor
          label="Payload (JSON)"
          text={rawText}
          onChange={(text) => {
            setRawText(text);
            changed();
            const parsed = parseJsonObject(text);
            if (parsed.ok) {
              setDraft(parsed.value);
              setParseError(null);
            } else {
              setParseError(parsed.message.replace("The config must be", "The payload must be"));
            }
          }}
          parseError={parseError}
          issues={touched || serverErrors.length > 0 ? rawIssues : []}
          disabled={busy}
        />
      )}

      <div className="flex flex-wrap items-end gap-3 border-t border-slate-200 pt-4 dark:border-slate-800">
        <label className="flex flex-col gap-1 text-sm font-medium">
          Priority
          <select className="field" value={priority} onChange={(e) => setPriority(e.target.value as Priority)} disabled={busy}>
            <option value="high">high</option>
            <option value="normal">normal</option>
            <option value="low">low</option>
          </select>
        </label>
        <button type="button" className="btn-primary" disabled={!canSubmit} aria-busy={busy} onClick={() => void submit()}>
          {busy ? "Submitting…" : "Submit task"}
        </button>
        {!canSubmit && !busy && (
          <span className="text-sm text-slate-600 dark:text-slate-400">
            {parseError !== null
              ? "Fix the JSON to submit."
              : !touched
                ? "Fill in the required fields (marked *) to submit."
                : `${issues.length === 1 ? "One problem" : `${issues.length} problems`} to fix first.`}
          </span>
        )}
      </div>

      {error !== null && (
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
          Not submitted: {errorMessage(error)}
        </div>
      )}
      {submitted && (
        <div
          role="status"
          data-testid="task-submitted"
          className="flex flex-col gap-1 rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-200"
        >
          <p className="flex flex-wrap items-center gap-2">
            Task{" "}
            <code className="break-all font-mono font-semibold" data-testid="task-id">
              {submitted.id}
            </code>{" "}
            queued with {submitted.priority} priority.
            <CopyButton text={submitted.id} label="Copy the task id" />
          </p>
          <p>
            Pending in the queue: {formatNumber(submitted.depthBefore)} before, <strong data-testid="queue-pending-now">{formatNumber(pendingNow)}</strong> now
            <span className="text-emerald-800/80 dark:text-emerald-300/80"> (live: workers take tasks off as they run)</span>.
          </p>
        </div>
      )}
    </div>
  );
}
