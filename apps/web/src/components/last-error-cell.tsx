"use client";

import type { Worker } from "@fleet/schema";

import { RelativeTime } from "@/components/relative-time";

/**
 * A worker's last error in a table row, whole and wrapped (words stay whole where they fit; long URLs break anywhere), with
 * since when it shows as far as the console's error history knows (`last_error_since`).
 * An error longer than WHOLE_UP_TO characters (a stack trace) shows its start here and whole
 * on the worker's page, so one worker cannot make the table a screen per row.
 */
const WHOLE_UP_TO = 1000;

export function LastErrorCell({ worker, className = "" }: { worker: Pick<Worker, "last_error" | "last_error_since">; className?: string }) {
  if (!worker.last_error) return <span className={`text-slate-500 dark:text-slate-400 ${className}`}>—</span>;
  return (
    <div data-testid="last-error-cell" className={`py-1.5 leading-snug whitespace-normal ${className}`}>
      <span className="font-mono text-xs wrap-anywhere text-red-800 dark:text-red-300">
        {worker.last_error.length > WHOLE_UP_TO
          ? `${worker.last_error.slice(0, WHOLE_UP_TO)}… (${worker.last_error.length - WHOLE_UP_TO} more characters on the worker's page)`
          : worker.last_error}
      </span>
      {worker.last_error_since != null && (
        <span className="block text-xs text-slate-600 dark:text-slate-400">
          since <RelativeTime at={worker.last_error_since} />
        </span>
      )}
    </div>
  );
}
