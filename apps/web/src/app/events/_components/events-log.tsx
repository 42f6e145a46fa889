"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";

import { BusEventItem } from "@/components/bus-event-item";
import { PageHeader } from "@/components/page-header";
import { EmptyState } from "@/components/states";
import { formatNumber } from "@/lib/format";
import { BUS_BUFFER, useBusEvents, useLiveStatus, type BusFrame } from "@/lib/live";
import { topicMatcher } from "@/lib/topics";

export function EventsLog() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const topics = params.get("topics") ?? "";
  const [draft, setDraft] = useState(topics);
  useEffect(() => setDraft(topics), [topics]);
  useEffect(() => {
    if (draft === topics) return;
    const t = setTimeout(() => {
      const sp = new URLSearchParams(params.toString());
      if (draft.trim()) sp.set("topics", draft.trim());
      else sp.delete("topics");
      const s = sp.toString();
      router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
    }, 250);
    return () => clearTimeout(t);
  }, [draft, topics, params, pathname, router]);

  const live = useBusEvents();
  const status = useLiveStatus();
  const [paused, setPaused] = useState<readonly BusFrame[] | null>(null);
  const shown = paused ?? live;
  const newSincePause = paused ? live.filter((e) => e.seq > (paused.at(-1)?.seq ?? 0)).length : 0;

  const match = useMemo(() => topicMatcher(topics), [topics]);
  const filtered = useMemo(() => shown.filter((e) => match(e.topic)).reverse(), [shown, match]);
  const topicCounts = useMemo(() => {
    const m = new Map<string, number>();
    for (const e of live) m.set(e.topic, (m.get(e.topic) ?? 0) + 1);
    return [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
  }, [live]);

  return (
    <>
      <PageHeader
        title="Events"
        description={`The live bus: messages published on Redis event:* channels, newest first (the last ${BUS_BUFFER} kept).`}
        actions={
          <button type="button" className={paused ? "btn-primary" : "btn"} onClick={() => setPaused(paused ? null : live)} aria-pressed={paused !== null}>
            {/* The same glyphs as the stream tail's pause, hidden from the button's name. */}
            <span aria-hidden>{paused ? "▶" : "❚❚"}</span>
            {paused ? `Resume${newSincePause ? ` (${formatNumber(newSincePause)} new)` : ""}` : "Pause"}
          </button>
        }
      />

      <div className="mb-3 flex flex-col gap-1">
        <label htmlFor="ev-topics" className="text-xs font-medium text-slate-600 dark:text-slate-400">
          Topic filter
        </label>
        <input
          id="ev-topics"
          type="search"
          className="field w-full sm:max-w-md"
          placeholder="e.g. fleet.* or scraper.emit, fleet.admin"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          aria-describedby="ev-topics-help"
        />
        <p id="ev-topics-help" className="text-xs text-slate-500 dark:text-slate-400">
          Comma-separated; <code className="font-mono">*</code> matches anything. Without <code className="font-mono">*</code>, any topic containing the text matches.
        </p>
        {match.problem && (
          <p role="status" className="text-xs text-amber-700 dark:text-amber-400">
            {match.problem}
          </p>
        )}
      </div>

      {topicCounts.length > 0 && (
        <div className="mb-3 flex flex-wrap gap-1" role="group" aria-label="Filter by a recent topic">
          <button
            type="button"
            aria-pressed={topics === ""}
            className={`btn-ghost rounded-full border py-0.5 text-xs ${topics === "" ? "border-slate-900 bg-slate-900 text-white! dark:border-slate-100 dark:bg-slate-100 dark:text-slate-900!" : "border-slate-200 dark:border-slate-700"}`}
            onClick={() => setDraft("")}
          >
            All topics
          </button>
          {topicCounts.map(([t, n]) => {
            const on = topics === t;
            return (
              <button
                key={t}
                type="button"
                aria-pressed={on}
                className={`btn-ghost rounded-full border py-0.5 font-mono text-xs ${on ? "border-slate-900 bg-slate-900 text-white! dark:border-slate-100 dark:bg-slate-100 dark:text-slate-900!" : "border-slate-200 dark:border-slate-700"}`}
                onClick={() => setDraft(on ? "" : t)}
              >
                {t} <span className={on ? "tabular-nums" : "text-slate-600 tabular-nums dark:text-slate-400"}>{n}</span>
              </button>
            );
          })}
        </div>
      )}

      <p className="mb-2 text-xs text-slate-500 dark:text-slate-400" aria-live="polite">
        {paused ? "Paused: new messages are held until you resume. " : status === "live" ? "Live. " : "The live stream is not connected; messages resume when it is back. "}
        Showing {formatNumber(filtered.length)} of {formatNumber(shown.length)}.
      </p>

      {filtered.length === 0 ? (
        <EmptyState title={shown.length === 0 ? "No bus messages yet" : "No message matches this filter"}>
          {shown.length === 0 ? "Messages published on event:* channels appear here as they arrive." : "Change or clear the topic filter."}
        </EmptyState>
      ) : (
        <ul aria-label="Bus events" className="card overflow-hidden p-0">
          {filtered.map((e) => (
            <BusEventItem key={e.seq} event={e} />
          ))}
        </ul>
      )}
    </>
  );
}
