"use client";

import { useLiveStatus, type LiveStatus } from "@/lib/live";

type Look = { dot: string; text: string; title: string };

const LOOK: Record<LiveStatus, Look> = {
  connecting: { dot: "bg-slate-400", text: "connecting", title: "Opening the live event stream" },
  live: { dot: "bg-emerald-500 animate-pulse", text: "live", title: "Pages update from the live event stream" },
  reconnecting: { dot: "bg-amber-500", text: "reconnecting", title: "The live stream dropped; reconnecting" },
  down: { dot: "bg-red-500", text: "polling", title: "The live stream is down; pages refresh every 5 s until it is back" },
  "signed-out": { dot: "bg-slate-400", text: "signed out", title: "The live stream needs a session: sign in again" },
};

// The stream stays open while Redis is down (the console answers, Redis does not): nothing
// new can arrive, so "live" would be a lie.
const BACKEND_DOWN: Look = {
  dot: "bg-red-500",
  text: "Redis down",
  title: "Redis does not answer: pages show the last data they had and update again when it is back",
};

/**
 * The tab's live-stream status: live / reconnecting / polling (stream down) / signed out,
 * or "Redis down" when the stream is up but the backend behind it is not (`backendDown`,
 * as the shell's banner decides it).
 */
export function LiveIndicator({ backendDown = false }: { backendDown?: boolean }) {
  const status = useLiveStatus();
  const redisDown = backendDown && status === "live";
  const l = redisDown ? BACKEND_DOWN : LOOK[status];
  return (
    <span
      role="status"
      aria-label={`Live updates: ${l.text}`}
      title={l.title}
      data-live-status={redisDown ? "backend-down" : status}
      className="inline-flex items-center gap-1.5 rounded-full border border-slate-200 px-2 py-0.5 text-xs whitespace-nowrap text-slate-600 dark:border-slate-700 dark:text-slate-300"
    >
      <span aria-hidden className={`size-2 rounded-full ${l.dot}`} />
      {l.text}
    </span>
  );
}
