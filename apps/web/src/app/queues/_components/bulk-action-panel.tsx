"use client";

import { BULK_ACTION_LISTS, BULK_DEFAULT_RATE, BulkJobSchema, type BulkAction, type BulkJob, type SearchMatchLine, type StartBulkJobInput } from "@fleet/schema";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";

import { ConfirmDialog } from "@/components";
import { ResultNote, Section } from "@/components/ui-bits";
import { useOnChange } from "@/components/use-on-change";
import { apiPost, errorMessage, seg } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { mergeBulkJob } from "@/lib/bulk-job";
import { queries, queryKeys } from "@/lib/query";
import { streamSearch } from "@/lib/search-stream";

const ACTIONS: ReadonlyArray<{ id: BulkAction; label: string; verb: string; noun: [string, string] }> = [
  { id: "requeue-dead", label: "Requeue matching dead letters", verb: "Requeue", noun: ["dead letter", "dead letters"] },
  { id: "delete-dead", label: "Delete matching dead letters", verb: "Delete", noun: ["dead letter", "dead letters"] },
  { id: "delete-pending", label: "Delete matching pending tasks", verb: "Delete", noun: ["pending task", "pending tasks"] },
];

const count = (n: number, [one, many]: [string, string]) => `${formatNumber(n)} ${n === 1 ? one : many}`;

interface Preview {
  action: BulkAction;
  matched: number;
  first: SearchMatchLine[];
}

/** Act on what a search found: preview (count, first items), confirm naming the count, then the job's progress. */
export function BulkActionPanel({ name, q, where }: { name: string; q: string; where: string }) {
  const [action, setAction] = useState<BulkAction>("requeue-dead");
  const [rate, setRate] = useState(BULK_DEFAULT_RATE);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [previewing, setPreviewing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The job this panel started: its query is kept live by the job's `fleet.bulk` messages on
  // the event stream (src/lib/live-cache.ts); while the stream is down the console's polling
  // refetches it like every query on the page.
  const [jobId, setJobId] = useState<string | null>(null);
  const client = useQueryClient();
  const jobQuery = useQuery({ ...queries.bulkJob(name, jobId ?? "-"), enabled: jobId !== null });
  const job = jobId === null ? null : (jobQuery.data ?? null);
  const setJob = (j: BulkJob | null) => {
    if (j) client.setQueryData<BulkJob>(queryKeys.bulk.job(name, j.id), (old) => mergeBulkJob(old, j));
    setJobId(j?.id ?? null);
  };
  const abort = useRef<AbortController | null>(null);
  const spec = ACTIONS.find((a) => a.id === action)!;

  // a new search (or action) makes the old preview meaningless, and stops one being counted
  useOnChange(JSON.stringify([q, where, action]), () => {
    setPreview(null);
    abort.current?.abort();
  });

  const runPreview = async () => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setPreviewing(true);
    setError(null);
    setJob(null);
    const first: SearchMatchLine[] = [];
    let matched = 0;
    try {
      await streamSearch(name, { q: q || undefined, where: where || undefined, in: BULK_ACTION_LISTS[action], limit: 5 }, controller.signal, (line) => {
        if (line.type === "match") first.push(line);
        else if (line.type === "done") matched = line.matched;
        else if (line.type === "error") throw new Error(line.error.message);
      });
      setPreview({ action, matched, first });
    } catch (err) {
      if (!(err instanceof DOMException && err.name === "AbortError")) setError(errorMessage(err));
    } finally {
      setPreviewing(false);
    }
  };

  const start = async () => {
    if (!preview) return;
    setBusy(true);
    try {
      const started = await apiPost(`/queues/${seg(name)}/bulk`, BulkJobSchema, {
        action,
        q: q || undefined,
        where: where || undefined,
        rate,
        expected: preview.matched,
      } satisfies StartBulkJobInput);
      setJob(started);
      setConfirming(false);
      setPreview(null);
    } catch (err) {
      setError(errorMessage(err));
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  };

  const cancel = async () => {
    if (!job) return;
    try {
      setJob(await apiPost(`/queues/${seg(name)}/bulk/${seg(job.id)}/cancel`, BulkJobSchema));
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  const jobSpec = job ? ACTIONS.find((a) => a.id === job.action)! : null;
  return (
    <Section
      id="act"
      title="Act on the matches"
      description="Preview first: how many match, and the first ones. The job then runs at most at the rate given, and survives a restart of the console."
    >
      <div className="card grid gap-3 p-4">
        <div className="flex flex-wrap items-end gap-3 text-sm">
          <label className="grid gap-1">
            <span className="font-medium">Action</span>
            <select className="field h-9" value={action} onChange={(e) => setAction(e.target.value as BulkAction)}>
              {ACTIONS.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.label}
                </option>
              ))}
            </select>
          </label>
          <label className="grid gap-1">
            <span className="font-medium">At most, tasks per second</span>
            <input className="field h-9 w-32" type="number" min={1} max={10000} value={rate} onChange={(e) => setRate(Math.max(1, Math.min(10000, Number(e.target.value) || 1)))} />
          </label>
          <button type="button" className="btn" onClick={() => void runPreview()} disabled={previewing || (!q && !where)}>
            {previewing ? "Counting…" : "Preview"}
          </button>
        </div>
        {error && (
          <ResultNote kind="error" onDismiss={() => setError(null)}>
            {error}
          </ResultNote>
        )}
        {preview && (
          <div className="grid gap-2 text-sm" data-testid="bulk-preview">
            <p>
              <strong>{count(preview.matched, spec.noun)}</strong> match{preview.matched === 1 ? "es" : ""} this search
              {preview.first.length > 0 ? "; the first ones:" : "."}
            </p>
            {preview.first.length > 0 && (
              <ul className="list-inside list-disc font-mono text-xs" aria-label="First matches">
                {preview.first.map((m, i) => (
                  <li key={`${m.ref}:${i}`} className="break-all">
                    {m.task_id ?? m.ref.slice(0, 12)}
                    {m.last_error !== null ? ` · ${m.last_error.length > 80 ? `${m.last_error.slice(0, 80)}…` : m.last_error}` : ""}
                  </li>
                ))}
              </ul>
            )}
            {preview.matched > 0 && (
              <div>
                <button type="button" className={spec.verb === "Delete" ? "btn-danger" : "btn-primary"} onClick={() => setConfirming(true)}>
                  {spec.verb} {count(preview.matched, spec.noun)}…
                </button>
              </div>
            )}
          </div>
        )}
        {job && jobSpec && (
          <div className="grid gap-1 text-sm" data-testid="bulk-job">
            <p role="status">
              {job.state === "running"
                ? `${jobSpec.verb === "Delete" ? "Deleting" : "Requeuing"}… `
                : `${job.state === "done" ? "Done" : job.state === "cancelled" ? "Cancelled" : "Failed"}: `}
              {jobSpec.verb === "Delete" ? "deleted" : "requeued"} {count(job.done, jobSpec.noun)} of {formatNumber(job.expected)} previewed
              {job.missing > 0 ? ` (${formatNumber(job.missing)} were gone meanwhile)` : ""}.{job.note ? ` ${job.note}.` : ""}
            </p>
            {job.state === "running" && (
              <div className="flex items-center gap-2">
                <progress className="h-2 w-full" max={Math.max(1, job.expected)} value={job.done} aria-label="Tasks done" />
                <button type="button" className="btn" onClick={() => void cancel()}>
                  Stop
                </button>
              </div>
            )}
          </div>
        )}
      </div>
      <ConfirmDialog
        open={confirming && preview !== null}
        title={preview ? `${spec.verb} ${count(preview.matched, spec.noun)}?` : ""}
        confirmLabel={preview ? `${spec.verb} ${count(preview.matched, spec.noun)}` : spec.verb}
        destructive={spec.verb === "Delete"}
        busy={busy}
        onConfirm={() => void start()}
        onCancel={() => setConfirming(false)}
      >
        {preview && (
          <p>
            Every {spec.noun[0]} of queue <span className="font-mono">{name}</span> matching this search, {formatNumber(preview.matched)} at the preview, at most{" "}
            {formatNumber(rate)} a second.{action === "requeue-dead" ? " Their attempts go back to 0." : " This cannot be undone."}
          </p>
        )}
      </ConfirmDialog>
    </Section>
  );
}
