"use client";

import { useLiveStatus, type LiveStatus } from "@/lib/live";

const LOOK: Record<LiveStatus, { dot: string; text: string; title: string }> = {
  connecting: { dot: "bg-slate-400", text: "connecting", title: "Opening the live event stream" },
  live: { dot: "bg-emerald-500 animate-pulse", text: "live", title: "Pages update from the live event stream" },
  reconnecting: { dot: "bg-amber-500", text: "reconnecting", title: "The live stream dropped; reconnecting" },
  down: { dot: "bg-red-500", text: "polling", title: "The live stream is down; pages refresh every 5 s until it is back" },
};

/** The tab's live-stream status: live / reconnecting / polling (stream down). */
export function LiveIndicator() {
  const status = useLiveStatus();
  const l = LOOK[status];
  return (
    <span
      role="status"
      aria-label={`Live updates: ${l.text}`}
      title={l.title}
      data-live-status={status}
      className="inline-flex items-center gap-1.5 rounded-full border border-slate-200 px-2 py-0.5 text-xs text-slate-600 dark:border-slate-700 dark:text-slate-300"
    >
      <span aria-hidden className={`size-2 rounded-full ${l.dot}`} />
      {l.text}
    </span>
  );
}
