"use client";

import { formatNumber } from "@/lib/format";

/**
 * Previous/next through server pages, with where we are ("101–200 of 10,000"). Real
 * buttons (keyboard and screen readers), disabled at the ends; the range line is a polite
 * live region so a page change is announced.
 */
export function Pager({
  offset,
  shown,
  total,
  pageSize,
  loading,
  sortLabel,
  onPage,
}: {
  offset: number;
  /** Rows on this page. */
  shown: number;
  total: number;
  pageSize: number;
  /** The next page is on its way (the rows in view are the previous one's). */
  loading: boolean;
  sortLabel: string;
  /** 1-based. */
  onPage: (page: number) => void;
}) {
  const page = Math.floor(offset / pageSize) + 1;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = shown === 0 ? 0 : offset + 1;
  const last = offset + shown;
  const atStart = page <= 1;
  const atEnd = page >= pages;
  const btn = "btn px-2.5 disabled:cursor-not-allowed disabled:opacity-40";

  return (
    <nav aria-label="Pages" className="mt-3 flex flex-col gap-2 text-sm sm:flex-row sm:items-center sm:justify-between">
      <p className="text-slate-600 dark:text-slate-400" aria-live="polite">
        <span data-testid="workers-range" className="font-medium text-slate-900 tabular-nums dark:text-slate-100">
          {formatNumber(first)}–{formatNumber(last)} of {formatNumber(total)}
        </span>
        <span className="text-slate-600 dark:text-slate-400">, by {sortLabel}</span>
        {loading && <span className="ml-2 text-slate-600 dark:text-slate-400">· loading…</span>}
      </p>
      {/* One page needs no paging buttons, only the count. */}
      {pages > 1 && (
        <div className="flex items-center gap-1.5">
          <button type="button" className={btn} disabled={atStart} onClick={() => onPage(1)} aria-label="First page">
            «
          </button>
          <button type="button" className={btn} disabled={atStart} onClick={() => onPage(page - 1)} aria-label="Previous page">
            ←<span className="hidden sm:inline"> Previous</span>
          </button>
          <span className="flex-1 px-1 text-center whitespace-nowrap text-slate-600 tabular-nums sm:flex-none dark:text-slate-400">
            Page {formatNumber(page)} of {formatNumber(pages)}
          </span>
          <button type="button" className={btn} disabled={atEnd} onClick={() => onPage(page + 1)} aria-label="Next page">
            <span className="hidden sm:inline">Next </span>→
          </button>
          <button type="button" className={btn} disabled={atEnd} onClick={() => onPage(pages)} aria-label="Last page">
            »
          </button>
        </div>
      )}
    </nav>
  );
}
