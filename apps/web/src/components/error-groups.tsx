"use client";
// Error groups (issue 14.3): dead letters' and workers' last_error grouped by the normalised
// message (normalizeErrorMessage, @fleet/schema). Each group links to its dead letters (the
// queue's search, `error_group = "<group>"`) and to the workers that show it. Messages are
// rendered as text, cut to one line (the full group on hover).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { errorGroupSearchHref, errorGroupWorkersHref, type ErrorGroup, type ErrorGroups } from "@fleet/schema";

import { formatNumber } from "@/lib/format";
import { queries } from "@/lib/query";

import { RelativeTime } from "./relative-time";
import { EmptyState, ErrorState, LoadingState } from "./states";

const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`;

function GroupRow({ g, queue }: { g: ErrorGroup; queue: string | null }) {
  // on a queue's page only that queue's dead letters; fleet-wide each queue's, most first
  const deadLinks = queue !== null ? g.queues.filter((q) => q.name === queue) : g.queues.slice(0, 3);
  return (
    <li className="py-2 text-sm" data-testid="error-group">
      <div className="flex min-w-0 items-baseline gap-2">
        <span
          className="shrink-0 rounded-full bg-red-100 px-2 py-0.5 text-xs font-semibold text-red-800 tabular-nums dark:bg-red-950 dark:text-red-200"
          title="dead letters read plus workers showing it"
        >
          {formatNumber(g.count)}
        </span>
        <code className="min-w-0 truncate font-mono text-xs" title={g.group} data-testid="error-group-text">
          {g.group}
        </code>
      </div>
      <div className="mt-1 flex flex-wrap gap-x-3 gap-y-1 pl-1 text-xs text-slate-600 dark:text-slate-300">
        {deadLinks.map((q) => (
          <Link key={q.name} className="link" href={errorGroupSearchHref(q.name, g.group)} data-testid="error-group-dead-link">
            {plural(q.dead, "dead letter")}
            {queue === null ? ` in ${q.name}` : ""}
          </Link>
        ))}
        {queue === null && g.queues.length > 3 && <span>and {plural(g.queues.length - 3, "more queue")}</span>}
        {g.workers > 0 && (
          <Link className="link" href={errorGroupWorkersHref(g.group, queue ?? undefined)} data-testid="error-group-workers-link">
            {plural(g.workers, "worker")}
          </Link>
        )}
        {g.automations.length > 0 && (
          <span>
            {g.automations.length === 1 ? "automation" : "automations"} {g.automations.slice(0, 4).join(", ")}
            {g.automations.length > 4 ? ` +${g.automations.length - 4}` : ""}
          </span>
        )}
        {g.last_seen !== null && (
          <span>
            workers seen <RelativeTime at={g.first_seen} /> to <RelativeTime at={g.last_seen} />
          </span>
        )}
        {g.newest_dead_rank !== null && (
          <span>{g.newest_dead_rank === 1 ? "in the newest dead letter" : `newest is dead letter #${formatNumber(g.newest_dead_rank)} from the end`}</span>
        )}
      </div>
    </li>
  );
}

function ScanNote({ data, queue }: { data: ErrorGroups; queue: string | null }) {
  const s = data.scanned;
  const read = s.queues.reduce((n, q) => n + q.read, 0);
  const dead = s.queues.reduce((n, q) => n + q.dead, 0);
  return (
    <p className="mt-2 text-xs text-slate-500 dark:text-slate-400" data-testid="error-groups-scope">
      {queue !== null
        ? `Of the newest ${formatNumber(s.dead_read_per_queue)} dead letters (${formatNumber(read)} of ${formatNumber(dead)} read)`
        : `Of the newest ${formatNumber(s.dead_read_per_queue)} dead letters of each queue (${formatNumber(read)} of ${formatNumber(dead)} read${
            s.queues_not_read > 0 ? `; ${plural(s.queues_not_read, "queue")} with fewer dead letters not read` : ""
          })`}
      {` and ${plural(s.workers, "worker")}`}
      {s.dead_without_error + s.dead_unreadable > 0 ? `; ${formatNumber(s.dead_without_error)} without an error, ${formatNumber(s.dead_unreadable)} not JSON` : ""}. Computed{" "}
      <RelativeTime at={data.computed_at} />, at most every {data.max_age_seconds} s.
    </p>
  );
}

/** The top error groups of the fleet (`queue` null) or of one queue. */
export function ErrorGroupsList({ queue, limit = 5 }: { queue: string | null; limit?: number }) {
  const q = useQuery(queries.errorGroups(queue, limit));
  if (q.isPending) return <LoadingState label="Grouping errors…" />;
  if (q.isError) return <ErrorState error={q.error} onRetry={() => void q.refetch()} />;
  const data = q.data;
  return (
    <div data-testid="error-groups">
      {data.groups.length === 0 ? (
        <EmptyState title="No errors">No dead letter or worker carries a last_error.</EmptyState>
      ) : (
        <>
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" aria-label={queue === null ? "Top error groups" : `Error groups of ${queue}`}>
            {data.groups.map((g) => (
              <GroupRow key={g.group} g={g} queue={queue} />
            ))}
          </ul>
          {data.total_groups > data.groups.length && (
            <p className="mt-1 text-xs text-slate-600 dark:text-slate-300">
              {plural(data.total_groups - data.groups.length, "more group")}
              {queue === null ? (
                <>
                  {" "}
                  on{" "}
                  <Link className="link" href="/errors">
                    the error groups page
                  </Link>
                </>
              ) : null}
              .
            </p>
          )}
        </>
      )}
      <ScanNote data={data} queue={queue} />
    </div>
  );
}
