"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import type { Worker, WorkerStatus } from "@fleet/schema";

import { CorruptBadge } from "@/components/corrupt-badge";
import { DataTable, SortHeader, type Column } from "@/components/data-table";
import { PageHeader } from "@/components/page-header";
import { RelativeTime } from "@/components/relative-time";
import { EmptyState, ErrorState, LoadingState } from "@/components/states";
import { StatusBadge } from "@/components/status-badge";
import { formatNumber } from "@/lib/format";
import { countByStatus, queries, workerHostname, workerMatches } from "@/lib/query";

const STATUSES: WorkerStatus[] = ["running", "idle", "error", "offline"];
type Sort = "name" | "seen-desc" | "seen-asc";

function isStatus(s: string | null): s is WorkerStatus {
  return s !== null && (STATUSES as string[]).includes(s);
}

function bySeen(dir: 1 | -1) {
  // Unknown last_seen (corrupt) sorts as the oldest.
  return (a: Worker, b: Worker) => dir * ((a.last_seen ?? -Infinity) - (b.last_seen ?? -Infinity)) || 0;
}

export function workerHref(w: Pick<Worker, "automation_type" | "worker_id">): string {
  return `/workers/${encodeURIComponent(w.automation_type)}/${encodeURIComponent(w.worker_id)}`;
}

export function WorkersTable() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const type = params.get("type") ?? "";
  const statusParam = params.get("status");
  const status = isStatus(statusParam) ? statusParam : null;
  const q = params.get("q") ?? "";
  const sortParam = params.get("sort");
  const sort: Sort = sortParam === "seen-desc" || sortParam === "seen-asc" ? sortParam : "name";

  const setParams = (next: Record<string, string | null>) => {
    const sp = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(next)) {
      if (v === null || v === "") sp.delete(k);
      else sp.set(k, v);
    }
    const s = sp.toString();
    router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
  };

  // The search box updates the URL a moment after typing stops.
  const [search, setSearch] = useState(q);
  useEffect(() => setSearch(q), [q]);
  useEffect(() => {
    if (search === q) return;
    const t = setTimeout(() => setParams({ q: search.trim() === "" ? null : search }), 250);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the typed text drives this
  }, [search]);

  const automations = useQuery(queries.automations());
  const all = useQuery(queries.workersEverything(type || undefined));

  const matching = useMemo(() => (all.data ? all.data.workers.filter((w) => workerMatches(w, q)) : []), [all.data, q]);
  const counts = useMemo(() => countByStatus(matching), [matching]);
  const rows = useMemo(() => {
    const filtered = status ? matching.filter((w) => w.status === status) : matching;
    if (sort === "name") return filtered;
    return [...filtered].sort(bySeen(sort === "seen-desc" ? -1 : 1));
  }, [matching, status, sort]);

  const types = useMemo(() => {
    const names = new Set((automations.data?.automations ?? []).map((a) => a.automation_type));
    if (type) names.add(type);
    return [...names].sort();
  }, [automations.data, type]);

  const columns: Column<Worker>[] = [
    {
      id: "worker",
      header: (
        <SortHeader label="Worker" active={sort === "name"} direction="asc" onClick={() => setParams({ sort: null })} />
      ),
      className: "w-[34%] sm:w-[26%]",
      cell: (w) => (
        <Link href={workerHref(w)} className="link font-mono" title={w.worker_id}>
          {w.worker_id}
        </Link>
      ),
    },
    { id: "type", header: "Automation", className: "w-[22%] sm:w-[14%]", cell: (w) => <span title={w.automation_type}>{w.automation_type}</span> },
    {
      id: "status",
      header: "Status",
      className: "w-24 sm:w-28",
      cell: (w) => (
        <span className="flex items-center gap-1">
          <StatusBadge status={w.status} />
          {w.corrupt && w.corrupt.length > 0 && <CorruptBadge label="corrupt" fields={w.corrupt} />}
        </span>
      ),
    },
    {
      id: "host",
      header: "Host",
      className: "w-[18%]",
      hideOnMobile: true,
      cell: (w) => <span className="text-slate-600 dark:text-slate-300" title={workerHostname(w) ?? ""}>{workerHostname(w) ?? "—"}</span>,
    },
    {
      id: "seen",
      header: (
        <SortHeader
          label="Last seen"
          active={sort !== "name"}
          direction={sort === "seen-asc" ? "asc" : "desc"}
          onClick={() => setParams({ sort: sort === "seen-desc" ? "seen-asc" : "seen-desc" })}
        />
      ),
      className: "w-28 sm:w-40",
      cell: (w) =>
        w.last_seen === null ? <span className="text-amber-700 dark:text-amber-400">unknown</span> : <RelativeTime at={w.last_seen} className="tabular-nums" />,
    },
    {
      id: "gen",
      header: "Config gen",
      className: "w-28 text-right",
      hideOnMobile: true,
      cell: (w) => <span className="tabular-nums">{w.config_gen ?? "—"}</span>,
    },
    {
      id: "error",
      header: "Last error",
      className: "w-[22%]",
      hideOnMobile: true,
      cell: (w) =>
        w.last_error ? (
          <span className="text-red-700 dark:text-red-400" title={w.last_error}>
            {w.last_error}
          </span>
        ) : (
          <span className="text-slate-500 dark:text-slate-400">—</span>
        ),
    },
  ];

  const total = matching.length;
  return (
    <>
      <PageHeader
        title="Workers"
        description={
          all.data ? `${formatNumber(total)} worker${total === 1 ? "" : "s"}${type ? ` of ${type}` : ""}${q ? ` matching “${q}”` : ""}, updated live.` : "Every worker, its status and when it was last seen."
        }
      />

      <div className="mb-4 flex flex-col gap-3 lg:flex-row lg:flex-wrap lg:items-end">
        <div className="flex flex-col gap-1">
          <label htmlFor="wk-type" className="text-xs font-medium text-slate-600 dark:text-slate-400">
            Automation
          </label>
          <select id="wk-type" className="field min-w-44" value={type} onChange={(e) => setParams({ type: e.target.value || null })}>
            <option value="">All automations</option>
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div className="flex min-w-0 flex-1 flex-col gap-1 lg:max-w-sm">
          <label htmlFor="wk-q" className="text-xs font-medium text-slate-600 dark:text-slate-400">
            Search by id or hostname
          </label>
          <input
            id="wk-q"
            type="search"
            className="field"
            placeholder="e.g. scraper-03 or .eu-west"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            autoComplete="off"
            spellCheck={false}
          />
        </div>
        <div role="group" aria-labelledby="wk-status-label" className="flex min-w-0 flex-col gap-1">
          <span id="wk-status-label" className="text-xs font-medium text-slate-600 dark:text-slate-400">
            Status
          </span>
          <div className="flex flex-wrap gap-1">
            <FilterChip label="All" count={total} pressed={status === null} onClick={() => setParams({ status: null })} />
            {STATUSES.map((s) => (
              <FilterChip key={s} label={s} count={counts[s]} pressed={status === s} onClick={() => setParams({ status: status === s ? null : s })} />
            ))}
          </div>
        </div>
      </div>

      {all.isPending ? (
        <LoadingState label="Loading workers…" />
      ) : all.isError ? (
        <ErrorState error={all.error} onRetry={() => void all.refetch()} />
      ) : (all.data.workers.length === 0 ? (
        <EmptyState title={type ? `No workers of ${type}` : "No workers yet"}>Workers appear here as soon as they register in Redis.</EmptyState>
      ) : (
        <DataTable
          rows={rows}
          columns={columns}
          rowKey={(w) => `${w.automation_type}\u0000${w.worker_id}`}
          caption="Workers"
          rowClassName={(w) => (w.status === "offline" ? "bg-slate-100/70 text-slate-600 dark:bg-slate-900/70 dark:text-slate-400" : w.status === "error" ? "bg-red-50/50 dark:bg-red-950/20" : "")}
          empty={<EmptyState title="No worker matches these filters" className="border-0 py-6" />}
          minWidth="22rem"
        />
      ))}
      {all.data && !all.data.complete && (
        <p role="status" className="mt-2 text-xs text-slate-500 dark:text-slate-400">
          Loading workers: {formatNumber(all.data.workers.length)} of {formatNumber(all.data.total)}…
        </p>
      )}
      {all.data?.complete && rows.length > 0 && (
        <p className="mt-2 text-xs text-slate-500 dark:text-slate-400" aria-live="polite">
          Showing {formatNumber(rows.length)} of {formatNumber(all.data.workers.length)}
          {sort !== "name" ? `, sorted by last seen (${sort === "seen-desc" ? "newest first" : "oldest first"})` : ", sorted by automation and id"}.
        </p>
      )}
    </>
  );
}

function FilterChip({ label, count, pressed, onClick }: { label: string; count: number; pressed: boolean; onClick: () => void }) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      className={`inline-flex items-center gap-1.5 rounded-full border px-3 py-1 text-sm capitalize focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 ${
        pressed
          ? "border-slate-900 bg-slate-900 text-white dark:border-slate-100 dark:bg-slate-100 dark:text-slate-900"
          : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300 dark:hover:bg-slate-800"
      }`}
    >
      {label}
      <span className="tabular-nums">{formatNumber(count)}</span>
    </button>
  );
}
