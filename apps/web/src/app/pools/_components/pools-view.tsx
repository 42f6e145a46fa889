"use client";

import type { PoolSummary } from "@fleet/schema";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";

import { Num, ResultNote } from "@/components/ui-bits";
import { useQueryState } from "@/lib/use-query-state";
import { CorruptBadge, DataTable, EmptyState, ErrorState, LoadingState, PageHeader, type Column } from "@/components";
import { formatNumber } from "@/lib/format";
import { queries } from "@/lib/query";

import { AvailabilityBadge, freeText } from "./availability";

export function poolHref(name: string): string {
  return `/pools/${encodeURIComponent(name)}`;
}

// Phones keep free, live and claimed; the size (live + expired) and expired ride under the name.
const columns: Column<PoolSummary>[] = [
  {
    id: "name",
    header: "Pool",
    className: "sm:w-64",
    cell: (p) => (
      <>
        <Link href={poolHref(p.name)} className="link block truncate leading-tight font-medium" title={p.name}>
          {p.name}
        </Link>
        {p.corrupt && <CorruptBadge fields={p.corrupt} />}
        <span className="block truncate text-xs leading-tight text-slate-600 tabular-nums sm:hidden dark:text-slate-400">
          {formatNumber(p.size)} item{p.size === 1 ? "" : "s"}
          {p.expired > 0 ? `, ${p.estimated ? "≈" : ""}${formatNumber(p.expired)} expired` : ""}
        </span>
      </>
    ),
  },
  { id: "size", header: "Size", className: "w-20 text-right", hideOnMobile: true, cell: (p) => <Num value={p.size} /> },
  {
    id: "free",
    header: <span title="Live items nobody has claimed: what a worker's claim can get now">Free</span>,
    className: "w-24 text-right sm:w-36",
    cell: (p) => (
      <span className="inline-flex flex-wrap items-center justify-end gap-1" data-testid="pool-free">
        <AvailabilityBadge pool={p} />
        <span className="font-semibold tabular-nums" title={p.estimated ? `Estimated from a random sample of ${formatNumber(p.estimated.sampled)} items` : undefined}>
          {freeText(p)}
        </span>
      </span>
    ),
  },
  { id: "live", header: "Live", className: "w-16 text-right sm:w-20", cell: (p) => <Num value={p.live} /> },
  { id: "expired", header: "Expired", className: "w-20 text-right sm:w-24", hideOnMobile: true, cell: (p) => <Num value={p.expired} tone="warn" /> },
  { id: "claimed", header: "Claimed", className: "w-20 text-right sm:w-24", cell: (p) => <Num value={p.claimed} /> },
];

/**
 * /pools: every pool's free count (exhausted or low marked), size, live, expired and claimed,
 * kept live by `pools` frames. Counts of a pool over 5,000 items are estimated from a sample (≈).
 */
export function PoolsView() {
  const [sp, setParams] = useQueryState();
  const { data, error, isPending, refetch } = useQuery(queries.pools());
  const removed = sp.get("removed");
  const removedItems = sp.get("items");

  return (
    <>
      <PageHeader title="Pools" description="Shared resources (cookies, sessions, proxies) with expiry and claim leases, live." />
      {removed !== null && (
        <div className="mb-4">
          <ResultNote onDismiss={() => setParams({ removed: null, items: null })}>
            Pool “{removed}” removed{removedItems !== null ? ` with its ${formatNumber(Number(removedItems))} item${removedItems === "1" ? "" : "s"}` : ""}.
          </ResultNote>
        </div>
      )}
      {isPending ? (
        <LoadingState label="Loading pools…" />
      ) : error ? (
        <ErrorState error={error} onRetry={() => void refetch()} />
      ) : data.pools.length === 0 ? (
        <EmptyState title="No pools">A pool appears here when a worker adds its first item.</EmptyState>
      ) : (
        <>
          <DataTable rows={data.pools} columns={columns} rowKey={(p) => p.name} caption="Pools" minWidth="20rem" />
          <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
            Free: live items nobody has claimed. <strong>Low</strong>: some are claimed and at most a tenth of the live items (or 2) are free; <strong>exhausted</strong>: none is.
            {data.pools.some((p) => p.estimated) && " ≈: a pool of over 5,000 items is counted from a random sample of 1,000 (its size is exact)."}
          </p>
        </>
      )}
    </>
  );
}
