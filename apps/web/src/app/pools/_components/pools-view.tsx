"use client";

import type { PoolSummary } from "@fleet/schema";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";

import { Num, ResultNote } from "@/components/ui-bits";
import { useQueryState } from "@/lib/use-query-state";
import { CorruptBadge, DataTable, EmptyState, ErrorState, LoadingState, PageHeader, type Column } from "@/components";
import { formatNumber } from "@/lib/format";
import { queries } from "@/lib/query";

export function poolHref(name: string): string {
  return `/pools/${encodeURIComponent(name)}`;
}

// Phones keep live, expired and claimed; the size (live + expired) rides under the name.
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
        </span>
      </>
    ),
  },
  { id: "size", header: "Size", className: "w-20 text-right", hideOnMobile: true, cell: (p) => <Num value={p.size} /> },
  { id: "live", header: "Live", className: "w-16 text-right sm:w-20", cell: (p) => <Num value={p.live} /> },
  { id: "expired", header: "Expired", className: "w-20 text-right sm:w-24", cell: (p) => <Num value={p.expired} tone="warn" /> },
  { id: "claimed", header: "Claimed", className: "w-20 text-right sm:w-24", cell: (p) => <Num value={p.claimed} /> },
];

/** /pools: every pool's size, live, expired and claimed counts, kept live by `pools` frames. */
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
        <DataTable rows={data.pools} columns={columns} rowKey={(p) => p.name} caption="Pools" minWidth="20rem" />
      )}
    </>
  );
}
