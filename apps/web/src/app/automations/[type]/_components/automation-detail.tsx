"use client";
// One automation: its workers, queue and stream at a glance, the schemas it declares in
// a readable form, a task submission form and the fleet-wide config rollout.
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import type { Automation, Worker } from "@fleet/schema";

import { queries, workerHostname } from "@/lib/query";
import { formatNumber } from "@/lib/format";
import { CorruptBadge, EmptyState, ErrorState, LoadingState, PageHeader, RelativeTime, StatusBadge } from "@/components";
import { ConfigRolloutEditor } from "@/components/config-editor";
import { LastErrorCell } from "@/components/last-error-cell";

import { SchemaSection } from "./schema-section";
import { SubmitTaskForm } from "./submit-task-form";

const enc = encodeURIComponent;
const STATUSES = ["running", "idle", "error", "offline"] as const;

function Card({ title, children, action }: { title: string; children: React.ReactNode; action?: React.ReactNode }) {
  return (
    <section aria-label={title} className="card flex flex-col gap-3">
      <div className="flex items-baseline justify-between gap-2">
        <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{title}</h2>
        {action}
      </div>
      {children}
    </section>
  );
}

function Figure({ label, value, tone, testId }: { label: string; value: number; tone?: "bad" | "warn"; testId?: string }) {
  const color = tone === "bad" && value > 0 ? "text-red-700 dark:text-red-400" : tone === "warn" && value > 0 ? "text-amber-700 dark:text-amber-400" : "";
  return (
    <div className="min-w-0">
      <dt className="truncate text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className={`text-xl font-semibold tabular-nums ${color}`} data-testid={testId}>
        {formatNumber(value)}
      </dd>
    </div>
  );
}

export function AutomationDetail({ automationType }: { automationType: string }) {
  const q = useQuery(queries.automation(automationType));
  const crumbs = [{ href: "/automations", label: "Automations" }];
  if (q.isPending) {
    return (
      <>
        <PageHeader title={automationType} breadcrumbs={crumbs} />
        <LoadingState label="Loading the automation…" />
      </>
    );
  }
  if (q.isError) {
    return (
      <>
        <PageHeader title={automationType} breadcrumbs={crumbs} />
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      </>
    );
  }
  const a = q.data;
  return (
    <>
      <PageHeader
        title={a.automation_type}
        breadcrumbs={crumbs}
        description={
          a.schemas ? (
            <>
              Its settings, tasks and output are described by the master (its catalog entry, <code className="font-mono text-xs">fleet:catalog</code>), so the forms below check
              them.
            </>
          ) : (
            <>
              No description from the master (no <code className="font-mono text-xs">fleet:catalog</code> entry): configs and task payloads can be any JSON object.
            </>
          )
        }
        actions={
          <>
            {a.corrupt && a.corrupt.length > 0 && <CorruptBadge fields={a.corrupt} />}
            {/* The rollout form is the page's last section (a screen or more down on a phone): one jump to it. */}
            <a href="#rollout" className="btn-primary">
              Change config of every worker
            </a>
          </>
        }
      />
      <div className="flex flex-col gap-8">
        <Overview automation={a} />
        <WorkersOfType automationType={a.automation_type} />

        <section aria-labelledby="submit-heading" className="card sm:p-5">
          <h2 id="submit-heading" className="mb-3 text-lg font-semibold">
            Submit a task
          </h2>
          <SubmitTaskForm automationType={a.automation_type} payloadSchema={a.schemas?.task_payload ?? null} pendingNow={a.queue?.pending.total ?? 0} />
        </section>

        <section aria-labelledby="schemas-heading" className="flex flex-col gap-6">
          <h2 id="schemas-heading" className="text-lg font-semibold">
            Schemas
          </h2>
          {a.schemas ? (
            <>
              <SchemaSection name="config" title="Config schema" schema={a.schemas.config} hint="What each worker's config may hold." />
              <SchemaSection name="task_payload" title="Task payload schema" schema={a.schemas.task_payload} hint="What a task submitted to the queue must carry." />
              <SchemaSection name="output" title="Output schema" schema={a.schemas.output} hint="What the workers emit on the stream." />
            </>
          ) : (
            <EmptyState title="No schemas declared">
              Workers of this type have not published a catalog entry, so nothing is validated: any JSON object is accepted as config and as task payload.
            </EmptyState>
          )}
        </section>

        <ConfigRolloutEditor automationType={a.automation_type} />
      </div>
    </>
  );
}

function Overview({ automation: a }: { automation: Automation }) {
  const q = a.queue;
  return (
    <div className="grid grid-cols-1 gap-4 md:grid-cols-3">
      <Card
        title="Workers"
        action={
          <Link href={`/workers?type=${enc(a.automation_type)}`} className="link text-sm">
            All workers
          </Link>
        }
      >
        <p className="text-3xl font-semibold tabular-nums" data-testid="workers-total">
          {formatNumber(a.workers.total)}
        </p>
        <div className="flex flex-wrap gap-2">
          {STATUSES.map((s) => (
            <span key={s} className="inline-flex items-center gap-1 text-sm">
              <StatusBadge status={s} /> <span className={`tabular-nums ${a.workers[s] === 0 ? "text-slate-500 dark:text-slate-400" : "font-medium"}`}>{a.workers[s]}</span>
            </span>
          ))}
        </div>
      </Card>
      <Card
        title="Queue"
        action={
          <Link href={`/queues/${enc(a.automation_type)}`} className="link text-sm">
            Open queue
          </Link>
        }
      >
        <dl className="grid grid-cols-3 gap-2">
          <Figure label="Pending" value={q?.pending.total ?? 0} testId="queue-pending" />
          <Figure label="In flight" value={q?.processing ?? 0} />
          <Figure label="Dead" value={q?.dead ?? 0} tone="bad" />
        </dl>
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {q
            ? `high ${q.pending.high} · normal ${q.pending.normal} · low ${q.pending.low} · scheduled ${q.scheduled}${q.overdue > 0 ? ` · ${q.overdue} overdue` : ""}`
            : "Empty: no task waiting, running or dead."}
        </p>
      </Card>
      <Card
        title="Stream"
        action={
          <Link href={`/streams/${enc(a.automation_type)}`} className="link text-sm">
            Open stream
          </Link>
        }
      >
        <dl>
          <Figure label="Entries" value={a.stream?.length ?? 0} testId="stream-length" />
        </dl>
        <p className="text-xs text-slate-500 dark:text-slate-400">What the workers emitted, kept until read or trimmed.</p>
      </Card>
    </div>
  );
}

function WorkersOfType({ automationType }: { automationType: string }) {
  const q = useQuery(queries.workersEverything(automationType));
  return (
    <section aria-labelledby="type-workers-heading" className="flex flex-col gap-3">
      <h2 id="type-workers-heading" className="text-lg font-semibold">
        Workers
      </h2>
      {q.isPending ? (
        <LoadingState label="Loading workers…" />
      ) : q.isError ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : q.data.workers.length === 0 ? (
        <EmptyState title="No worker registered">Workers of {automationType} appear here as soon as one registers.</EmptyState>
      ) : (
        <WorkerTable workers={q.data.workers} />
      )}
    </section>
  );
}

const SHOWN = 200;

function WorkerTable({ workers }: { workers: Worker[] }) {
  const shown = workers.slice(0, SHOWN);
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-800">
      <table className="w-full border-collapse text-left text-sm">
        <caption className="sr-only">Workers of this automation</caption>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500 dark:bg-slate-900 dark:text-slate-400">
          <tr>
            <th scope="col" className="px-2 py-2 sm:px-3 font-medium">
              Worker
            </th>
            <th scope="col" className="px-2 py-2 sm:px-3 font-medium">
              Status
            </th>
            <th scope="col" className="hidden px-2 py-2 sm:px-3 font-medium sm:table-cell">
              Host
            </th>
            <th scope="col" className="px-2 py-2 sm:px-3 font-medium">
              Last seen
            </th>
            <th scope="col" className="hidden px-2 py-2 sm:px-3 text-right font-medium sm:table-cell">
              <span title="config_gen: goes up by one on every save of the worker's config">Config version</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {shown.map((w) => (
            <tr key={w.worker_id} className={w.status === "offline" ? "text-slate-500 dark:text-slate-400" : ""}>
              <td className="max-w-[14rem] px-2 py-2 sm:px-3">
                <Link href={`/workers/${enc(w.automation_type)}/${enc(w.worker_id)}`} className="link break-all font-mono">
                  {w.worker_id}
                </Link>
                {/* Whole and wrapped, with since when (issue 19.6), as on the workers page: it never pushes the table sideways. */}
                {w.last_error && w.status === "error" && <LastErrorCell worker={w} className="max-w-[9rem] sm:max-w-[14rem]" />}
              </td>
              <td className="px-2 py-2 sm:px-3">
                <StatusBadge status={w.status} />
              </td>
              <td className="hidden break-all px-2 py-2 sm:px-3 sm:table-cell">{workerHostname(w) ?? "—"}</td>
              <td className="whitespace-nowrap px-2 py-2 sm:px-3">
                <RelativeTime at={w.last_seen} />
              </td>
              <td className="hidden px-2 py-2 sm:px-3 text-right font-mono tabular-nums sm:table-cell">{w.config_gen ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {workers.length > SHOWN && (
        <p className="border-t border-slate-200 px-2 py-2 sm:px-3 text-sm dark:border-slate-800">
          Showing {SHOWN} of {formatNumber(workers.length)}.{" "}
          <Link href={`/workers?type=${enc(workers[0]!.automation_type)}`} className="link">
            See them all on the workers page
          </Link>
          .
        </p>
      )}
    </div>
  );
}
