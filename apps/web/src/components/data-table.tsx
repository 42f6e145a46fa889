"use client";

import { useCallback, useEffect, useRef, useState, type Key, type ReactNode, type RefObject } from "react";

/**
 * Windowing for fixed-height rows inside a scrolling container: only the rows in view
 * (plus `overscan`) are rendered, so 10,000 rows stay smooth.
 */
export function useWindowedRows({
  count,
  rowHeight,
  overscan = 8,
}: {
  count: number;
  rowHeight: number;
  overscan?: number;
}): {
  containerRef: RefObject<HTMLDivElement | null>;
  start: number;
  end: number;
  padTop: number;
  padBottom: number;
  scrollToIndex: (i: number) => void;
} {
  const containerRef = useRef<HTMLDivElement | null>(null);
  const [view, setView] = useState({ top: 0, height: 800 });

  useEffect(() => {
    const el = containerRef.current;
    if (!el) return;
    let frame = 0;
    const measure = () => {
      frame = 0;
      setView((v) => (v.top === el.scrollTop && v.height === el.clientHeight ? v : { top: el.scrollTop, height: el.clientHeight }));
    };
    const onScroll = () => {
      if (frame === 0) frame = requestAnimationFrame(measure);
    };
    measure();
    el.addEventListener("scroll", onScroll, { passive: true });
    const ro = new ResizeObserver(onScroll);
    ro.observe(el);
    return () => {
      el.removeEventListener("scroll", onScroll);
      ro.disconnect();
      if (frame) cancelAnimationFrame(frame);
    };
  }, []);

  const first = Math.floor(view.top / rowHeight);
  const visible = Math.ceil(view.height / rowHeight) + 1;
  const start = Math.max(0, Math.min(count, first - overscan));
  const end = Math.min(count, first + visible + overscan);
  const scrollToIndex = useCallback(
    (i: number) => {
      containerRef.current?.scrollTo({ top: i * rowHeight });
    },
    [rowHeight],
  );
  return { containerRef, start, end, padTop: start * rowHeight, padBottom: (count - end) * rowHeight, scrollToIndex };
}

export interface Column<T> {
  id: string;
  header: ReactNode;
  cell: (row: T, index: number) => ReactNode;
  /** Width and alignment classes for header and cells, e.g. "w-40 text-right". */
  className?: string;
  /** Hidden below the `sm` breakpoint to keep phone tables readable. */
  hideOnMobile?: boolean;
  /** Hidden below this breakpoint (wins over `hideOnMobile`): for columns a tablet has no room for. */
  hideBelow?: "sm" | "md" | "lg" | "xl";
}

// Whole class names, so Tailwind sees them.
const HIDE_BELOW = { sm: "hidden sm:table-cell", md: "hidden md:table-cell", lg: "hidden lg:table-cell", xl: "hidden xl:table-cell" } as const;

/**
 * A windowed <table> with a sticky header. Rows have a fixed height (cells truncate);
 * the container scrolls, up to `maxHeight`.
 */
export function DataTable<T>({
  rows,
  columns,
  rowKey,
  caption,
  rowHeight = 44,
  maxHeight = "min(70vh, 48rem)",
  minWidth = "44rem",
  rowClassName,
  empty,
}: {
  rows: readonly T[];
  columns: readonly Column<T>[];
  rowKey: (row: T) => Key;
  /** Read by screen readers (visually hidden). */
  caption: string;
  rowHeight?: number;
  maxHeight?: string;
  minWidth?: string;
  rowClassName?: (row: T) => string;
  /** Shown in place of the body when there are no rows. */
  empty?: ReactNode;
}) {
  const { containerRef, start, end, padTop, padBottom } = useWindowedRows({ count: rows.length, rowHeight });
  const cellClass = (c: Column<T>) => {
    const below = c.hideBelow ?? (c.hideOnMobile ? "sm" : undefined);
    return `${c.className ?? ""} ${below ? HIDE_BELOW[below] : ""}`;
  };

  return (
    <div
      ref={containerRef}
      className="overflow-auto rounded-lg border border-slate-200 dark:border-slate-800"
      style={{ maxHeight }}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll box takes focus so a keyboard can scroll it (axe: scrollable-region-focusable)
      tabIndex={0}
      aria-label={caption}
      role="region"
    >
      <table className="w-full table-fixed border-collapse text-sm" style={{ minWidth }} aria-rowcount={rows.length + 1}>
        <caption className="sr-only">{caption}</caption>
        <thead className="sticky top-0 z-10 bg-slate-100 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase dark:bg-slate-900 dark:text-slate-400">
          <tr aria-rowindex={1}>
            {columns.map((c) => (
              <th key={c.id} scope="col" className={`truncate px-2 py-2 sm:px-3 ${cellClass(c)}`}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {padTop > 0 && <Spacer columns={columns} height={padTop} cellClass={cellClass} />}
          {rows.slice(start, end).map((row, i) => (
            <tr
              key={rowKey(row)}
              aria-rowindex={start + i + 2}
              style={{ height: rowHeight }}
              className={`border-t border-slate-200 hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-900/60 ${rowClassName?.(row) ?? ""}`}
            >
              {columns.map((c) => (
                <td key={c.id} className={`truncate px-2 sm:px-3 ${cellClass(c)}`}>
                  {c.cell(row, start + i)}
                </td>
              ))}
            </tr>
          ))}
          {padBottom > 0 && <Spacer columns={columns} height={padBottom} cellClass={cellClass} />}
        </tbody>
      </table>
      {/* Below the table, not in a cell spanning every column: on a phone that span would
          count the hidden columns too and squeeze the visible ones. */}
      {rows.length === 0 && empty !== undefined && <div className="p-4">{empty}</div>}
    </div>
  );
}

/**
 * The height of the rows not rendered, as one row with a cell per column (each hidden where
 * its column is): a single cell spanning every column would, on a phone, span the hidden
 * ones too, add them back to the fixed layout and squeeze the visible columns.
 */
function Spacer<T>({ columns, height, cellClass }: { columns: readonly Column<T>[]; height: number; cellClass: (c: Column<T>) => string }) {
  return (
    <tr aria-hidden style={{ height }}>
      {columns.map((c) => (
        <td key={c.id} className={`p-0 ${cellClass(c)}`} />
      ))}
    </tr>
  );
}

/** A sortable column header: a real button announcing the current order. */
export function SortHeader({
  label,
  active,
  direction,
  onClick,
}: {
  label: string;
  active: boolean;
  direction: "asc" | "desc";
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      onClick={onClick}
      className="inline-flex items-center gap-1 uppercase hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-sky-500 dark:hover:text-slate-100"
      aria-label={`Sort by ${label}${active ? (direction === "asc" ? ", ascending" : ", descending") : ""}`}
    >
      {label}
      <span aria-hidden>{active ? (direction === "asc" ? "▲" : "▼") : "↕"}</span>
    </button>
  );
}
