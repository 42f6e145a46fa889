"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useState, type ReactNode } from "react";
import { DeletedSchema, type WorkerDetail } from "@fleet/schema";

import { ConfigEditor } from "@/components/config-editor";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { CopyButton } from "@/components/copy-button";
import { CorruptBadge } from "@/components/corrupt-badge";
import { JsonView } from "@/components/json-view";
import { PageHeader } from "@/components/page-header";
import { RelativeTime } from "@/components/relative-time";
import { EmptyState, ErrorState, LoadingState } from "@/components/states";
import { StatusBadge } from "@/components/status-badge";
import { TimeSeriesChart } from "@/components/time-series-chart";
import { DangerAction, DangerZone } from "@/components/ui-bits";
import { ApiError, apiDelete, errorMessage, seg } from "@/lib/api";

import { ErrorHistory } from "./error-history";
import { PauseControl, PauseOutcomeNote, isPaused, type PauseOutcome } from "./pause-control";
import { absoluteTime, formatBytes, formatDuration, formatNumber } from "@/lib/format";
import { hardwareLabel, statLabel, type KeyLabel } from "@/lib/labels";
import { queries, queryKeys, workerHostname } from "@/lib/query";
import { Can, useSession } from "@/lib/session";

const HISTORY_CHOICES = [60, 240, 1000] as const;

function Card({ title, children, className, id }: { title: string; children: ReactNode; className?: string; id: string }) {
  return (
    <section aria-labelledby={id} className={`card min-w-0 ${className ?? ""}`}>
      <h2 id={id} className="mb-3 text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** A summary fact: a plain label, the value, and a line saying what it is (with its raw name). */
function Fact({ label, children, hint, raw }: { label: string; children: ReactNode; hint?: string; raw?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">{label}</dt>
      <dd className="mt-1 truncate text-sm">{children}</dd>
      {(hint || raw) && (
        <dd className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">
          {hint}
          {raw && <code className="ml-1 font-mono text-[0.6875rem]">{raw}</code>}
        </dd>
      )}
    </div>
  );
}

/** Readable values for well-known hardware and stats fields; JSON for the rest. */
function FieldValue({ name, value }: { name: string; value: unknown }) {
  if (value === null || value === undefined) return <span className="text-slate-500 dark:text-slate-400">—</span>;
  if (typeof value === "number") {
    if (/(^|_)(at|ts)$/.test(name) && value > 1e9) return <RelativeTime at={value} />;
    if (name === "memory" || name.endsWith("_bytes"))
      return (
        <span className="tabular-nums" title={`${value} bytes`}>
          {formatBytes(value)}
        </span>
      );
    if (name.endsWith("_s") && name !== "cpu_s")
      return (
        <span className="tabular-nums" title={`${value} s`}>
          {formatDuration(value)}
        </span>
      );
    // Identifiers read better without digit grouping.
    if (name === "pid" || name === "port" || name.endsWith("_id")) return <span className="tabular-nums">{value}</span>;
    return <span className="tabular-nums">{formatNumber(value)}</span>;
  }
  if (typeof value === "string") return <span className="break-words">{value}</span>;
  if (typeof value === "boolean") return <span>{value ? "yes" : "no"}</span>;
  return <JsonView value={value} expandDepth={1} />;
}

function FieldList({
  obj,
  empty,
  wide = false,
  labelOf,
}: {
  obj: Record<string, unknown> | null;
  empty: string;
  wide?: boolean;
  /** The plain name (and explanation) of a key; the raw key shows under it. */
  labelOf: (key: string) => KeyLabel;
}) {
  if (!obj || Object.keys(obj).length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">{empty}</p>;
  // `wide`: two label/value pairs a row where there is room, so a long list (stats) does not
  // tower over its neighbour (hardware).
  return (
    <dl className={`grid grid-cols-[minmax(7.5rem,auto)_1fr] gap-x-4 gap-y-2 text-sm ${wide ? "sm:grid-cols-[minmax(7.5rem,auto)_1fr_minmax(7.5rem,auto)_1fr]" : ""}`}>
      {Object.entries(obj).map(([k, v]) => {
        const l = labelOf(k);
        return (
          <div key={k} className="contents">
            <dt className="min-w-0 text-xs" title={l.hint ? `${l.hint} (${k})` : k}>
              <span className="block text-slate-700 dark:text-slate-300">{l.label}</span>
              {l.label !== k && <code className="block truncate font-mono text-[0.6875rem] text-slate-500 dark:text-slate-400">{k}</code>}
            </dt>
            <dd className="min-w-0">
              <FieldValue name={k} value={v} />
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

function StatsHistory({ type, id }: { type: string; id: string }) {
  const [limit, setLimit] = useState<number>(240);
  const stats = useQuery({ ...queries.workerStats(type, id, limit), placeholderData: (prev) => prev });

  const series = useMemo(() => {
    const frames = stats.data?.frames ?? [];
    const times = frames.map((f) => f.ts);
    const fields: string[] = [];
    const seen = new Set<string>();
    for (const f of frames) {
      if (!f.frame) continue;
      for (const [k, v] of Object.entries(f.frame)) {
        // `ts` is the time axis itself.
        if (k === "ts" || seen.has(k) || typeof v !== "number") continue;
        seen.add(k);
        fields.push(k);
      }
    }
    return {
      times,
      corrupt: frames.filter((f) => f.frame === null).length,
      charts: fields.map((name) => ({
        name,
        values: frames.map((f) => {
          const v = f.frame?.[name];
          return typeof v === "number" && Number.isFinite(v) ? v : null;
        }),
      })),
    };
  }, [stats.data]);

  return (
    <section aria-labelledby="wk-history" className="card min-w-0">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <h2 id="wk-history" className="text-base font-semibold">
          Stats history
        </h2>
        <div className="flex items-center gap-2 text-sm">
          <label htmlFor="wk-history-limit" className="text-slate-600 dark:text-slate-400">
            Reports shown
          </label>
          <select id="wk-history-limit" className="field py-1" value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
            {HISTORY_CHOICES.map((n) => (
              <option key={n} value={n}>
                last {n}
              </option>
            ))}
          </select>
        </div>
      </div>
      {stats.isPending ? (
        <LoadingState label="Loading stats history…" />
      ) : stats.isError ? (
        <ErrorState error={stats.error} onRetry={() => void stats.refetch()} />
      ) : series.times.length === 0 ? (
        <EmptyState title="No stats history yet">The worker records a frame each time it reports stats.</EmptyState>
      ) : series.charts.length === 0 ? (
        <EmptyState title="No numeric fields in the stats frames" />
      ) : (
        <>
          <p className="mb-3 text-xs text-slate-500 dark:text-slate-400">
            {formatNumber(series.times.length)} reports (stats frames) from <RelativeTime at={series.times[0]} /> to <RelativeTime at={series.times.at(-1)} />. Hover a chart for
            values; drag to zoom, double-click to reset.
            {series.corrupt > 0 && <CorruptBadge className="ml-2" label={`${series.corrupt} frame${series.corrupt === 1 ? "" : "s"} did not parse`} />}
          </p>
          <div className="grid gap-6 md:grid-cols-2 xl:grid-cols-3">
            {series.charts.map((c, i) => {
              const l = statLabel(c.name);
              return (
                <TimeSeriesChart key={c.name} title={l.label} rawKey={c.name} hint={l.hint} times={series.times} values={c.values} colorIndex={i} syncKey={`stats:${type}:${id}`} />
              );
            })}
          </div>
        </>
      )}
    </section>
  );
}

export function WorkerDetailView({ automationType, workerId }: { automationType: string; workerId: string }) {
  const router = useRouter();
  const client = useQueryClient();
  const worker = useQuery(queries.worker(automationType, workerId));
  const [confirming, setConfirming] = useState(false);
  const [pauseOutcome, setPauseOutcome] = useState<PauseOutcome | null>(null);
  const canEdit = useSession().can("admin");

  const remove = useMutation({
    mutationFn: () => apiDelete(`/workers/${seg(automationType)}/${seg(workerId)}`, DeletedSchema),
    onSuccess: () => {
      setConfirming(false);
      client.removeQueries({ queryKey: queryKeys.workers.detail(automationType, workerId) });
      void client.invalidateQueries({ queryKey: queryKeys.workers.all });
      void client.invalidateQueries({ queryKey: queryKeys.automations.all });
      router.push(`/workers?type=${encodeURIComponent(automationType)}`);
    },
  });

  const crumbs = [
    { href: "/workers", label: "Workers" },
    { href: `/workers?type=${encodeURIComponent(automationType)}`, label: automationType },
  ];

  if (worker.isPending) {
    return (
      <>
        <PageHeader title={<span className="font-mono">{workerId}</span>} breadcrumbs={crumbs} />
        <LoadingState label="Loading the worker…" />
      </>
    );
  }
  if (worker.isError) {
    const notFound = worker.error instanceof ApiError && worker.error.status === 404;
    return (
      <>
        <PageHeader title={<span className="font-mono">{workerId}</span>} breadcrumbs={crumbs} />
        <ErrorState error={worker.error} title={notFound ? "This worker does not exist (any more)" : undefined} onRetry={notFound ? undefined : () => void worker.refetch()} />
        <p className="mt-4 text-sm">
          <Link className="link" href={`/workers?type=${encodeURIComponent(automationType)}`}>
            Back to the workers of {automationType}
          </Link>
        </p>
      </>
    );
  }

  const w: WorkerDetail = worker.data;
  const host = workerHostname(w);
  return (
    <>
      <PageHeader
        breadcrumbs={crumbs}
        title={<span className="font-mono break-all">{w.worker_id}</span>}
        description={
          <>
            {w.automation_type}
            {host ? ` on ${host}` : ""}
          </>
        }
        actions={
          <>
            {isPaused(w) && (
              <span className="rounded-full bg-amber-100 px-2.5 py-0.5 text-sm font-medium text-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="paused-badge">
                Paused (slots 0)
              </span>
            )}
            <Can role="admin">
              <PauseControl worker={w} onDone={setPauseOutcome} />
            </Can>
            {/* The config form sits below the charts: one jump to it (its heading stays clear of the sticky header). */}
            <a href="#config" className="btn-primary">
              {canEdit ? "Edit config" : "View config"}
            </a>
          </>
        }
      />

      <PauseOutcomeNote worker={w} outcome={pauseOutcome} />
      <div className="grid gap-4">
        <section aria-label="Summary" className="card">
          <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-6">
            <Fact label="Status">
              <StatusBadge status={w.status} />
            </Fact>
            <Fact label="State">{w.state ?? <span className="text-slate-500 dark:text-slate-400">—</span>}</Fact>
            <Fact label="Last seen">{w.last_seen === null ? <span className="text-amber-700 dark:text-amber-400">unknown</span> : <RelativeTime at={w.last_seen} />}</Fact>
            <Fact label="Config version" hint="Goes up by one on every save." raw="config_gen">
              <span className="tabular-nums">{w.config_gen ?? "—"}</span>
            </Fact>
            <Fact label="Stats reports kept" hint="History behind the charts." raw="history_len">
              <span className="tabular-nums">{formatNumber(w.history_len)}</span>
            </Fact>
            <Fact label="Started">{typeof w.hardware?.started_at === "number" ? <RelativeTime at={w.hardware.started_at} /> : "—"}</Fact>
          </dl>
          {w.corrupt && w.corrupt.length > 0 && (
            <p className="mt-3 text-sm">
              <CorruptBadge fields={w.corrupt} /> <span className="text-slate-600 dark:text-slate-400">These fields hold values that did not parse; they show as empty.</span>
            </p>
          )}
          {w.status === "offline" && (
            <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">Offline: no heartbeat since {w.last_seen === null ? "an unknown time" : absoluteTime(w.last_seen)}.</p>
          )}
        </section>

        {w.last_error !== null && (
          <section aria-labelledby="wk-error" className="rounded-lg border border-red-300 bg-red-50 p-4 dark:border-red-900 dark:bg-red-950/40">
            <div className="mb-2 flex items-center justify-between gap-2">
              <h2 id="wk-error" className="text-base font-semibold text-red-900 dark:text-red-200">
                Last error
                {w.last_error_since != null && " "}
                {w.last_error_since != null && (
                  <span className="ml-2 text-sm font-normal text-red-900 dark:text-red-200">
                    since <RelativeTime at={w.last_error_since} />
                  </span>
                )}
              </h2>
              <CopyButton text={w.last_error} label="Copy error" className="text-xs" />
            </div>
            <pre data-testid="last-error" className="max-h-64 overflow-auto font-mono text-xs break-all whitespace-pre-wrap text-red-950 dark:text-red-100">
              {w.last_error}
            </pre>
          </section>
        )}

        <ErrorHistory type={w.automation_type} id={w.worker_id} />

        <div className="grid items-start gap-4 lg:grid-cols-2">
          <Card id="wk-hardware" title="Hardware">
            <FieldList obj={w.hardware} empty="The worker reported no hardware." labelOf={hardwareLabel} />
          </Card>
          <Card id="wk-stats" title="Latest stats">
            <FieldList obj={w.stats} empty="No stats reported yet." wide labelOf={statLabel} />
          </Card>
        </div>

        <StatsHistory type={w.automation_type} id={w.worker_id} />

        <ConfigEditor automationType={w.automation_type} workerId={w.worker_id} />
      </div>
      <Can role="admin">
        <DangerZone id="wk-danger">
          <DangerAction text="Remove this worker from Redis: its state, config, hardware, stats and history. A worker process that still runs registers again on its next heartbeat.">
            <button type="button" className="btn-danger" onClick={() => setConfirming(true)}>
              Remove worker
            </button>
          </DangerAction>
        </DangerZone>
      </Can>

      <ConfirmDialog
        open={confirming}
        title={`Remove 1 worker: ${w.worker_id}?`}
        confirmLabel="Remove 1 worker"
        busy={remove.isPending}
        error={remove.isError ? errorMessage(remove.error) : undefined}
        onCancel={() => {
          setConfirming(false);
          remove.reset();
        }}
        onConfirm={() => remove.mutate()}
      >
        <p>
          Deletes every key of this worker in Redis: its state, config (generation {w.config_gen ?? "—"}), hardware, stats and {formatNumber(w.history_len)} frames of history. A
          worker process that is still running may register again on its next heartbeat.
        </p>
      </ConfirmDialog>
    </>
  );
}
