"use client";
// Pause / Resume a worker: slots to 0 and back to what it ran before, as a config write like
// any other (reviewed old beside new, compare-and-set on the generation with If-Match, audited
// with `intent=pause|resume`). The value to resume with is the one the pause's audit entry
// recorded; when the trail no longer has it (or nobody paused it from here), the person picks it.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import { AuditListSchema, ConfigResultSchema, type AuditItem, type Automation, type ConfigResult, type WorkerDetail } from "@fleet/schema";

import { RelativeTime } from "@/components";
import { AppliedStatus, ChangeList, EditorDialog, OfflineWarning, configIssues, diffConfig, useEditorSchema, withDefaults, type ConfigChange } from "@/components/config-editor";
import { ApiError, apiGet, apiPatch, errorMessage, qs, seg } from "@/lib/api";
import { queries } from "@/lib/query";

export interface PauseRecord {
  slots: number;
  actor: string | null;
  ts: number | null;
}

/** The newest completed pause of this very worker in the trail, with the slots it had before. */
export function lastPause(items: readonly Pick<AuditItem, "ts" | "actor" | "target" | "outcome" | "details">[], target: string): PauseRecord | null {
  for (const e of items) {
    if (e.target !== target || (e.outcome !== undefined && e.outcome !== "done")) continue;
    if (e.details?.intent !== "pause") continue;
    const before = e.details.slots_before;
    return typeof before === "number" && Number.isInteger(before) && before > 0 ? { slots: before, actor: e.actor, ts: e.ts } : null;
  }
  return null;
}

function configOf(w: WorkerDetail): Record<string, unknown> {
  return w.config !== null && typeof w.config === "object" && !Array.isArray(w.config) ? (w.config as Record<string, unknown>) : {};
}

export function isPaused(w: WorkerDetail): boolean {
  return configOf(w).slots === 0;
}

export interface PauseOutcome {
  intent: "pause" | "resume";
  from: number;
  to: number;
}

/** The Pause… / Resume… button and its review; the page shows `onDone`'s outcome (PauseOutcomeNote). */
export function PauseControl({ worker, onDone }: { worker: WorkerDetail; onDone: (o: PauseOutcome | null) => void }) {
  const qc = useQueryClient();
  const autoQ = useQuery(queries.automation(worker.automation_type));
  const [open, setOpen] = useState(false);
  const setDone = onDone;
  const paused = isPaused(worker);
  const corrupt = worker.corrupt?.includes("config") || worker.corrupt?.includes("config_gen");
  return (
    <>
      <button
        type="button"
        className="btn"
        disabled={autoQ.isPending || corrupt}
        title={corrupt ? "The stored config or its generation does not parse: repair it in the config editor first" : undefined}
        onClick={() => {
          setDone(null);
          setOpen(true);
        }}
      >
        {paused ? "Resume…" : "Pause…"}
      </button>
      {open && autoQ.data && (
        <PauseDialog
          worker={worker}
          automation={autoQ.data}
          onClose={() => setOpen(false)}
          onDone={(r) => {
            qc.setQueryData<WorkerDetail>(queries.worker(worker.automation_type, worker.worker_id).queryKey, (old) =>
              old ? { ...old, config: r.result.config, config_gen: r.result.config_gen } : old,
            );
            setDone({ intent: r.intent, from: r.from, to: r.result.config_gen });
            setOpen(false);
          }}
        />
      )}
    </>
  );
}

/** "Paused: generation 1 → 2. Waiting for the worker… / Applied ✓", under the page's header. */
export function PauseOutcomeNote({ worker, outcome }: { worker: WorkerDetail; outcome: PauseOutcome | null }) {
  if (!outcome) return null;
  return (
    <p role="status" className="-mt-3 mb-4 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm" data-testid="pause-outcome">
      <span className="font-medium text-emerald-700 dark:text-emerald-400">
        {outcome.intent === "pause" ? "Paused" : "Resumed"}: generation {outcome.from} → {outcome.to}.
      </span>
      <AppliedStatus worker={worker} gen={outcome.to} />
    </p>
  );
}

function PauseDialog({
  worker,
  automation,
  onClose,
  onDone,
}: {
  worker: WorkerDetail;
  automation: Automation;
  onClose: () => void;
  onDone: (r: { intent: "pause" | "resume"; from: number; result: ConfigResult }) => void;
}) {
  const qc = useQueryClient();
  const s = useEditorSchema(automation.schemas?.config ?? null);
  const paused = isPaused(worker);
  const intent = paused ? "resume" : "pause";
  const target = `worker:${worker.automation_type}/${worker.worker_id}`;
  const fieldId = useId();
  // Where the value to resume with comes from: the pause's audit entry.
  const trail = useQuery({
    queryKey: ["audit", "pause", target],
    queryFn: ({ signal }) => apiGet(`/audit${qs({ target, action: "worker.config", limit: 100 })}`, AuditListSchema, signal),
    enabled: paused,
    staleTime: 0,
    retry: false,
  });
  const previous = useMemo(() => (trail.data ? lastPause(trail.data.items, target) : null), [trail.data, target]);
  const [resumeText, setResumeText] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const before = configOf(worker);
  const shownBefore = withDefaults(s, before);
  const startSlots = previous?.slots ?? (typeof shownBefore.slots === "number" && shownBefore.slots > 0 ? shownBefore.slots : 1);
  const text = resumeText ?? String(startSlots);
  const resumeSlots = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  const newSlots = intent === "pause" ? 0 : resumeSlots;
  const after = { ...before, slots: newSlots };
  const badNumber = intent === "resume" && !(Number.isInteger(resumeSlots) && resumeSlots > 0);
  const issues = badNumber ? [] : configIssues(s, after);
  const changes: ConfigChange[] = badNumber ? [] : diffConfig(before, after);
  const gen = worker.config_gen ?? 0;
  const waitingForTrail = paused && trail.isPending;

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const result = await apiPatch(
        `/workers/${seg(worker.automation_type)}/${seg(worker.worker_id)}/config${qs({ intent })}`,
        ConfigResultSchema,
        { slots: newSlots },
        { headers: { "If-Match": `"${gen}"` } },
      );
      onDone({ intent, from: gen, result });
    } catch (err) {
      setError(err);
      // Someone saved first: show their version (the change above follows it), then try again.
      if (err instanceof ApiError && err.status === 412) void qc.invalidateQueries({ queryKey: queries.worker(worker.automation_type, worker.worker_id).queryKey });
    } finally {
      setBusy(false);
    }
  };

  const stale = error instanceof ApiError && error.status === 412;
  return (
    <EditorDialog
      open
      busy={busy}
      title={`${paused ? "Resume" : "Pause"} ${worker.worker_id}?`}
      testId="pause-review"
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn" disabled={busy} onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn-primary"
            disabled={busy || waitingForTrail || badNumber || issues.length > 0}
            aria-busy={busy}
            onClick={() => void submit()}
            autoFocus
          >
            {busy ? "Saving…" : paused ? `Resume with ${Number.isNaN(resumeSlots) ? "?" : resumeSlots} slot${resumeSlots === 1 ? "" : "s"}` : "Pause: set slots to 0"}
          </button>
        </>
      }
    >
      <OfflineWarning workers={[worker]} />
      {paused ? (
        <div className="mb-3 flex flex-col gap-2 text-slate-700 dark:text-slate-300">
          <p>Gives the worker its slots back, so it takes tasks again.</p>
          {trail.isPending ? (
            <p className="text-slate-500">Looking up the value before the pause in the audit trail…</p>
          ) : previous ? (
            <p data-testid="pause-previous">
              Before the pause it ran <strong>{previous.slots}</strong> slot{previous.slots === 1 ? "" : "s"}
              {previous.actor ? ` (paused by ${previous.actor}` : " ("}
              {previous.ts !== null ? (
                <>
                  {previous.actor ? ", " : ""}
                  <RelativeTime at={previous.ts} />
                </>
              ) : null}
              ).
            </p>
          ) : (
            <p data-testid="pause-previous">
              The audit trail does not say how many slots it ran before it was paused{trail.isError ? ` (${errorMessage(trail.error)})` : ""}: choose how many.
            </p>
          )}
          <label htmlFor={fieldId} className="text-sm font-medium">
            Slots after resuming
          </label>
          <input
            id={fieldId}
            className="field w-32 tabular-nums"
            inputMode="numeric"
            value={text}
            disabled={busy}
            aria-invalid={badNumber ? true : undefined}
            onChange={(e) => setResumeText(e.target.value)}
          />
          {badNumber && <p className="text-sm text-red-700 dark:text-red-400">A whole number above 0.</p>}
        </div>
      ) : (
        <p className="mb-3 text-slate-700 dark:text-slate-300">
          Sets its slots to 0: the worker finishes what it is running and takes no new task; the queue keeps the tasks for the other workers. Resume gives it back its{" "}
          {typeof shownBefore.slots === "number" ? shownBefore.slots : "current"} slots.
        </p>
      )}
      {changes.length > 0 && (
        <>
          <p className="mb-1 text-slate-600 dark:text-slate-400">
            A config write from generation {gen} to {gen + 1}, recorded in the audit trail as a {intent}:
          </p>
          <ChangeList changes={changes} schema={s.declared} stored={before} />
        </>
      )}
      {issues.length > 0 && (
        <p role="alert" className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
          The automation&apos;s config schema does not allow this: {issues.map((i) => (i.where ? `${i.where}: ${i.message}` : i.message)).join(" ")}
        </p>
      )}
      {error !== null && (
        <p role="alert" className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
          {stale ? "Someone else changed this config meanwhile; the change above now shows their version. Review it and try again." : `Not saved: ${errorMessage(error)}`}
        </p>
      )}
    </EditorDialog>
  );
}
