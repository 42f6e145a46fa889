"use client";

import type { RawValue } from "@fleet/schema";
import { useState, type Key, type ReactNode } from "react";

import { RawValueView } from "@/components";

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
 * Not windowed: callers page their lists (at most a few hundred rows).
 */
export function ItemTable<T>({
  rows,
  columns,
  rowKey,
  caption,
  payload,
  payloadLabel = "payload",
  previewField,
  rowName,
  rowClassName,
  leading,
  empty,
}: {
  rows: readonly T[];
  columns: readonly ItemColumn<T>[];
  rowKey: (row: T, index: number) => Key;
  caption: string;
  payload: (row: T) => RawValue | null | undefined;
  payloadLabel?: string;
  /** The preview shows this field of a JSON body (the whole value is one click away). */
  previewField?: string;
  /** Names the row in the expand button's accessible label ("Show payload of task 1a2b"). */
  rowName: (row: T) => string;
  rowClassName?: (row: T) => string;
  /** A first cell (e.g. a selection checkbox) and its header. */
  leading?: { header: ReactNode; cell: (row: T, index: number) => ReactNode };
  empty?: ReactNode;
}) {
  const [open, setOpen] = useState<ReadonlySet<Key>>(new Set());
  const toggle = (k: Key) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  const hide = (c: { hideOnMobile?: boolean }) => (c.hideOnMobile ? "hidden md:table-cell" : "");
  const span = columns.length + 1 + (leading ? 1 : 0);

  if (rows.length === 0 && empty) return <>{empty}</>;

  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900/40">
      <table className="w-full border-collapse text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-100 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase dark:bg-slate-900 dark:text-slate-400">
          <tr>
            {leading && <th scope="col" className="w-10 px-3 py-2">{leading.header}</th>}
            {columns.map((c) => (
              <th key={c.id} scope="col" className={`px-3 py-2 whitespace-nowrap ${c.className ?? ""} ${hide(c)}`}>
                {c.header}
              </th>
            ))}
            <th scope="col" className="w-full min-w-48 px-3 py-2">
              {payloadLabel}
            </th>
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
                      <div className="flex items-center gap-2">
                        <PayloadPreview value={value} field={previewField} className="min-w-0 flex-1" />
                        <button
                          type="button"
                          className="btn-ghost shrink-0 text-xs"
                          aria-expanded={isOpen}
                          aria-label={`${isOpen ? "Hide" : "Show"} ${payloadLabel} of ${rowName(row)}`}
                          onClick={() => toggle(k)}
                        >
                          {isOpen ? "Hide" : "Show"}
                        </button>
                      </div>
                    </td>
                  </>
                }
                detail={<RawValueView value={value} label={payloadLabel} />}
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
