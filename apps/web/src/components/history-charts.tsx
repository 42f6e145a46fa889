"use client";
// Queue history (issue 15.1): what the console's watch recorded every 10 s, over 1 h, 24 h
// or 30 days. `queue` null is the whole fleet (the overview's strip). The figures are written
// by one console process and read here like any other API answer, refreshed every 10 s.
import type { History, HistoryRangeName } from "@fleet/schema";
import { useQuery } from "@tanstack/react-query";
import { useId, useMemo, useState, type ReactNode } from "react";

import { formatAge, formatDuration, formatNumber } from "@/lib/format";
import { queries } from "@/lib/query";

import { ErrorState, LoadingState } from "./states";
import { TimeSeriesChart } from "./time-series-chart";

const RANGES: Array<{ id: HistoryRangeName; label: string; long: string }> = [
  { id: "1h", label: "1 h", long: "the last hour" },
  { id: "24h", label: "24 h", long: "the last 24 hours" },
  { id: "30d", label: "30 d", long: "the last 30 days" },
];

function RangePicker({ value, onChange, label }: { value: HistoryRangeName; onChange: (r: HistoryRangeName) => void; label: string }) {
  return (
    <div role="group" aria-label={label} className="inline-flex overflow-hidden rounded-md border border-slate-300 text-sm dark:border-slate-700">
      {RANGES.map((r) => (
        <button
          key={r.id}
          type="button"
          aria-pressed={value === r.id}
          onClick={() => onChange(r.id)}
          className={`px-2.5 py-1 focus-visible:outline-2 focus-visible:outline-sky-500 ${
            value === r.id
              ? "bg-slate-800 font-medium text-white dark:bg-slate-200 dark:text-slate-900"
              : "bg-white text-slate-700 hover:bg-slate-100 dark:bg-slate-900 dark:text-slate-300 dark:hover:bg-slate-800"
          }`}
        >
          {r.label}
        </button>
      ))}
    </div>
  );
}

const seconds = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? "—" : formatAge(v));

const sum = (...cols: Array<ReadonlyArray<number | null>>) => cols[0]!.map((_, i) => (cols.every((c) => c[i] === null) ? null : cols.reduce((s, c) => s + (c[i] ?? 0), 0)));

/** "Drains in ~12 min at the current rate", from the latest figures the watch wrote. */
export function drainText(h: History, pending: number | null): string {
  const l = h.latest;
  if (!l) return "Not known yet: the console records a point every 10 s.";
  if (pending === 0) return "Nothing pending.";
  if (l.drain_seconds !== null) return `Drains in ~${formatDuration(l.drain_seconds)} at the current rate.`;
  return "Not draining at the current rate (the backlog is not falling), or too few points to say.";
}

export function HistoryCharts({
  queue,
  variant = "full",
  pending = null,
  className = "mt-6",
}: {
  queue: string | null;
  variant?: "full" | "strip";
  /** The queue's pending tasks now (the drain sentence says "nothing pending" at 0). */
  pending?: number | null;
  className?: string;
}) {
  const [range, setRange] = useState<HistoryRangeName>("1h");
  const q = useQuery(queries.history(queue, range));
  const headingId = useId();
  const h = q.data;
  const recorded = useMemo(() => (h ? h.points.ts.filter((_, i) => h.points.dead[i] !== null).length : 0), [h]);
  const rangeLong = RANGES.find((r) => r.id === range)!.long;
  const sync = `history:${queue ?? "*fleet*"}:${range}`;

  const title = variant === "strip" ? "Queue history (all queues)" : "History";
  const picker = <RangePicker value={range} onChange={setRange} label={`Range of the ${queue === null ? "fleet's" : "queue's"} history`} />;

  let body: ReactNode;
  if (q.isPending) body = <LoadingState label="Loading the history…" />;
  else if (q.isError) body = <ErrorState error={q.error} title="The history cannot be read right now" onRetry={() => void q.refetch()} />;
  else if (!h || recorded === 0)
    body = (
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="history-empty">
        Nothing recorded over {rangeLong} yet. The console records every queue every 10 seconds (one console process does it, whichever leads); the first points appear within a
        minute.
      </p>
    );
  else {
    const p = h.points;
    const atLeast = p.finished_at_least.some((x) => x === true);
    const latest = h.latest;
    const facts =
      queue === null ? null : (
        <dl className="mb-3 grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-3" data-testid="history-facts">
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">Drain</dt>
            <dd data-testid="drain-text">{drainText(h, pending)}</dd>
          </div>
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">Throughput</dt>
            <dd>
              {latest?.finished_per_minute === null || latest?.finished_per_minute === undefined
                ? "—"
                : `${latest.at_least ? "at least " : ""}${formatNumber(Math.round(latest.finished_per_minute * 10) / 10)} tasks finished per minute`}
            </dd>
          </div>
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">Oldest pending</dt>
            <dd>
              {latest?.oldest_pending_age_seconds === null || latest?.oldest_pending_age_seconds === undefined
                ? "—"
                : `waiting at least ${formatAge(latest.oldest_pending_age_seconds)}`}
            </dd>
          </div>
        </dl>
      );
    body =
      variant === "strip" ? (
        <div className="grid gap-4 md:grid-cols-2" data-testid="history-charts" data-range={range}>
          <TimeSeriesChart testId="history-chart" title="Pending tasks" times={p.ts} values={sum(p.pending_high, p.pending_normal, p.pending_low)} height={120} syncKey={sync} />
          <TimeSeriesChart testId="history-chart" title="Finished per minute" times={p.ts} values={p.finished_per_minute} colorIndex={1} height={120} syncKey={sync} />
        </div>
      ) : (
        <>
          {facts}
          <div className="grid gap-6 lg:grid-cols-2" data-testid="history-charts" data-range={range}>
            <TimeSeriesChart
              testId="history-chart"
              title="Depth by state"
              times={p.ts}
              syncKey={sync}
              height={200}
              series={[
                { label: "high", values: p.pending_high, colorIndex: 3 },
                { label: "normal", values: p.pending_normal, colorIndex: 0 },
                { label: "low", values: p.pending_low, colorIndex: 5 },
                { label: "in flight", values: p.processing, colorIndex: 1 },
                { label: "scheduled", values: p.scheduled, colorIndex: 6 },
                { label: "overdue", values: p.overdue, colorIndex: 2 },
                { label: "dead", values: p.dead, colorIndex: 4 },
              ]}
            />
            <TimeSeriesChart
              testId="history-chart"
              title={atLeast ? "Finished per minute (at least)" : "Finished per minute"}
              times={p.ts}
              values={p.finished_per_minute}
              colorIndex={1}
              syncKey={sync}
            />
            <TimeSeriesChart testId="history-chart" title="Oldest pending wait" times={p.ts} values={p.oldest_pending_age_seconds} colorIndex={2} syncKey={sync} format={seconds} />
          </div>
          <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
            One point per {formatDuration(h.step_seconds)} over {rangeLong}. Finished counts reservations that ended (acked, failed or retried), measured from what left the pending
            lists; &quot;at least&quot; where tasks came and went between two looks. The oldest wait is measured from when the console first saw a task.
          </p>
        </>
      );
  }

  return (
    <section aria-labelledby={headingId} className={`card min-w-0 ${className}`} data-testid={variant === "strip" ? "fleet-history" : "queue-history"}>
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <h2 id={headingId} className="text-base font-semibold">
          {title}
        </h2>
        {picker}
      </div>
      {body}
    </section>
  );
}
