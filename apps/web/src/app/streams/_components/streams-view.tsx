"use client";

import type { StreamSummary } from "@fleet/schema";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";

import { Num } from "@/components/ui-bits";
import { CorruptBadge, DataTable, EmptyState, ErrorState, LoadingState, PageHeader, RelativeTime, type Column } from "@/components";
import { queries } from "@/lib/query";

export function streamHref(name: string): string {
  return `/streams/${encodeURIComponent(name)}`;
}

// Phones: the name takes what the entry count and the newest entry's age leave.
const columns: Column<StreamSummary>[] = [
  {
    id: "name",
    header: "Stream",
    className: "sm:w-64",
    cell: (s) => (
      <>
        <Link href={streamHref(s.name)} className="link block truncate font-medium" title={s.name}>
          {s.name}
        </Link>
        {s.corrupt && <CorruptBadge fields={s.corrupt} />}
      </>
    ),
  },
  { id: "length", header: "Entries", className: "w-20 text-right sm:w-24", cell: (s) => <Num value={s.length} /> },
  { id: "oldest", header: "Oldest", className: "w-36", hideOnMobile: true, cell: (s) => <RelativeTime at={s.oldest} /> },
  { id: "newest", header: "Newest", className: "w-28 sm:w-36", cell: (s) => <RelativeTime at={s.newest} /> },
];

/** /streams: every output stream's length and age, kept live by `streams` frames. */
export function StreamsView() {
  const { data, error, isPending, refetch } = useQuery(queries.streams());
  return (
    <>
      <PageHeader title="Streams" description="What automations emit: each stream's length and its oldest and newest entries, live." />
      {isPending ? (
        <LoadingState label="Loading streams…" />
      ) : error ? (
        <ErrorState error={error} onRetry={() => void refetch()} />
      ) : data.streams.length === 0 ? (
        <EmptyState title="No streams">A stream appears here when an automation emits its first result.</EmptyState>
      ) : (
        <DataTable rows={data.streams} columns={columns} rowKey={(s) => s.name} caption="Streams" minWidth="20rem" />
      )}
    </>
  );
}
