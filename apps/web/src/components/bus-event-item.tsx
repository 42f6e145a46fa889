"use client";

import { useState } from "react";

import type { BusFrame } from "@/lib/live";

import { CopyButton } from "./copy-button";
import { JsonView } from "./json-view";
import { RelativeTime } from "./relative-time";

function preview(payload: unknown): string {
  const s = typeof payload === "string" ? payload : JSON.stringify(payload);
  return s === undefined ? "" : s.length > 160 ? `${s.slice(0, 160)}…` : s;
}

/** One bus message: topic, time, a one-line preview, and the full payload on demand. */
export function BusEventItem({ event, defaultOpen = false }: { event: BusFrame; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const isObject = event.payload !== null && typeof event.payload === "object";
  const full = typeof event.payload === "string" ? event.payload : JSON.stringify(event.payload, null, 2);
  return (
    <li className="border-t border-slate-200 first:border-t-0 dark:border-slate-800" data-testid="bus-event">
      <div className="flex min-w-0 items-center gap-2 px-3 py-1.5 text-sm">
        <button
          type="button"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
          className="btn-ghost shrink-0 px-1 py-0 font-mono text-xs"
          aria-label={`${open ? "Hide" : "Show"} payload of ${event.topic}`}
        >
          <span aria-hidden>{open ? "▾" : "▸"}</span>
        </button>
        <span className="shrink-0 rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800 dark:bg-slate-800 dark:text-slate-200">
          {event.topic}
        </span>
        <span className="min-w-0 flex-1 truncate font-mono text-xs text-slate-500 dark:text-slate-400">{preview(event.payload)}</span>
        <RelativeTime at={event.received_at} className="shrink-0 text-xs text-slate-500 tabular-nums dark:text-slate-400" />
      </div>
      {open && (
        <div className="mx-3 mb-2 rounded-md border border-slate-200 bg-slate-50 p-2 dark:border-slate-800 dark:bg-slate-900/60">
          <div className="mb-1 flex justify-end">
            <CopyButton text={full} label="Copy payload" className="text-xs" />
          </div>
          {isObject ? (
            <JsonView value={event.payload} expandDepth={3} />
          ) : (
            <pre className="font-mono text-xs break-all whitespace-pre-wrap">{full}</pre>
          )}
        </div>
      )}
    </li>
  );
}
