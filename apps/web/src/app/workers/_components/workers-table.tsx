"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import type { Worker, WorkerStatus, WorkersSort } from "@fleet/schema";

import { CorruptBadge } from "@/components/corrupt-badge";
import { DataTable, SortHeader, type Column } from "@/components/data-table";
import { PageHeader } from "@/components/page-header";
import { RelativeTime } from "@/components/relative-time";
import { EmptyState, ErrorState, LoadingState } from "@/components/states";
import { StatusBadge } from "@/components/status-badge";
import { errorMessage } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { queries, workerHostname } from "@/lib/query";
import { useSession } from "@/lib/session";
import { intParam, useDebouncedParam, useQueryState } from "@/lib/use-query-state";

import { BulkBar, type Selection } from "./bulk-actions";
import { LastErrorCell } from "@/components/last-error-cell";
import { Pager } from "./pager";

/** Rows per server page: one request, one render, whatever the fleet's size. */
export const PAGE_SIZE = 100;

const STATUSES: WorkerStatus[] = ["running", "idle", "error", "offline"];

const SORTS: Array<{ value: WorkersSort; label: string }> = [
  { value: "name", label: "Name" },
  { value: "-last_seen", label: "Last seen: newest" },
  { value: "last_seen", label: "Last seen: oldest" },
];

function isStatus(s: string | null): s is WorkerStatus {
  return s !== null && (STATUSES as string[]).includes(s);
}

/** The URL's `sort`; `seen-desc`/`seen-asc` are the links of the page's first version. */
function parseSort(s: string | null): WorkersSort {
  if (s === "-last_seen" || s === "seen-desc") return "-last_seen";
  if (s === "last_seen" || s === "seen-asc") return "last_seen";
  return "name";
}

export function workerHref(w: Pick<Worker, "automation_type" | "worker_id">): string {
  return `/workers/${encodeURIComponent(w.automation_type)}/${encodeURIComponent(w.worker_id)}`;
}

/**
 * The fleet, one server page at a time: the API filters, counts, sorts and pages, so
 * 10,000 workers cost the browser one page of rows. Filters, sort and page live in the
 * query string; the previous page stays on screen (dimmed) while the next one loads.
 */
export function WorkersTable() {
  const [params, setParams] = useQueryState();
  const type = params.get("type") ?? "";
  const statusParam = params.get("status");
  const status = isStatus(statusParam) ? statusParam : null;
  const q = params.get("q") ?? "";
  const errorGroup = params.get("error_group") ?? "";
  const sort = parseSort(params.get("sort"));
  const page = Math.max(1, intParam(params, "page", 1));
  const offset = (page - 1) * PAGE_SIZE;

  // Any change of filter or order starts again at the first page.
  const setFilter = (patch: Record<string, string | null>) => setParams({ ...patch, page: null });
  const [search, setSearch] = useDebouncedParam(q, (v) => setFilter({ q: v.trim() === "" ? null : v }));

  const automations = useQuery(queries.automations());
  const list = useQuery({
    ...queries.workersPage({
      type: type || undefined,
      status: status ?? undefined,
      q: q || undefined,
      error_group: errorGroup || undefined,
      sort: sort === "name" ? undefined : sort,
      limit: PAGE_SIZE,
      offset,
    }),
    placeholderData: keepPreviousData,
  });
  const data = list.data;
  const counts = data?.counts;
  const allCount = counts ? counts.running + counts.idle + counts.error + counts.offline : 0;
  const total = data?.total ?? 0;

  // A page emptied by a filter or by workers leaving steps back to the last page that has rows.
  useEffect(() => {
    if (data && !list.isPlaceholderData && data.workers.length === 0 && offset > 0 && data.total > 0) {
      const last = Math.ceil(data.total / PAGE_SIZE);
      setParams({ page: last > 1 ? last : null });
    }
  }, [data, list.isPlaceholderData, offset, setParams]);

  const types = useMemo(() => {
    const names = new Set((automations.data?.automations ?? []).map((a) => a.automation_type));
    if (type) names.add(type);
    return [...names].sort();
  }, [automations.data, type]);

  // Bulk actions (issue 14.4), admin only as removing or configuring one worker is: rows
  // picked on this page, or every worker matching the filter; a new filter starts afresh.
  const canBulk = useSession().can("admin");
  const filterKey = `${type}\u0000${q}\u0000${errorGroup}\u0000${status}`;
  const [picked, setPicked] = useState<{ filterKey: string; rows: Map<string, Worker>; all: boolean }>({ filterKey, rows: new Map(), all: false });
  const sel = picked.filterKey === filterKey ? picked : { filterKey, rows: new Map<string, Worker>(), all: false };
  const [note, setNote] = useState<string | null>(null);
  const keyOf = (w: Worker) => `${w.automation_type}\u0000${w.worker_id}`;
  const pageRows = data?.workers ?? [];
  const allOnPage = pageRows.length > 0 && pageRows.every((w) => sel.rows.has(keyOf(w)));
  const toggle = (w: Worker) => {
    const rows = new Map(sel.rows);
    if (rows.has(keyOf(w))) rows.delete(keyOf(w));
    else rows.set(keyOf(w), w);
    setPicked({ filterKey, rows, all: false });
  };
  const togglePage = () => {
    const rows = new Map(sel.rows);
    for (const w of pageRows) {
      if (allOnPage) rows.delete(keyOf(w));
      else rows.set(keyOf(w), w);
    }
    setPicked({ filterKey, rows, all: false });
  };
  const clearSelection = () => setPicked({ filterKey, rows: new Map(), all: false });
  const selection: Selection | null = sel.all
    ? { kind: "all", total, offline: status === null || status === "offline" ? (counts?.offline ?? 0) : 0 }
    : sel.rows.size > 0
      ? { kind: "rows", workers: [...sel.rows.values()] }
      : null;

  const selectColumn: Column<Worker> = {
    id: "select",
    header: (
      <input
        type="checkbox"
        aria-label={allOnPage ? "Unselect the workers of this page" : "Select the workers of this page"}
        checked={sel.all || allOnPage}
        onChange={togglePage}
        disabled={sel.all}
        className="size-4"
      />
    ),
    // Room for the box and the cell's padding (a narrower cell overflows into an ellipsis dot).
    className: "w-8 sm:w-10",
    cell: (w) => (
      <input
        type="checkbox"
        aria-label={`Select ${w.automation_type} worker ${w.worker_id}`}
        checked={sel.all || sel.rows.has(keyOf(w))}
        disabled={sel.all}
        onChange={() => toggle(w)}
        className="size-4"
      />
    ),
  };

  const columns: Column<Worker>[] = [
    ...(canBulk ? [selectColumn] : []),
    {
      id: "worker",
      header: <SortHeader label="Worker" active={sort === "name"} direction="asc" onClick={() => setFilter({ sort: null })} />,
      // No width: whatever the other columns leave (shared with the last error where that
      // shows), so ids get the room, not a fixed column that is mostly empty.
      cell: (w) => (
        <>
          <Link href={workerHref(w)} className="link block truncate font-mono leading-tight" title={w.worker_id}>
            {w.worker_id}
          </Link>
          {/* Phones and small tablets have no room for the automation column: it rides under the id. */}
          <span className="block truncate text-xs leading-tight text-slate-600 md:hidden dark:text-slate-400">{w.automation_type}</span>
          {/* Below lg the error column is hidden: the error rides under the id, whole. */}
          {w.last_error && <LastErrorCell worker={w} className="lg:hidden" />}
        </>
      ),
    },
    { id: "type", header: "Automation", className: "w-32", hideBelow: "md", cell: (w) => <span title={w.automation_type}>{w.automation_type}</span> },
    {
      id: "status",
      header: "Status",
      className: "w-[5.75rem] sm:w-44",
      cell: (w) => (
        // Wraps under the status on phones: both markers stay whole.
        <span className="flex flex-wrap items-center gap-0.5 sm:gap-1">
          <StatusBadge status={w.status} />
          {w.corrupt && w.corrupt.length > 0 && <CorruptBadge label="corrupt" fields={w.corrupt} />}
        </span>
      ),
    },
    {
      id: "host",
      header: "Host",
      className: "w-[22%]",
      hideOnMobile: true,
      cell: (w) => (
        <span className="text-slate-600 dark:text-slate-300" title={workerHostname(w) ?? ""}>
          {workerHostname(w) ?? "—"}
        </span>
      ),
    },
    {
      id: "seen",
      header: (
        <SortHeader
          label="Last seen"
          active={sort !== "name"}
          direction={sort === "last_seen" ? "asc" : "desc"}
          onClick={() => setFilter({ sort: sort === "-last_seen" ? "last_seen" : "-last_seen" })}
        />
      ),
      className: "w-24 sm:w-32",
      cell: (w) => (w.last_seen === null ? <span className="text-amber-700 dark:text-amber-400">unknown</span> : <RelativeTime at={w.last_seen} className="tabular-nums" />),
    },
    {
      id: "gen",
      header: <span title="config_gen: goes up by one on every save of the worker's config">Config version</span>,
      // As wide as its header ("CONFIG VERSION" in capitals), which would otherwise be cut.
      className: "w-40 text-right",
      hideBelow: "xl",
      cell: (w) => <span className="tabular-nums">{w.config_gen ?? "—"}</span>,
    },
    {
      id: "error",
      header: "Last error",
      // No width: the rest of the row.
      hideBelow: "lg",
      cell: (w) => <LastErrorCell worker={w} />,
    },
  ];

  const filtered = type !== "" || q !== "" || status !== null || errorGroup !== "";
  const describe = () => {
    if (!data) return "Every worker, its status and when it was last seen.";
    const n = allCount;
    return `${formatNumber(n)} worker${n === 1 ? "" : "s"}${type ? ` of ${type}` : ""}${q ? ` matching “${q}”` : ""}, updated live.`;
  };

  return (
    <>
      <PageHeader title="Workers" description={describe()} />

      <div className="mb-4 flex flex-col gap-3 lg:flex-row lg:flex-wrap lg:items-end">
        <div className="grid grid-cols-2 gap-3 sm:flex sm:flex-row">
          <div className="flex min-w-0 flex-col gap-1">
            <label htmlFor="wk-type" className="text-xs font-medium text-slate-600 dark:text-slate-400">
              Automation
            </label>
            <select id="wk-type" className="field h-9 min-w-0 sm:min-w-44" value={type} onChange={(e) => setFilter({ type: e.target.value || null })}>
              <option value="">All automations</option>
              {types.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          <div className="flex min-w-0 flex-col gap-1">
            <label htmlFor="wk-sort" className="text-xs font-medium text-slate-600 dark:text-slate-400">
              Sort
            </label>
            <select id="wk-sort" className="field h-9 min-w-0 sm:min-w-52" value={sort} onChange={(e) => setFilter({ sort: e.target.value === "name" ? null : e.target.value })}>
              {SORTS.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div className="flex min-w-0 flex-1 flex-col gap-1 lg:max-w-sm">
          <label htmlFor="wk-q" className="text-xs font-medium text-slate-600 dark:text-slate-400">
            Search by id or hostname
          </label>
          <input
            id="wk-q"
            type="search"
            className="field h-9"
            placeholder="e.g. scraper-03 or .eu-west"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            autoComplete="off"
            spellCheck={false}
          />
        </div>
        {errorGroup !== "" && (
          <div className="flex min-w-0 flex-col gap-1">
            <span className="text-xs font-medium text-slate-600 dark:text-slate-400">Error group</span>
            <span className="flex min-h-9 items-center gap-2 text-sm" data-testid="error-group-filter">
              <code className="max-w-xs truncate rounded bg-red-50 px-2 py-1 font-mono text-xs text-red-800 dark:bg-red-950 dark:text-red-200" title={errorGroup}>
                {errorGroup}
              </code>
              <button type="button" className="link text-xs" onClick={() => setFilter({ error_group: null })}>
                Show every error
              </button>
            </span>
          </div>
        )}
        <div role="group" aria-labelledby="wk-status-label" className="flex min-w-0 flex-col gap-1">
          <span id="wk-status-label" className="text-xs font-medium text-slate-600 dark:text-slate-400">
            Status
          </span>
          {/* As tall as the fields beside it, so the labels above line up. */}
          <div className="flex min-h-9 flex-wrap items-center gap-1">
            <FilterChip label="All" count={counts ? allCount : null} pressed={status === null} onClick={() => setFilter({ status: null })} />
            {STATUSES.map((s) => (
              <FilterChip key={s} label={s} count={counts ? counts[s] : null} pressed={status === s} onClick={() => setFilter({ status: status === s ? null : s })} />
            ))}
          </div>
        </div>
      </div>

      {list.isPending ? (
        <LoadingState label="Loading workers…" />
      ) : list.isError && !data ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} />
      ) : data && allCount === 0 && !filtered ? (
        <EmptyState title="No workers yet">Workers appear here as soon as they register in Redis.</EmptyState>
      ) : data ? (
        <>
          {list.isError && (
            <p role="alert" className="mb-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-300">
              Could not refresh this page: {errorMessage(list.error)}. Showing the last rows received.{" "}
              <button type="button" className="link" onClick={() => void list.refetch()}>
                Retry
              </button>
            </p>
          )}
          {note !== null && (
            <p
              role="status"
              className="mb-2 rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-200"
            >
              {note}{" "}
              <button type="button" className="link" onClick={() => setNote(null)}>
                Dismiss
              </button>
            </p>
          )}
          {canBulk && allOnPage && !sel.all && total > pageRows.length && (
            <p className="mb-2 text-sm">
              All {formatNumber(pageRows.length)} workers of this page are selected.{" "}
              <button type="button" className="link" onClick={() => setPicked({ filterKey, rows: new Map(), all: true })}>
                Select all {formatNumber(total)} matching this filter
              </button>
            </p>
          )}
          {canBulk && selection !== null && (
            <BulkBar
              selection={selection}
              filter={{ ...(type ? { type } : {}), ...(q ? { q } : {}), ...(errorGroup ? { error_group: errorGroup } : {}) }}
              status={status ?? undefined}
              onClear={clearSelection}
              onDone={(text) => {
                clearSelection();
                setNote(text);
              }}
            />
          )}
          <div aria-busy={list.isPlaceholderData} className={`transition-opacity ${list.isPlaceholderData ? "opacity-60" : ""}`}>
            <DataTable
              key={`${type}\u0000${status}\u0000${q}\u0000${sort}\u0000${offset}`}
              rows={data.workers}
              columns={columns}
              rowKey={(w) => `${w.automation_type}\u0000${w.worker_id}`}
              caption="Workers"
              rowClassName={(w) =>
                w.status === "offline" ? "bg-slate-100/70 text-slate-600 dark:bg-slate-900/70 dark:text-slate-400" : w.status === "error" ? "bg-red-50/50 dark:bg-red-950/20" : ""
              }
              empty={
                <EmptyState title="No worker matches these filters" className="border-0 py-6">
                  <button type="button" className="link" onClick={() => setParams({ type: null, status: null, q: null, error_group: null, page: null })}>
                    Clear the filters
                  </button>
                </EmptyState>
              }
              minWidth="22rem"
              // a page is at most PAGE_SIZE rows, and rows with an error grow to show it whole
              windowed={false}
            />
          </div>
          {total > 0 && (
            <Pager
              offset={offset}
              shown={data.workers.length}
              total={total}
              pageSize={PAGE_SIZE}
              loading={list.isPlaceholderData}
              sortLabel={sort === "name" ? "automation, then id" : sort === "-last_seen" ? "last seen, newest first" : "last seen, oldest first"}
              onPage={(p) => setParams({ page: p > 1 ? p : null })}
            />
          )}
        </>
      ) : null}
    </>
  );
}

function FilterChip({ label, count, pressed, onClick }: { label: string; count: number | null; pressed: boolean; onClick: () => void }) {
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
      <span className="tabular-nums">{count === null ? "–" : formatNumber(count)}</span>
    </button>
  );
}
