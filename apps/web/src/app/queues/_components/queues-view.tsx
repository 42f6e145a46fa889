"use client";

import type { Queue } from "@fleet/schema";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";

import { CorruptBadge, DataTable, EmptyState, ErrorState, LoadingState, PageHeader, type Column } from "@/components";
import { formatNumber } from "@/lib/format";
import { queries } from "@/lib/query";

import { Num, Stat } from "@/components/ui-bits";
import { useDebouncedParam, useQueryState } from "@/lib/use-query-state";

export function queueHref(name: string): string {
  return `/queues/${encodeURIComponent(name)}`;
}

/** What a phone has no column for, said under the queue's name: only the counts that are not zero. */
function PhoneExtras({ q }: { q: Queue }) {
  const parts: Array<{ text: string; warn?: boolean }> = [];
  if (q.overdue > 0) parts.push({ text: `${formatNumber(q.overdue)} overdue`, warn: true });
  if (q.scheduled > 0) parts.push({ text: `${formatNumber(q.scheduled)} scheduled` });
  if (q.due > 0) parts.push({ text: `${formatNumber(q.due)} due` });
  if (parts.length === 0) return null;
  return (
    <span className="block truncate text-xs leading-tight text-slate-600 sm:hidden dark:text-slate-400">
      {parts.map((p, i) => (
        <span key={p.text} className={p.warn ? "font-semibold text-amber-800 dark:text-amber-300" : ""}>
          {i > 0 && " · "}
          {p.text}
        </span>
      ))}
    </span>
  );
}

// Phones (390 px) keep the name, pending, in flight and dead: the name takes what the three
// numbers leave; overdue, scheduled and due ride under the name when they are not zero.
const columns: Column<Queue>[] = [
  {
    id: "name",
    header: "Queue",
    className: "sm:w-56",
    cell: (q) => (
      <>
        <Link href={queueHref(q.name)} className="link block truncate leading-tight font-medium" title={q.name}>
          {q.name}
        </Link>
        {q.corrupt && <CorruptBadge fields={q.corrupt} />}
        <PhoneExtras q={q} />
      </>
    ),
  },
  { id: "high", header: "High", className: "w-20 text-right", hideOnMobile: true, cell: (q) => <Num value={q.pending.high} /> },
  { id: "normal", header: "Normal", className: "w-20 text-right", hideOnMobile: true, cell: (q) => <Num value={q.pending.normal} /> },
  { id: "low", header: "Low", className: "w-20 text-right", hideOnMobile: true, cell: (q) => <Num value={q.pending.low} /> },
  { id: "pending", header: "Pending", className: "w-[5.25rem] text-right sm:w-24", cell: (q) => <Num value={q.pending.total} /> },
  { id: "processing", header: "In flight", className: "w-[5.75rem] text-right sm:w-24", cell: (q) => <Num value={q.processing} /> },
  {
    id: "overdue",
    header: <span title="overdue: held by a worker past its deadline; the sweep puts them back">Stuck</span>,
    className: "w-28 text-right",
    hideOnMobile: true,
    cell: (q) => <Num value={q.overdue} tone="warn" />,
  },
  { id: "scheduled", header: "Scheduled", className: "w-24 text-right", hideOnMobile: true, cell: (q) => <Num value={q.scheduled} /> },
  {
    id: "due",
    header: <span title="due: scheduled retries whose time has come">Retry due</span>,
    className: "w-24 text-right",
    hideOnMobile: true,
    cell: (q) => <Num value={q.due} />,
  },
  {
    id: "dead",
    header: "Dead",
    className: "w-16 text-right sm:w-24",
    cell: (q) =>
      q.dead > 0 ? (
        <Link href={`${queueHref(q.name)}#dead`} className="focus-visible:outline-2 focus-visible:outline-sky-500" aria-label={`${q.dead} dead letters in ${q.name}`}>
          <Num value={q.dead} tone="bad" />
        </Link>
      ) : (
        <Num value={0} />
      ),
  },
];

/** /queues: every queue's depths, kept live by `queues` frames (the provider patches the list). */
export function QueuesView() {
  const [sp, setParams] = useQueryState();
  const q = sp.get("q") ?? "";
  const deadOnly = sp.get("dead") === "1";
  const [search, setSearch] = useDebouncedParam(q, (v) => setParams({ q: v }));
  const { data, error, isPending, refetch } = useQuery(queries.queues());

  const all = data?.queues ?? [];
  const rows = useMemo(() => {
    const needle = q.toLowerCase();
    return all.filter((x) => (!deadOnly || x.dead > 0) && (needle === "" || x.name.toLowerCase().includes(needle)));
  }, [all, q, deadOnly]);

  const totals = useMemo(() => {
    const t = { pending: 0, processing: 0, overdue: 0, dead: 0, deadQueues: 0 };
    for (const x of all) {
      t.pending += x.pending.total;
      t.processing += x.processing;
      t.overdue += x.overdue;
      t.dead += x.dead;
      if (x.dead > 0) t.deadQueues += 1;
    }
    return t;
  }, [all]);

  return (
    <>
      <PageHeader title="Queues" description="Depths by priority, tasks in flight, scheduled retries and dead letters, live." />
      {isPending ? (
        <LoadingState label="Loading queues…" />
      ) : error ? (
        <ErrorState error={error} onRetry={() => void refetch()} />
      ) : all.length === 0 ? (
        <EmptyState title="No queues yet">A queue appears here as soon as a task is pushed to it (for example from an automation&apos;s page).</EmptyState>
      ) : (
        <>
          {totals.dead > 0 && (
            <div role="status" className="mb-4 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
              <span aria-hidden>⚠ </span>
              <strong>
                {formatNumber(totals.dead)} dead letter{totals.dead === 1 ? "" : "s"}
              </strong>{" "}
              in {totals.deadQueues} queue
              {totals.deadQueues === 1 ? "" : "s"}: tasks that failed every attempt and wait for someone to requeue or delete them.
            </div>
          )}
          <dl className="mb-4 grid grid-cols-4 gap-1.5 sm:gap-2">
            <Stat compact label="Pending" value={totals.pending} />
            <Stat compact label="In flight" value={totals.processing} />
            <Stat compact label="Stuck" value={totals.overdue} tone="warn" />
            <Stat compact label="Dead" value={totals.dead} tone="bad" />
          </dl>
          <div className="mb-3 flex flex-wrap items-center gap-3">
            <label className="flex w-full items-center gap-2 text-sm sm:w-auto">
              <span className="shrink-0">Search</span>
              <input type="search" className="field w-full sm:w-64" placeholder="queue name" value={search} onChange={(e) => setSearch(e.target.value)} />
            </label>
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" className="size-4 accent-slate-800" checked={deadOnly} onChange={(e) => setParams({ dead: e.target.checked })} />
              Only queues with dead letters
            </label>
            <span className="ml-auto text-sm text-slate-500 dark:text-slate-400">
              {rows.length === all.length
                ? `${formatNumber(all.length)} queue${all.length === 1 ? "" : "s"}`
                : `${formatNumber(rows.length)} of ${formatNumber(all.length)} queues`}
            </span>
          </div>
          <DataTable
            rows={rows}
            columns={columns}
            rowKey={(x) => x.name}
            caption="Queues"
            minWidth="22rem"
            rowClassName={(x) => (x.dead > 0 ? "bg-red-50/40 dark:bg-red-950/20" : "")}
            empty={
              <EmptyState title="No queue matches" className="m-4">
                Clear the search or the dead-letter filter.
              </EmptyState>
            }
          />
        </>
      )}
    </>
  );
}
