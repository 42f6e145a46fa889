"use client";

import { useQuery } from "@tanstack/react-query";
import type { WorkerErrorEntry } from "@fleet/schema";

import { RelativeTime } from "@/components/relative-time";
import { ErrorState, LoadingState } from "@/components/states";
import { absoluteTime, localDateTime } from "@/lib/format";
import { queries } from "@/lib/query";

const KIND: Record<WorkerErrorEntry["kind"], { label: string; dot: string }> = {
  error: { label: "Error", dot: "bg-red-600 dark:bg-red-400" },
  offline: { label: "Went offline", dot: "bg-slate-500 dark:bg-slate-400" },
  recovered: { label: "Back to normal", dot: "bg-emerald-600 dark:bg-emerald-400" },
};

function describe(e: WorkerErrorEntry): string {
  if (e.kind === "offline") return e.last_seen === null ? "No heartbeat seen." : `No heartbeat since ${absoluteTime(e.last_seen)}.`;
  if (e.kind === "recovered") return e.error === null ? `Now ${e.status}.` : `Now ${e.status}; it still reports the error below.`;
  return e.state === "ERROR" ? "The worker is in the ERROR state." : `Reported while ${e.status}.`;
}

/**
 * What the console's watch saw of this worker's errors: a line per new error, going offline
 * and coming back, with times (newest first, the last 50, kept in Redis and shared by every
 * console). Seen at the watch's 10 s ticks, so an error shorter than that can be missing.
 */
export function ErrorHistory({ type, id }: { type: string; id: string }) {
  const q = useQuery(queries.workerErrors(type, id));
  return (
    <section aria-labelledby="wk-error-history" className="card min-w-0">
      <h2 id="wk-error-history" className="mb-1 text-base font-semibold">
        Error history
      </h2>
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">Errors, going offline and recovering, as the console saw them (checked every 10 s; the last 50 are kept).</p>
      {q.isPending ? (
        <LoadingState label="Loading error history…" />
      ) : q.isError ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No errors seen{q.data.corrupt > 0 ? "" : " since the console started watching this worker"}.</p>
      ) : (
        <ol aria-label="Error history" className="divide-y divide-slate-200 dark:divide-slate-800">
          {q.data.items.map((e, i) => (
            <li key={`${e.ts}-${i}`} data-testid="error-history-entry" className="flex min-w-0 gap-3 py-2">
              <span aria-hidden className={`mt-1.5 size-2 shrink-0 rounded-full ${KIND[e.kind].dot}`} />
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-baseline gap-x-2 text-sm">
                  <span className="font-medium">{KIND[e.kind].label}</span>
                  <RelativeTime at={e.ts} className="text-slate-600 dark:text-slate-400" />
                  <span className="text-xs text-slate-600 dark:text-slate-400">{localDateTime(e.ts)}</span>
                </p>
                <p className="text-xs text-slate-600 dark:text-slate-400">{describe(e)}</p>
                {e.error !== null && <pre className="mt-1 max-h-40 overflow-auto font-mono text-xs break-all whitespace-pre-wrap text-red-800 dark:text-red-300">{e.error}</pre>}
              </div>
            </li>
          ))}
        </ol>
      )}
      {q.data && q.data.corrupt > 0 && (
        <p className="mt-2 text-xs text-amber-800 dark:text-amber-300">
          {q.data.corrupt} entr{q.data.corrupt === 1 ? "y" : "ies"} of this history did not parse and {q.data.corrupt === 1 ? "is" : "are"} left out.
        </p>
      )}
    </section>
  );
}
