"use client";

import type { RawValue } from "@fleet/schema";
import { useRef, useState, useSyncExternalStore, type Key, type ReactNode } from "react";

import { RawValueView } from "@/components/raw-value-view";
import type { LoadFull } from "@/lib/full-value";

import { PayloadPreview } from "./payload-preview";

export interface ItemColumn<T> {
  id: string;
  header: ReactNode;
  cell: (row: T, index: number) => ReactNode;
  /** Width/alignment classes for header and cells. */
  className?: string;
  hideOnMobile?: boolean;
}

/**
 * A table of stored items (queue bodies, pool items, stream entries): a few columns, a
 * one-line payload preview, and a per-row button that opens the full value below the row.
 * Given `loadFull`, a truncated value can be fetched whole ("Show all") and downloaded.
 * Not windowed: callers page their lists (at most a few hundred rows).
 */
export function ItemTable<T>({
  rows,
  columns,
  rowKey,
  caption,
  payload,
  payloadLabel = "payload",
  loadFull,
  fileName,
  previewField,
  rowName,
  rowClassName,
  leading,
  trailing,
  empty,
}: {
  rows: readonly T[];
  columns: readonly ItemColumn<T>[];
  rowKey: (row: T, index: number) => Key;
  caption: string;
  payload: (row: T) => RawValue | null | undefined;
  payloadLabel?: string;
  /**
   * How to fetch a row's value whole (lib/full-value loaders); `index` is the row's place in
   * `rows`. Only called for truncated values.
   */
  loadFull?: (row: T, index: number, value: RawValue) => LoadFull | undefined;
  /** Base name of a row's downloaded value. */
  fileName?: (row: T) => string;
  /** The preview shows this field of a JSON body (the whole value is one click away). */
  previewField?: string;
  /** Names the row in the expand button's accessible label ("Show payload of task 1a2b"). */
  rowName: (row: T) => string;
  rowClassName?: (row: T) => string;
  /** A first cell (e.g. a selection checkbox) and its header. */
  leading?: { header: ReactNode; cell: (row: T, index: number) => ReactNode };
  /** A last cell after the payload (e.g. row actions) and its header. */
  trailing?: { header: ReactNode; cell: (row: T, index: number) => ReactNode };
  empty?: ReactNode;
}) {
  const [open, setOpen] = useState<ReadonlySet<Key>>(new Set());
  const narrow = useNarrow();
  const toggle = (k: Key) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  const hide = (c: { hideOnMobile?: boolean }) => (c.hideOnMobile ? "hidden md:table-cell" : "");
  const span = columns.length + 1 + (leading ? 1 : 0) + (trailing ? 1 : 0);
  const loaderOf = (row: T, i: number, value: RawValue | null | undefined): LoadFull | undefined => (value?.truncated && loadFull ? loadFull(row, i, value) : undefined);
  // Whole values fetched per row survive the switch between the table and the phone cards.
  const fulls = useRef(new Map<Key, RawValue>());
  const fullProps = (k: Key) => ({
    initialFull: fulls.current.get(k) ?? null,
    onFullValue: (f: RawValue | null) => {
      if (f) fulls.current.set(k, f);
      else fulls.current.delete(k);
    },
  });

  if (rows.length === 0 && empty) return <>{empty}</>;

  if (narrow) {
    // Phones get one card per row: a table this wide would scroll sideways.
    return (
      <ul aria-label={caption} className="space-y-2">
        {rows.map((row, i) => {
          const k = rowKey(row, i);
          const isOpen = open.has(k);
          const value = payload(row);
          const [first, ...rest] = columns;
          return (
            <li key={k} className={`rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900/40 ${rowClassName?.(row) ?? ""}`}>
              <div className="flex items-start gap-3">
                {leading && <div className="pt-0.5">{leading.cell(row, i)}</div>}
                <div className="min-w-0 flex-1">{first?.cell(row, i)}</div>
                {trailing && <div className="shrink-0">{trailing.cell(row, i)}</div>}
              </div>
              {rest.length > 0 && (
                <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                  {rest.map((c) => (
                    <div key={c.id} className="contents">
                      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">{c.header}</dt>
                      <dd className="min-w-0">{c.cell(row, i)}</dd>
                    </div>
                  ))}
                </dl>
              )}
              <PreviewToggle className="mt-2" value={value} field={previewField} isOpen={isOpen} name={`${payloadLabel} of ${rowName(row)}`} onToggle={() => toggle(k)} />
              {isOpen && <RawValueView value={value} label={payloadLabel} loadFull={loaderOf(row, i, value)} fileName={fileName?.(row)} {...fullProps(k)} className="mt-2" />}
            </li>
          );
        })}
      </ul>
    );
  }

  return (
    // Off screen, the browser skips laying out and painting the rows (content-visibility:
    // auto) until they come near: a page of four lists of 100 shows its top first. The
    // placeholder's height guesses the rows' (about 41 px each) until they were drawn once.
    <div
      className="overflow-x-auto rounded-lg border border-slate-200 bg-white [content-visibility:auto] dark:border-slate-800 dark:bg-slate-900/40"
      style={{ containIntrinsicSize: `auto ${40 + 41 * rows.length}px` }}
    >
      <table className="w-full border-collapse text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-100 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase dark:bg-slate-900 dark:text-slate-400">
          <tr>
            {leading && (
              <th scope="col" className="w-10 px-3 py-2">
                {leading.header}
              </th>
            )}
            {columns.map((c) => (
              <th key={c.id} scope="col" className={`px-3 py-2 whitespace-nowrap ${c.className ?? ""} ${hide(c)}`}>
                {c.header}
              </th>
            ))}
            <th scope="col" className="w-full min-w-48 px-3 py-2">
              {payloadLabel}
            </th>
            {trailing && (
              <th scope="col" className="px-3 py-2 text-right whitespace-nowrap">
                {trailing.header}
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => {
            const k = rowKey(row, i);
            const isOpen = open.has(k);
            const value = payload(row);
            return (
              <RowPair
                key={k}
                span={span}
                isOpen={isOpen}
                className={rowClassName?.(row) ?? ""}
                cells={
                  <>
                    {leading && <td className="px-3 py-2 align-top">{leading.cell(row, i)}</td>}
                    {columns.map((c) => (
                      <td key={c.id} className={`px-3 py-2 align-top ${c.className ?? ""} ${hide(c)}`}>
                        {c.cell(row, i)}
                      </td>
                    ))}
                    <td className="max-w-0 px-3 py-2 align-top">
                      <PreviewToggle value={value} field={previewField} isOpen={isOpen} name={`${payloadLabel} of ${rowName(row)}`} onToggle={() => toggle(k)} />
                    </td>
                    {trailing && <td className="px-3 py-2 text-right align-top whitespace-nowrap">{trailing.cell(row, i)}</td>}
                  </>
                }
                detail={<RawValueView value={value} label={payloadLabel} loadFull={loaderOf(row, i, value)} fileName={fileName?.(row)} {...fullProps(k)} />}
              />
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function RowPair({ cells, detail, isOpen, span, className }: { cells: ReactNode; detail: ReactNode; isOpen: boolean; span: number; className: string }) {
  return (
    <>
      <tr className={`border-t border-slate-200 dark:border-slate-800 ${className}`}>{cells}</tr>
      {isOpen && (
        <tr className={className}>
          <td colSpan={span} className="px-3 pb-3">
            {detail}
          </td>
        </tr>
      )}
    </>
  );
}

const NARROW = "(max-width: 767px)";

/** True below the `md` breakpoint; the server (and the first paint) assume a wide screen. */
export function useNarrow(): boolean {
  return useSyncExternalStore(
    (fn) => {
      const mq = window.matchMedia(NARROW);
      mq.addEventListener("change", fn);
      return () => mq.removeEventListener("change", fn);
    },
    () => window.matchMedia(NARROW).matches,
    () => false,
  );
}

/** A row's one-line payload preview and the button that opens or closes its whole view. */
function PreviewToggle({
  value,
  field,
  isOpen,
  name,
  onToggle,
  className = "",
}: {
  value: RawValue | null | undefined;
  field: string | undefined;
  isOpen: boolean;
  /** What the button shows or hides, for its accessible name ("payload of task 1f3a"). */
  name: string;
  onToggle: () => void;
  className?: string;
}) {
  return (
    <div className={`flex items-center gap-2 ${className}`}>
      <PayloadPreview value={value} field={field} className="min-w-0 flex-1" />
      <button type="button" className="btn-ghost shrink-0 text-xs" aria-expanded={isOpen} aria-label={`${isOpen ? "Hide" : "Show"} ${name}`} onClick={onToggle}>
        {isOpen ? "Hide" : "Show"}
      </button>
    </div>
  );
}
