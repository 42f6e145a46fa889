"use client";

import { SweepResultSchema, type Priority, type QueueDetail } from "@fleet/schema";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";

import { Countdown, ErrorState, LoadingState, PageHeader, RelativeTime, useNow, WrongTypeNote } from "@/components";
import { ApiError, apiPost, errorMessage, seg } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { queueItemLoader } from "@/lib/full-value";
import { queries, queryKeys } from "@/lib/query";
import { Can } from "@/lib/session";

import { ErrorGroupsList } from "@/components/error-groups";
import { HistoryCharts } from "@/components/history-charts";

import { DeadLetters } from "./dead-letters";
import { ItemTable } from "@/components/item-table";
import { LimitSelect, ResultNote, Section, Stat, TaskId } from "@/components/ui-bits";
import { intParam, useQueryState } from "@/lib/use-query-state";

type Processing = QueueDetail["processing_items"][number];
type Pending = QueueDetail["pending_items"][number];
type Scheduled = QueueDetail["scheduled_items"][number];

const PRIORITY_CLS: Record<Priority, string> = {
  high: "bg-violet-100 text-violet-800 ring-violet-600/30 dark:bg-violet-950 dark:text-violet-300",
  normal: "bg-slate-100 text-slate-700 ring-slate-400/40 dark:bg-slate-800 dark:text-slate-300",
  low: "bg-white text-slate-500 ring-slate-300 dark:bg-slate-900 dark:text-slate-400 dark:ring-slate-700",
};

function PriorityBadge({ p }: { p: Priority }) {
  return <span className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${PRIORITY_CLS[p]}`}>{p}</span>;
}

function ReadyAt({ at }: { at: number }) {
  const now = useNow();
  const due = now !== null && at <= now;
  return (
    <span className="flex flex-wrap items-center gap-1.5">
      <RelativeTime at={at} className="tabular-nums" />
      {due && <span className="rounded bg-sky-100 px-1.5 py-0.5 text-xs font-medium text-sky-800 dark:bg-sky-950 dark:text-sky-300">due</span>}
    </span>
  );
}

/** A key per row from its content, numbered when several rows hold the same. */
function contentKeys<T extends object>(rows: readonly T[], of: (r: T) => string): Map<T, string> {
  const seen = new Map<string, number>();
  const out = new Map<T, string>();
  for (const r of rows) {
    const base = of(r);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.set(r, `${base}#${n}`);
  }
  return out;
}

function shown(n: number, total: number): string {
  return n < total ? `${formatNumber(n)} of ${formatNumber(total)} shown` : formatNumber(total);
}

/** /queues/{name}: depths, item lists, dead letters and the sweep. */
export function QueueDetailView({ name }: { name: string }) {
  const [sp, setParams] = useQueryState();
  const limit = intParam(sp, "limit", 100, 1000);
  const client = useQueryClient();
  const { data, error, isPending, refetch } = useQuery(queries.queue(name, limit));
  // The dead-letter page is asked for beside the queue, not after it: DeadLetters (rendered
  // once the queue is in) finds it in the cache under the same key. One round trip less
  // before the page shows a large queue.
  useQuery(queries.deadLetters(name, limit, intParam(sp, "dead_offset", 0)));
  const [sweepNote, setSweepNote] = useState<{ kind: "ok" | "error"; text: string } | null>(null);

  const sweep = useMutation({
    mutationFn: () => apiPost(`/queues/${seg(name)}/sweep`, SweepResultSchema),
    onSuccess: (r) => {
      const orphans = r.orphaned.length > 0 ? ` ${r.orphaned.length} reservation${r.orphaned.length === 1 ? "" : "s"} had no body left and were dropped.` : "";
      setSweepNote({
        kind: "ok",
        text:
          r.requeued === 0
            ? `Sweep done: no task was past its deadline.${orphans}`
            : `Sweep done: ${formatNumber(r.requeued)} overdue task${r.requeued === 1 ? " was" : "s were"} put back on the queue.${orphans}`,
      });
    },
    onError: (err) => setSweepNote({ kind: "error", text: `Sweep failed: ${errorMessage(err)}` }),
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.queues.all }),
  });

  // Rows keyed by what they hold, not where they sit: an open row stays open (and its
  // "Show all" stays put) when tasks ahead of it are taken and the list moves up.
  const pendingKeys = useMemo(() => contentKeys(data?.pending_items ?? [], (r) => `${r.priority}:${r.task_id ?? ""}:${r.body.bytes}`), [data]);
  const scheduledKeys = useMemo(() => contentKeys(data?.scheduled_items ?? [], (r) => `${r.ready_at}:${r.task_id ?? ""}:${r.body.bytes}`), [data]);

  const crumbs = [{ href: "/queues", label: "Queues" }];
  const header = (
    <PageHeader
      title={name}
      breadcrumbs={crumbs}
      description="Pending, in-flight and scheduled tasks and dead letters, live."
      actions={
        data && (
          <>
            <Link className="btn" href={`/queues/${seg(name)}/search`} prefetch={false}>
              Search tasks
            </Link>
            <LimitSelect label="Items per list" value={limit} onChange={(l) => setParams({ limit: l })} />
            <Can role="operator">
              <button
                type="button"
                className="btn-primary"
                onClick={() => sweep.mutate()}
                disabled={sweep.isPending}
                title="The sweep: puts tasks held past their deadline back on the queue now, without waiting for the master's next round (every 10 s)"
              >
                {sweep.isPending ? "Putting them back…" : "Requeue overdue tasks"}
              </button>
            </Can>
          </>
        )
      }
    />
  );

  if (isPending)
    return (
      <>
        {header}
        <LoadingState label="Loading the queue…" />
      </>
    );
  if (error) {
    return (
      <>
        {header}
        <ErrorState
          error={error}
          title={error instanceof ApiError && error.status === 404 ? `There is no queue named “${name}”` : undefined}
          onRetry={error instanceof ApiError && error.status === 404 ? undefined : () => void refetch()}
        />
        <p className="mt-4 text-sm">
          <Link href="/queues" className="link">
            Back to every queue
          </Link>
        </p>
      </>
    );
  }

  const q = data;
  return (
    <>
      {header}
      {sweepNote && (
        <div className="mb-4">
          <ResultNote kind={sweepNote.kind} onDismiss={() => setSweepNote(null)}>
            {sweepNote.text}
          </ResultNote>
        </div>
      )}
      <WrongTypeNote parts={q.corrupt} what="queue" />
      {/* Four to a row on phones too, compact: two short rows, not four tall ones. */}
      <dl className="grid grid-cols-4 gap-1.5 sm:gap-2 lg:grid-cols-8" aria-label="Depths">
        <Stat compact label="High" value={q.pending.high} />
        <Stat compact label="Normal" value={q.pending.normal} />
        <Stat compact label="Low" value={q.pending.low} />
        <Stat compact label="In flight" value={q.processing} />
        <Stat compact label="Stuck" value={q.overdue} tone="warn" />
        <Stat compact label="Scheduled" value={q.scheduled} />
        <Stat compact label="Retry due" value={q.due} />
        <Stat compact label="Dead" value={q.dead} tone="bad" />
      </dl>
      <p className="mt-2 text-xs text-slate-600 dark:text-slate-400" data-testid="depth-legend">
        <strong className="font-medium">In flight</strong>: held by a worker now. <strong className="font-medium">Stuck</strong> (<code className="font-mono">overdue</code>): held
        longer than allowed, so its worker probably died; “Requeue overdue tasks” (the sweep) puts them back. <strong className="font-medium">Retry due</strong> (
        <code className="font-mono">due</code>): failed tasks whose retry time has come. <strong className="font-medium">Dead</strong>: failed every attempt.
      </p>

      {/* No Suspense boundary around the sections: React's server renderer outlines a boundary
          whose HTML is large (a list of 100 rows) to the end of the stream, hidden until a script
          reveals it, so the lists would paint late, and never without scripts. In place, they are
          painted as the HTML is parsed (e2e/tests/first-paint.spec.ts). */}
      <HistoryCharts queue={name} pending={q.pending.total} />

      <nav aria-label="Sections" className="mt-4 flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <a className="link" href="#in-flight">
          In flight
        </a>
        <a className="link" href="#pending">
          Pending
        </a>
        <a className="link" href="#scheduled">
          Scheduled
        </a>
        <a className="link" href="#dead">
          Dead letters{q.dead > 0 ? ` (${formatNumber(q.dead)})` : ""}
        </a>
      </nav>

      <Section
        id="in-flight"
        title="In flight"
        count={shown(q.processing_items.length, q.processing)}
        description="Held by a worker. Past its deadline a task is stuck (overdue): “Requeue overdue tasks” puts it back."
        empty={q.processing_items.length === 0 ? "No task is in flight." : undefined}
      >
        <ItemTable<Processing>
          rows={q.processing_items}
          caption="Tasks in flight"
          rowKey={(r) => r.id}
          rowName={(r) => `task ${r.id}`}
          payload={(r) => r.body}
          payloadLabel="body"
          loadFull={(r, i, v) => queueItemLoader(name, i, { section: "processing", id: r.id }, v)}
          fileName={(r) => `${name}-task-${r.id}`}
          previewField="payload"
          rowClassName={(r) => (r.overdue ? "bg-amber-50/60 dark:bg-amber-950/20" : "")}
          columns={[
            { id: "id", header: "Task", cell: (r) => <TaskId id={r.id} leading="sm" /> },
            {
              id: "deadline",
              header: "Deadline",
              className: "whitespace-nowrap",
              cell: (r) => (
                <span className="flex items-center gap-1.5" data-overdue={r.overdue ? "true" : undefined}>
                  <Countdown to={r.deadline} />
                  {r.overdue && <span className="sr-only">(overdue)</span>}
                </span>
              ),
            },
          ]}
        />
      </Section>

      <Section
        id="pending"
        title="Pending"
        count={shown(q.pending_items.length, q.pending.total)}
        description="Waiting for a worker: high first, then normal, then low."
        empty={q.pending_items.length === 0 ? "Nothing is waiting." : undefined}
      >
        <ItemTable<Pending>
          rows={q.pending_items}
          caption="Pending tasks"
          rowKey={(r, i) => pendingKeys.get(r) ?? `${r.priority}:${i}`}
          rowName={(r) => (r.task_id ? `task ${r.task_id}` : "task without id")}
          payload={(r) => r.body}
          payloadLabel="body"
          loadFull={(r, i, v) => queueItemLoader(name, i, { section: "pending", priority: r.priority }, v)}
          fileName={(r) => `${name}-task-${r.task_id ?? "pending"}`}
          previewField="payload"
          columns={[
            { id: "priority", header: "Priority", cell: (r) => <PriorityBadge p={r.priority} /> },
            { id: "id", header: "Task", cell: (r) => <TaskId id={r.task_id} leading="sm" /> },
          ]}
        />
      </Section>

      <Section
        id="scheduled"
        title="Scheduled retries"
        count={shown(q.scheduled_items.length, q.scheduled)}
        description="Failed tasks waiting for their retry time."
        empty={q.scheduled_items.length === 0 ? "None scheduled." : undefined}
      >
        <ItemTable<Scheduled>
          rows={q.scheduled_items}
          caption="Scheduled retries"
          rowKey={(r, i) => scheduledKeys.get(r) ?? `${r.ready_at}:${i}`}
          rowName={(r) => (r.task_id ? `task ${r.task_id}` : "task without id")}
          payload={(r) => r.body}
          payloadLabel="body"
          loadFull={(r, i, v) => queueItemLoader(name, i, { section: "scheduled", readyAt: r.ready_at }, v)}
          fileName={(r) => `${name}-task-${r.task_id ?? "scheduled"}`}
          previewField="payload"
          columns={[
            { id: "ready", header: "Ready", className: "whitespace-nowrap", cell: (r) => <ReadyAt at={r.ready_at} /> },
            { id: "id", header: "Task", cell: (r) => <TaskId id={r.task_id} leading="sm" /> },
          ]}
        />
      </Section>

      <Section
        id="errors"
        title="Error groups"
        description="The last errors of its dead letters and of the workers of this automation, grouped by message (numbers, ids, urls and hex left out)."
      >
        <ErrorGroupsList queue={name} limit={10} />
      </Section>

      <DeadLetters name={name} total={q.dead} limit={limit} />
    </>
  );
}
