"use client";
// The catalog: every automation type (declared in fleet:catalog or seen in the worker
// registry) with its workers by status, its queue and its stream. Live: worker, queue
// and stream frames invalidate the list.
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import type { Automation } from "@fleet/schema";

import { queries } from "@/lib/query";
import { formatNumber } from "@/lib/format";
import { CorruptBadge, EmptyState, ErrorState, LoadingState, PageHeader, StatusBadge } from "@/components";

const STATUSES = ["running", "idle", "error", "offline"] as const;

export function automationHref(type: string): string {
  return `/automations/${encodeURIComponent(type)}`;
}

export function AutomationsIndex() {
  const q = useQuery(queries.automations());
  return (
    <>
      <PageHeader title="Automations" description="Every automation type, declared in the catalog or seen in the worker registry: its workers, its queue and its stream." />
      {q.isPending ? (
        <LoadingState label="Loading automations…" />
      ) : q.isError ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : q.data.automations.length === 0 ? (
        <EmptyState title="No automations yet">
          Automations appear here once a worker registers or a catalog entry is written to <code className="font-mono">fleet:catalog</code>.
        </EmptyState>
      ) : (
        <ul className="grid grid-cols-1 gap-4 md:grid-cols-2 xl:grid-cols-3" aria-label="Automations">
          {q.data.automations.map((a) => (
            <li key={a.automation_type}>
              <AutomationCard automation={a} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Stat({ label, value, tone, testId }: { label: string; value: number; tone?: "warn" | "bad"; testId?: string }) {
  const color =
    tone === "bad" && value > 0 ? "text-red-700 dark:text-red-400" : tone === "warn" && value > 0 ? "text-amber-700 dark:text-amber-400" : "text-slate-900 dark:text-slate-100";
  return (
    <div className="min-w-0">
      <dt className="truncate text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className={`text-lg font-semibold tabular-nums ${color}`} data-testid={testId}>
        {formatNumber(value)}
      </dd>
    </div>
  );
}

function AutomationCard({ automation: a }: { automation: Automation }) {
  const q = a.queue;
  return (
    <article
      aria-labelledby={`auto-${a.automation_type}`}
      data-testid="automation-card"
      className="relative flex h-full flex-col gap-4 rounded-lg border border-slate-200 bg-white p-4 transition-shadow focus-within:ring-2 focus-within:ring-sky-500 hover:shadow-md dark:border-slate-800 dark:bg-slate-900"
    >
      <header className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id={`auto-${a.automation_type}`} className="truncate text-base font-semibold">
            <Link href={automationHref(a.automation_type)} className="link after:absolute after:inset-0 focus-visible:outline-none">
              {a.automation_type}
            </Link>
          </h2>
          <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">{a.schemas ? "Declared in the catalog" : "No catalog entry: any JSON config and payload accepted"}</p>
        </div>
        <div className="flex shrink-0 flex-col items-end gap-1">
          <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-300">
            {a.workers.total === 1 ? "1 worker" : `${formatNumber(a.workers.total)} workers`}
          </span>
          {a.corrupt && a.corrupt.length > 0 && <CorruptBadge fields={a.corrupt} />}
        </div>
      </header>

      <div className="flex flex-wrap gap-1.5" role="group" aria-label="Workers by status">
        {a.workers.total === 0 ? (
          <span className="text-sm text-slate-500 dark:text-slate-400">No worker registered.</span>
        ) : (
          STATUSES.filter((s) => a.workers[s] > 0).map((s) => (
            <span key={s} className="inline-flex items-center gap-1 text-sm">
              <StatusBadge status={s} />
              <span className="tabular-nums font-medium">{a.workers[s]}</span>
            </span>
          ))
        )}
      </div>

      <dl className="mt-auto grid grid-cols-4 gap-2 border-t border-slate-100 pt-3 dark:border-slate-800">
        <Stat label="Pending" value={q?.pending.total ?? 0} testId="automation-pending" />
        <Stat label="In flight" value={q?.processing ?? 0} />
        <Stat label="Dead" value={q?.dead ?? 0} tone="bad" />
        <Stat label="Stream" value={a.stream?.length ?? 0} />
      </dl>
    </article>
  );
}
