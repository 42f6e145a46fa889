"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import type { Automation, Queue, WorkerStatus } from "@fleet/schema";

import { BusEventItem } from "@/components/bus-event-item";
import { ErrorGroupsList } from "@/components/error-groups";
import { HistoryCharts } from "@/components/history-charts";
import { PageHeader } from "@/components/page-header";
import { EmptyState, ErrorState, LoadingState } from "@/components/states";
import { formatBytes, formatMs, formatNumber } from "@/lib/format";
import { useBusEvents } from "@/lib/live";
import { queries } from "@/lib/query";

const STATUSES: WorkerStatus[] = ["running", "idle", "error", "offline"];

/** One box of the overview: a heading, and where the whole list is ("All queues"). */
function Section({ id, title, more, children }: { id: string; title: string; more?: { href: string; label: string }; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="card min-w-0">
      <div className="mb-3 flex items-center justify-between gap-2">
        <h2 id={id} className="text-base font-semibold">
          {title}
        </h2>
        {more && (
          <Link className="link text-sm" href={more.href}>
            {more.label}
          </Link>
        )}
      </div>
      {children}
    </section>
  );
}

type Tone = "bad" | "warn";
const TONE_COLOR: Record<Tone, string> = { bad: "text-red-700 dark:text-red-400", warn: "text-amber-700 dark:text-amber-400" };
/** The small capitals over a tile's figure. */
const TILE_LABEL = "text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400";

/** A tile's figure, large; "…" while it loads. */
function TileFigure({ pending, tone, children }: { pending: boolean; tone?: Tone; children: ReactNode }) {
  return <div className={`mt-1 text-2xl font-semibold tabular-nums ${tone ? TONE_COLOR[tone] : ""}`}>{pending ? "…" : children}</div>;
}

/** A tile of one figure, a link to where it comes from. */
function Stat({ label, value, pending, tone, href }: { label: string; value: number; pending: boolean; tone?: Tone; href: string }) {
  return (
    <Link href={href} className="card block hover:border-slate-400 focus-visible:outline-2 focus-visible:outline-sky-500 dark:hover:border-slate-600">
      <div className={TILE_LABEL}>{label}</div>
      <TileFigure pending={pending} tone={tone}>
        {formatNumber(value)}
      </TileFigure>
    </Link>
  );
}

/**
 * The "Errors / offline" tile: both counts, each a link to the workers list filtered to it,
 * and the first workers in trouble (errors first), each a link to its page.
 */
function TroubleStat({ error, offline, pending }: { error: number; offline: number; pending: boolean }) {
  const failing = useQuery({ ...queries.workersPage({ status: "error", limit: 2, offset: 0 }), enabled: error > 0 });
  const gone = useQuery({ ...queries.workersPage({ status: "offline", limit: 2, offset: 0 }), enabled: offline > 0 && error < 2 });
  const workers = [...(error > 0 ? (failing.data?.workers ?? []) : []), ...(offline > 0 && error < 2 ? (gone.data?.workers ?? []) : [])].slice(0, 2);
  const more = error + offline - workers.length;
  return (
    <section aria-labelledby="ov-trouble" className="card min-w-0" data-testid="trouble-tile">
      <h2 id="ov-trouble" className={TILE_LABEL}>
        Errors / offline
      </h2>
      <TileFigure pending={pending} tone={error > 0 ? "bad" : offline > 0 ? "warn" : undefined}>
        {formatNumber(error)} / {formatNumber(offline)}
      </TileFigure>
      {!pending && (
        <p className="mt-1 flex flex-wrap gap-x-3 text-sm">
          <Link className="link" href="/workers?status=error">
            {formatNumber(error)} in error
          </Link>
          <Link className="link" href="/workers?status=offline">
            {formatNumber(offline)} offline
          </Link>
        </p>
      )}
      {workers.length > 0 && (
        <ul aria-label="Workers in trouble" className="mt-1 text-xs">
          {workers.map((w) => (
            <li key={`${w.automation_type}\u0000${w.worker_id}`} className="truncate">
              <Link className="link font-mono" href={`/workers/${encodeURIComponent(w.automation_type)}/${encodeURIComponent(w.worker_id)}`} title={w.last_error ?? w.status}>
                {w.worker_id}
              </Link>{" "}
              <span className="text-slate-600 dark:text-slate-400">{w.status}</span>
            </li>
          ))}
          {more > 0 && <li className="text-slate-600 dark:text-slate-400">and {formatNumber(more)} more</li>}
        </ul>
      )}
    </section>
  );
}

function workerTotals(list: readonly Automation[]) {
  const t = { total: 0, running: 0, idle: 0, error: 0, offline: 0 };
  for (const a of list) {
    t.total += a.workers.total;
    for (const s of STATUSES) t[s] += a.workers[s];
  }
  return t;
}

function WorkersByAutomation({ automations }: { automations: readonly Automation[] }) {
  if (automations.length === 0) return <EmptyState title="No automations yet">Workers appear here once they register.</EmptyState>;
  return (
    <div className="-mx-4 overflow-x-auto px-4">
      <table className="w-full text-sm">
        <caption className="sr-only">Workers by automation and status</caption>
        <thead className="text-left text-xs text-slate-500 uppercase dark:text-slate-400">
          <tr>
            <th scope="col" className="py-1 pr-2 font-medium">
              Automation
            </th>
            <th scope="col" className="px-1 py-1 text-right text-[11px] font-medium sm:px-2 sm:text-xs">
              Total
            </th>
            {STATUSES.map((s) => (
              <th key={s} scope="col" className="px-1 py-1 text-right text-[11px] font-medium sm:px-2 sm:text-xs">
                {s}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {automations.map((a) => (
            <tr key={a.automation_type} className="border-t border-slate-200 dark:border-slate-800">
              <th scope="row" className="max-w-[8rem] truncate py-2 pr-2 text-left font-medium sm:max-w-[12rem]">
                <Link className="link" href={`/automations/${encodeURIComponent(a.automation_type)}`}>
                  {a.automation_type}
                </Link>
              </th>
              <td className="px-1 text-right tabular-nums sm:px-2">
                <Link className="link" href={`/workers?type=${encodeURIComponent(a.automation_type)}`}>
                  {formatNumber(a.workers.total)}
                </Link>
              </td>
              {STATUSES.map((s) => (
                <td key={s} className="px-1 text-right tabular-nums sm:px-2">
                  {a.workers[s] === 0 ? (
                    <span className="text-slate-500 dark:text-slate-400">0</span>
                  ) : (
                    <Link
                      href={`/workers?type=${encodeURIComponent(a.automation_type)}&status=${s}`}
                      aria-label={`${a.workers[s]} ${s} ${a.automation_type} workers`}
                      className={`rounded px-1 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500 ${
                        s === "error" ? "font-semibold text-red-700 dark:text-red-400" : s === "offline" ? "text-slate-600 italic dark:text-slate-400" : ""
                      }`}
                    >
                      {formatNumber(a.workers[s])}
                    </Link>
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Queues({ queues }: { queues: readonly Queue[] }) {
  if (queues.length === 0) return <EmptyState title="No queues">A queue appears when a task is first pushed.</EmptyState>;
  return (
    <ul className="divide-y divide-slate-200 dark:divide-slate-800">
      {queues.map((q) => (
        <li key={q.name} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2 text-sm">
          <Link className="link min-w-0 truncate font-medium" href={`/queues/${encodeURIComponent(q.name)}`}>
            {q.name}
          </Link>
          <span className="tabular-nums text-slate-600 dark:text-slate-300" title={`high ${q.pending.high}, normal ${q.pending.normal}, low ${q.pending.low}`}>
            {formatNumber(q.pending.total)} pending
          </span>
          <span className="tabular-nums text-slate-600 dark:text-slate-300">{formatNumber(q.processing)} in flight</span>
          {q.overdue > 0 && <span className="font-medium text-amber-700 tabular-nums dark:text-amber-400">{formatNumber(q.overdue)} overdue</span>}
          <span className="tabular-nums text-slate-600 dark:text-slate-300">{formatNumber(q.scheduled)} scheduled</span>
          {q.dead > 0 ? (
            <Link
              href={`/queues/${encodeURIComponent(q.name)}#dead`}
              className="ml-auto rounded-full bg-red-100 px-2 py-0.5 text-xs font-semibold text-red-800 tabular-nums ring-1 ring-red-600/30 ring-inset hover:bg-red-200 dark:bg-red-950 dark:text-red-200"
            >
              {formatNumber(q.dead)} dead letter{q.dead === 1 ? "" : "s"}
            </Link>
          ) : (
            <span className="ml-auto text-xs text-slate-500 dark:text-slate-400">no dead letters</span>
          )}
        </li>
      ))}
    </ul>
  );
}

function Pools() {
  const pools = useQuery(queries.pools());
  if (pools.isPending) return <LoadingState />;
  if (pools.isError) return <ErrorState error={pools.error} onRetry={() => void pools.refetch()} />;
  if (pools.data.pools.length === 0) return <EmptyState title="No pools" />;
  return (
    <ul className="divide-y divide-slate-200 dark:divide-slate-800">
      {pools.data.pools.map((p) => (
        <li key={p.name} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2 text-sm">
          <Link className="link min-w-0 truncate font-medium" href={`/pools/${encodeURIComponent(p.name)}`}>
            {p.name}
          </Link>
          <span className="tabular-nums">{formatNumber(p.live)} live</span>
          <span className="tabular-nums">{formatNumber(p.claimed)} claimed</span>
          {p.expired > 0 && <span className="text-amber-700 tabular-nums dark:text-amber-400">{formatNumber(p.expired)} expired</span>}
          <span className="ml-auto text-xs text-slate-500 tabular-nums dark:text-slate-400">{formatNumber(p.size)} items</span>
        </li>
      ))}
    </ul>
  );
}

function RedisHealth() {
  const health = useQuery(queries.health());
  if (health.isPending) return <LoadingState />;
  if (health.isError)
    return (
      <p role="alert" data-testid="backend-status" className="text-sm text-red-700 dark:text-red-400">
        Unavailable: {health.error.message}
      </p>
    );
  const h = health.data;
  const memory = h.backend === "memory";
  return (
    <div className="text-sm">
      <p data-testid="backend-status" className="font-medium text-emerald-700 dark:text-emerald-400">
        {memory ? "Connected: in-memory demo backend" : `Connected: redis ${h.redis.version}, ${formatMs(h.redis.latency_ms)}`}
      </p>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        <dt className="text-slate-500 dark:text-slate-400">Round trip</dt>
        <dd className="tabular-nums">{formatMs(h.redis.latency_ms)}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Memory used</dt>
        <dd className="tabular-nums">{memory ? "n/a (in-memory)" : formatBytes(h.redis.used_memory_bytes)}</dd>
        <dt className="text-slate-500 dark:text-slate-400">AOF</dt>
        <dd>{memory ? "n/a (in-memory)" : h.redis.aof_enabled === null ? "unknown" : h.redis.aof_enabled ? "on" : "off"}</dd>
      </dl>
      {!memory && h.redis.aof_enabled === false && (
        <p
          role="note"
          data-testid="aof-warning"
          className="mt-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-100"
        >
          <strong>AOF is off.</strong> Fleet expects <code className="font-mono">appendonly yes</code>: a Redis restart would lose queued tasks, claims and config written since the
          last snapshot.
        </p>
      )}
    </div>
  );
}

function LatestEvents() {
  const events = useBusEvents();
  // Eight rows keep this column about as tall as the one beside it.
  const latest = events.slice(-8).reverse();
  if (latest.length === 0)
    return (
      <EmptyState title="No bus messages yet">
        Messages published on <code className="font-mono">event:*</code> appear here as they arrive.
      </EmptyState>
    );
  return (
    <ul aria-label="Latest bus events" className="-mx-4 -mb-4 max-h-96 overflow-y-auto">
      {latest.map((e) => (
        <BusEventItem key={e.seq} event={e} />
      ))}
    </ul>
  );
}

export function Overview() {
  const automations = useQuery(queries.automations());
  const queues = useQuery(queries.queues());
  const list = automations.data?.automations ?? [];
  const totals = workerTotals(list);
  const qs = queues.data?.queues ?? [];
  const pending = qs.reduce((n, q) => n + q.pending.total, 0);
  const dead = qs.reduce((n, q) => n + q.dead, 0);
  const overdue = qs.reduce((n, q) => n + q.overdue, 0);

  return (
    <>
      <PageHeader title="Fleet Console" description="Overview of the fleet: workers, queues, pools and Redis, updated live." />

      <div className="mb-6 grid grid-cols-2 gap-3 md:grid-cols-4">
        <Stat label="Workers" value={totals.total} pending={automations.isPending} href="/workers" />
        <TroubleStat error={totals.error} offline={totals.offline} pending={automations.isPending} />
        <Stat label="Pending tasks" value={pending} pending={queues.isPending} tone={overdue > 0 ? "warn" : undefined} href="/queues" />
        <Stat label="Dead letters" value={dead} pending={queues.isPending} tone={dead > 0 ? "bad" : undefined} href="/queues" />
      </div>

      <HistoryCharts queue={null} variant="strip" className="mb-6" />

      <div className="grid gap-4 lg:grid-cols-3">
        <div className="grid min-w-0 content-start gap-4 lg:col-span-2">
          <Section id="ov-workers" title="Workers by automation" more={{ href: "/workers", label: "All workers" }}>
            {automations.isPending ? (
              <LoadingState />
            ) : automations.isError ? (
              <ErrorState error={automations.error} onRetry={() => void automations.refetch()} />
            ) : (
              <WorkersByAutomation automations={list} />
            )}
          </Section>
          <Section id="ov-queues" title="Queues" more={{ href: "/queues", label: "All queues" }}>
            {queues.isPending ? <LoadingState /> : queues.isError ? <ErrorState error={queues.error} onRetry={() => void queues.refetch()} /> : <Queues queues={qs} />}
          </Section>
          <Section id="ov-errors" title="Top error groups" more={{ href: "/errors", label: "All error groups" }}>
            <ErrorGroupsList queue={null} limit={5} />
          </Section>
          <Section id="ov-pools" title="Pools" more={{ href: "/pools", label: "All pools" }}>
            <Pools />
          </Section>
        </div>
        <div className="grid min-w-0 content-start gap-4">
          <Section id="ov-redis" title="Redis">
            <RedisHealth />
          </Section>
          <Section id="ov-events" title="Latest bus events" more={{ href: "/events", label: "All events" }}>
            <LatestEvents />
          </Section>
        </div>
      </div>
    </>
  );
}
