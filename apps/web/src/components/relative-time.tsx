"use client";

import { absoluteTime, formatAge, formatDuration, utcClockTime } from "@/lib/format";

import { useNow } from "./use-now";

/** "12 s ago" (or "in 5 s"), ticking; hover shows the absolute local and ISO time. */
export function RelativeTime({ at, className }: { at: number | null | undefined; className?: string }) {
  const now = useNow();
  if (at === null || at === undefined || !Number.isFinite(at)) return <span className={className}>—</span>;
  const iso = new Date(at * 1000).toISOString();
  if (now === null) {
    // Server rendering and hydration (no clock yet): the same text in any time zone, so the
    // server's HTML and the browser's first render agree; the clock's first tick follows.
    return (
      <time dateTime={iso} title={iso} className={className}>
        {utcClockTime(at)}
      </time>
    );
  }
  const diff = now - at;
  const text = Math.abs(diff) < 1 ? "just now" : diff > 0 ? `${formatAge(diff)} ago` : `in ${formatAge(-diff)}`;
  return (
    <time dateTime={iso} title={absoluteTime(at)} className={className}>
      {text}
    </time>
  );
}

/** Time left until `to` (unix seconds), ticking; past it shows "overdue by …" in red. */
export function Countdown({ to, className, overdueLabel = "overdue" }: { to: number | null | undefined; className?: string; overdueLabel?: string }) {
  const now = useNow();
  if (to === null || to === undefined || !Number.isFinite(to)) return <span className={className}>—</span>;
  const iso = new Date(to * 1000).toISOString();
  const left = now === null ? null : to - now;
  if (left !== null && left < 0) {
    return (
      <time dateTime={iso} title={absoluteTime(to)} data-overdue="true" className={`font-medium text-red-700 dark:text-red-400 ${className ?? ""}`}>
        <span aria-hidden>⚠ </span>
        {overdueLabel} by {formatDuration(-left)}
      </time>
    );
  }
  return (
    <time dateTime={iso} title={left === null ? iso : absoluteTime(to)} className={`tabular-nums ${className ?? ""}`}>
      {left === null ? utcClockTime(to) : `${formatDuration(left)} left`}
    </time>
  );
}
