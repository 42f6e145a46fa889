"use client";

import Link from "next/link";
import { useMemo, useState } from "react";

import { busSummary } from "@/lib/bus-summary";
import type { BusFrame } from "@/lib/live";

import { CopyButton } from "./copy-button";
import { JsonView } from "./json-view";
import { RelativeTime } from "./relative-time";

/**
 * One bus message: its topic (a link that filters /events by it), a readable summary of the
 * payload (lib/bus-summary.ts) with a link to the worker, stream or queue it is about, the time,
 * and the full payload on demand.
 */
export function BusEventItem({ event, defaultOpen = false }: { event: BusFrame; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const isObject = event.payload !== null && typeof event.payload === "object";
  const full = typeof event.payload === "string" ? event.payload : JSON.stringify(event.payload, null, 2);
  const summary = useMemo(() => busSummary(event.topic, event.payload), [event.topic, event.payload]);
  return (
    // A container: the row lays out by its own width (the overview's narrow column, the events page).
    <li className="@container border-t border-slate-200 first:border-t-0 dark:border-slate-800" data-testid="bus-event">
      <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5 px-3 py-1.5 text-sm">
        <button
          type="button"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
          className="btn-ghost shrink-0 px-1 py-0 font-mono text-xs"
          aria-label={`${open ? "Hide" : "Show"} payload of ${event.topic}`}
        >
          <span aria-hidden>{open ? "▾" : "▸"}</span>
        </button>
        <Link
          href={`/events?topics=${encodeURIComponent(event.topic)}`}
          title={`Show only ${event.topic}`}
          className="max-w-[60%] shrink-0 truncate rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800 hover:bg-slate-200 focus-visible:outline-2 focus-visible:outline-sky-500 @2xl:max-w-[16rem] dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700"
        >
          {event.topic}
        </Link>
        <RelativeTime at={event.received_at} className="ml-auto shrink-0 text-xs text-slate-500 tabular-nums @2xl:order-last dark:text-slate-400" />
        {/* Narrow (a phone, the overview's column): the summary takes the line, its link goes under it. */}
        <span className="flex min-w-0 basis-full flex-wrap items-baseline gap-x-2 pl-7 @2xl:flex-1 @2xl:basis-auto @2xl:flex-nowrap @2xl:pl-0">
          {/* Two lines where the row is narrow (a phone, the overview's column): one cut line left only "New entry on stream x, …". */}
          <span
            className="line-clamp-2 min-w-0 basis-full text-xs wrap-break-word text-slate-700 @2xl:line-clamp-1 @2xl:flex-1 @2xl:basis-auto dark:text-slate-300"
            data-testid="bus-summary"
            title={summary.text}
          >
            {summary.text}
          </span>
          {summary.link && (
            <Link href={summary.link.href} className="link shrink-0 text-xs">
              {summary.link.label}
            </Link>
          )}
        </span>
      </div>
      {open && (
        <div className="mx-3 mb-2 rounded-md border border-slate-200 bg-slate-50 p-2 dark:border-slate-800 dark:bg-slate-900/60">
          <div className="mb-1 flex justify-end">
            <CopyButton text={full} label="Copy payload" className="text-xs" />
          </div>
          {isObject ? <JsonView value={event.payload} expandDepth={3} /> : <pre className="font-mono text-xs break-all whitespace-pre-wrap">{full}</pre>}
        </div>
      )}
    </li>
  );
}
