"use client";

import { poolAvailability, type PoolSummary } from "@fleet/schema";

import { formatNumber } from "@/lib/format";

/** The free count, with "≈" when the counts are estimated from a sample (a big pool). */
export function freeText(p: Pick<PoolSummary, "free" | "estimated">): string {
  return `${p.estimated ? "≈" : ""}${formatNumber(p.free)}`;
}

/** "exhausted" (red) or "low" (amber) beside a pool's free count; nothing when it has enough, or none to give. */
export function AvailabilityBadge({ pool }: { pool: Pick<PoolSummary, "live" | "free" | "estimated"> }) {
  const state = poolAvailability(pool);
  if (state === "exhausted")
    return (
      <span data-testid="pool-availability" className="rounded bg-red-100 px-1.5 py-0.5 text-xs font-medium whitespace-nowrap text-red-900 dark:bg-red-950 dark:text-red-200">
        exhausted
      </span>
    );
  if (state === "low")
    return (
      <span
        data-testid="pool-availability"
        className="rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium whitespace-nowrap text-amber-900 dark:bg-amber-950 dark:text-amber-200"
      >
        low
      </span>
    );
  return null;
}
