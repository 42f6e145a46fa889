"use client";

import { StreamDetailSchema, type RawValue, type StreamDetail } from "@fleet/schema";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { ItemTable, useNarrow } from "@/components/item-table";
import { bodyField, PayloadPreview } from "@/components/payload-preview";
import { RawValueView } from "@/components/raw-value-view";
import { InlineEmpty, LimitSelect, Stat } from "@/components/ui-bits";
import { intParam, useQueryState } from "@/lib/use-query-state";
import { ErrorState, LoadingState, PageHeader, RelativeTime, WrongTypeNote } from "@/components";
import { ApiError, apiGet, qs, seg } from "@/lib/api";
import { clockTime, formatNumber } from "@/lib/format";
import { streamEntryLoader } from "@/lib/full-value";
import { useLiveSubscription, type LiveFrames } from "@/lib/live";
import { queries } from "@/lib/query";

type Entry = StreamDetail["entries"][number];
/** New entries stay highlighted this long. */
const FRESH_MS = 4_000;
/** Frames and bus bursts (one message per emit) refetch at most this often. */
const REFETCH_MS = 1_000;

function entryKey(e: Entry): string {
  return `${e.score}:${e.envelope.bytes}:${e.envelope.base64.slice(-24)}`;
}

function entryName(e: Entry): string {
  return `the entry of ${clockTime(e.score)}`;
}

/**
 * Phones: two lines an entry (when and who, then the data preview) with the envelope one
 * tap away. ItemTable's phone cards (a card with a label per column) made 100 entries
 * about 13,000 px tall.
 */
function CompactEntries({
  name,
  order,
  entries,
  caption,
  fresh,
}: {
  name: string;
  order: "newest" | "oldest";
  entries: readonly Entry[];
  caption: string;
  fresh: ReadonlySet<string>;
}) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const fulls = useRef(new Map<string, RawValue>());
  const toggle = (k: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  return (
    <ul aria-label={caption} className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900/40">
      {entries.map((e, i) => {
        const k = entryKey(e);
        const isOpen = open.has(k);
        const worker = bodyField(e.envelope, "worker_id");
        return (
          <li key={k} className={`px-3 py-1.5 ${fresh.has(k) ? "bg-emerald-50 transition-colors dark:bg-emerald-950/30" : "transition-colors"}`}>
            <div className="flex items-center gap-2">
              <div className="min-w-0 flex-1">
                <div className="flex min-w-0 items-baseline gap-1.5 text-xs text-slate-600 dark:text-slate-400">
                  <RelativeTime at={e.score} className="shrink-0 font-medium text-slate-800 tabular-nums dark:text-slate-200" />
                  <span className="shrink-0 tabular-nums">{clockTime(e.score)}</span>
                  {worker && (
                    <span className="min-w-0 truncate font-mono" title={worker}>
                      · {worker}
                    </span>
                  )}
                </div>
                <PayloadPreview value={e.envelope} field="data" className="mt-0.5" />
              </div>
              <button
                type="button"
                className="btn-ghost shrink-0 text-xs"
                aria-expanded={isOpen}
                aria-label={`${isOpen ? "Hide" : "Show"} message of ${entryName(e)}`}
                onClick={() => toggle(k)}
              >
                {isOpen ? "Hide" : "Show"}
              </button>
            </div>
            {isOpen && (
              <RawValueView
                value={e.envelope}
                label="message"
                loadFull={e.envelope.truncated ? streamEntryLoader(name, order, i, e.score, e.envelope) : undefined}
                fileName={`${name}-${e.score}`}
                initialFull={fulls.current.get(k) ?? null}
                onFullValue={(f) => {
                  if (f) fulls.current.set(k, f);
                  else fulls.current.delete(k);
                }}
                className="mt-1.5 mb-1"
              />
            )}
          </li>
        );
      })}
    </ul>
  );
}

function EntryTime({ score }: { score: number }) {
  return (
    <span className="flex flex-col whitespace-nowrap">
      <RelativeTime at={score} className="tabular-nums" />
      <span className="text-xs text-slate-500 tabular-nums dark:text-slate-400">{clockTime(score)}</span>
    </span>
  );
}

/** /streams/{name}: entries newest (or oldest) first with a live, pausable tail. */
export function StreamDetailView({ name }: { name: string }) {
  const [sp, setParams] = useQueryState();
  const order = sp.get("order") === "oldest" ? "oldest" : "newest";
  const limit = intParam(sp, "limit", 100, 1000);
  const [paused, setPaused] = useState(false);

  // The tail owns its refetches (key outside `queryKeys.streams.detailAll`, which every
  // `streams` frame invalidates with cancelRefetch): under a steady emit rate a fetch slower
  // than the frame period would be cancelled again and again and the tail would freeze.
  // A paused tail keeps what it shows: the query stops fetching.
  const { data, error, isPending, refetch } = useQuery({
    queryKey: ["streams", "tail", name, limit, order] as const,
    queryFn: ({ signal }) => apiGet(`/streams/${seg(name)}${qs({ limit, order })}`, StreamDetailSchema, signal),
    enabled: !paused,
    staleTime: 0,
  });
  const summary = useQuery(queries.streams()).data?.streams.find((s) => s.name === name);

  const refetchTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const scheduleRefetch = useCallback(() => {
    if (pausedRef.current || refetchTimer.current !== null) return;
    refetchTimer.current = setTimeout(() => {
      refetchTimer.current = null;
      if (!pausedRef.current) void refetch({ cancelRefetch: false });
    }, REFETCH_MS);
  }, [refetch]);
  useEffect(
    () => () => {
      if (refetchTimer.current !== null) clearTimeout(refetchTimer.current);
    },
    [],
  );

  // `<name>.emit` bus messages announce entries before the change detector's next `streams` frame.
  const [busSeen, setBusSeen] = useState(0);
  const onBus = useCallback(
    (ev: LiveFrames["bus"]) => {
      if (ev.topic !== `${name}.emit`) return;
      setBusSeen((n) => n + 1);
      scheduleRefetch();
    },
    [name, scheduleRefetch],
  );
  useLiveSubscription("bus", onBus);
  const onStreams = useCallback(
    (ev: LiveFrames["streams"]) => {
      if (ev.streams.some((s) => s.name === name) || ev.removed?.includes(name)) scheduleRefetch();
    },
    [name, scheduleRefetch],
  );
  useLiveSubscription("streams", onStreams);

  // While paused, count what arrived so the resume button can say so.
  const [busAtPause, setBusAtPause] = useState(0);
  const lengthAtPause = useRef<number | null>(null);
  const pause = () => {
    lengthAtPause.current = data?.length ?? null;
    setBusAtPause(busSeen);
    setPaused(true);
  };
  const resume = () => {
    setPaused(false);
    void refetch();
  };
  const liveLength = summary?.length;
  // The stream's length (from `streams` frames) is exact; bus messages are the fallback count.
  const newWhilePaused = !paused ? 0 : lengthAtPause.current !== null && liveLength !== undefined ? Math.max(0, liveLength - lengthAtPause.current) : busSeen - busAtPause;

  // Highlight entries that were not in the previous answer (not on the first load of a view).
  const prevKeys = useRef<Set<string> | null>(null);
  const viewId = `${name}\u0000${order}\u0000${limit}`;
  const prevView = useRef(viewId);
  const freshTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    if (!data) return;
    const keys = new Set(data.entries.map(entryKey));
    const prev = prevView.current === viewId ? prevKeys.current : null;
    prevKeys.current = keys;
    prevView.current = viewId;
    if (prev === null) return;
    const added = [...keys].filter((k) => !prev.has(k));
    if (added.length === 0) return;
    setFresh(new Set(added));
    // Not an effect cleanup: a refetch with nothing new must not keep the highlight forever.
    if (freshTimer.current !== null) clearTimeout(freshTimer.current);
    freshTimer.current = setTimeout(() => setFresh(new Set()), FRESH_MS);
  }, [data, viewId]);
  useEffect(
    () => () => {
      if (freshTimer.current !== null) clearTimeout(freshTimer.current);
    },
    [],
  );

  const entries = useMemo(() => data?.entries ?? [], [data]);
  const length = data?.length ?? summary?.length ?? 0;

  const narrow = useNarrow();
  const caption = `Entries of stream ${name}, ${order} first`;
  const emptyNote = <InlineEmpty>The stream is empty. Entries appear here as automations emit them.</InlineEmpty>;

  const header = (
    <PageHeader
      title={name}
      breadcrumbs={[{ href: "/streams", label: "Streams" }]}
      description="Entries as automations emit them; the tail follows new ones live."
      actions={
        <>
          <div role="group" aria-label="Order" className="inline-flex overflow-hidden rounded-md border border-slate-300 dark:border-slate-700">
            {(["newest", "oldest"] as const).map((o) => (
              <button
                key={o}
                type="button"
                aria-pressed={order === o}
                onClick={() => setParams({ order: o === "newest" ? null : o })}
                className={`px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-sky-500 ${
                  order === o
                    ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900"
                    : "bg-white text-slate-700 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-200 dark:hover:bg-slate-800"
                }`}
              >
                {o === "newest" ? "Newest first" : "Oldest first"}
              </button>
            ))}
          </div>
          <LimitSelect label="Show" value={limit} onChange={(l) => setParams({ limit: l })} />
          {paused ? (
            <button type="button" className="btn-primary" onClick={resume}>
              <span aria-hidden>▶ </span>
              Resume{newWhilePaused > 0 ? ` (${formatNumber(newWhilePaused)} new)` : ""}
            </button>
          ) : (
            <button type="button" className="btn" onClick={pause} disabled={!data}>
              <span aria-hidden>❚❚ </span>
              Pause
            </button>
          )}
        </>
      }
    />
  );

  if (isPending && !paused)
    return (
      <>
        {header}
        <LoadingState label="Loading entries…" />
      </>
    );
  if (error) {
    const notFound = error instanceof ApiError && error.status === 404;
    return (
      <>
        {header}
        <ErrorState error={error} title={notFound ? `There is no stream named “${name}”` : undefined} onRetry={notFound ? undefined : () => void refetch()} />
        <p className="mt-4 text-sm">
          <Link href="/streams" className="link">
            Back to every stream
          </Link>
        </p>
      </>
    );
  }

  return (
    <>
      {header}
      <WrongTypeNote parts={data?.corrupt ?? summary?.corrupt} what="stream" />
      <dl className="grid grid-cols-3 gap-2 sm:max-w-2xl" aria-label="Stream summary">
        <Stat label="Entries" value={length} />
        <div className="rounded-lg border border-slate-200 bg-white px-3 py-2 dark:border-slate-800 dark:bg-slate-900">
          <dt className="text-xs font-medium tracking-wide uppercase opacity-75">Oldest</dt>
          <dd className="mt-0.5 text-base font-semibold sm:text-xl">
            <RelativeTime at={summary?.oldest} />
          </dd>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white px-3 py-2 dark:border-slate-800 dark:bg-slate-900">
          <dt className="text-xs font-medium tracking-wide uppercase opacity-75">Newest</dt>
          <dd className="mt-0.5 text-base font-semibold sm:text-xl">
            <RelativeTime at={summary?.newest} />
          </dd>
        </div>
      </dl>
      {order === "oldest" && (
        <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">
          Oldest first: new entries arrive at the end, beyond this page. Switch to newest first to watch them come in.
        </p>
      )}
      <div className="mt-6 mb-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-slate-600 dark:text-slate-400">
        <span>{entries.length < length ? `The ${order} ${formatNumber(entries.length)} of ${formatNumber(length)} entries` : `${formatNumber(length)} entries`}</span>
        {/* The header's indicator says whether the console is live; this says what only this page knows. */}
        <span aria-live="polite" className="flex items-center gap-1.5">
          {paused && (
            <>
              <span aria-hidden className="inline-block size-2 rounded-full bg-amber-500" />
              <span className="font-medium text-amber-800 dark:text-amber-300">
                Paused{newWhilePaused > 0 ? `: ${formatNumber(newWhilePaused)} new since` : ": the list holds still until you resume"}
              </span>
            </>
          )}
        </span>
      </div>
      {narrow ? (
        entries.length === 0 ? (
          emptyNote
        ) : (
          <CompactEntries name={name} order={order} entries={entries} caption={caption} fresh={fresh} />
        )
      ) : (
        <ItemTable<Entry>
          rows={entries}
          caption={caption}
          rowKey={entryKey}
          rowName={entryName}
          payload={(e) => e.envelope}
          payloadLabel="message"
          loadFull={(e, i, v) => streamEntryLoader(name, order, i, e.score, v)}
          fileName={(e) => `${name}-${e.score}`}
          previewField="data"
          rowClassName={(e) => (fresh.has(entryKey(e)) ? "bg-emerald-50 transition-colors dark:bg-emerald-950/30" : "transition-colors")}
          columns={[
            { id: "time", header: "Time", cell: (e) => <EntryTime score={e.score} /> },
            {
              id: "worker",
              header: "Worker",
              hideOnMobile: true,
              cell: (e) => {
                const w = bodyField(e.envelope, "worker_id");
                return w ? (
                  <span className="block max-w-[12rem] truncate font-mono text-xs" title={w}>
                    {w}
                  </span>
                ) : (
                  <span className="text-slate-400">—</span>
                );
              },
            },
          ]}
          empty={emptyNote}
        />
      )}
    </>
  );
}
