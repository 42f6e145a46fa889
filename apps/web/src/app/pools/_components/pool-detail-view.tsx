"use client";

import { DeletedSchema, PoolDeletedSchema, PoolDetailSchema, PoolItemSchema, PoolReleasedSchema, type PoolItem } from "@fleet/schema";
import { infiniteQueryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useState, type ReactNode } from "react";

import { ItemTable } from "@/components/item-table";
import { DangerAction, DangerZone, InlineEmpty, ResultNote, Stat } from "@/components/ui-bits";
import { useDebouncedParam, useQueryState } from "@/lib/use-query-state";
import { ConfirmDialog, Countdown, CorruptBadge, ErrorState, LoadingState, PageHeader, RelativeTime, useNow, WrongTypeNote } from "@/components";
import { ApiError, apiDelete, apiGet, apiPost, errorMessage, qs, seg } from "@/lib/api";
import { absoluteTime, clockTime, formatNumber } from "@/lib/format";
import { poolPayloadLoader } from "@/lib/full-value";
import { queries, queryKeys } from "@/lib/query";
import { useSession } from "@/lib/session";

import { AvailabilityBadge, freeText } from "./availability";

const PAGE = 200;
const STATES = ["all", "claimed", "free", "expired"] as const;
type StateFilter = (typeof STATES)[number];

/**
 * The pool's items a page at a time by cursor (apps/web/README.md: a small pool by its sorted
 * ids, a large one by HSCAN, never read whole); "More items" asks for the next page. The key
 * sits under `queryKeys.pools.detail(name)` so `pools` frames refresh the pages shown.
 */
function poolPages(name: string) {
  return infiniteQueryOptions({
    queryKey: [...queryKeys.pools.detail(name), { limit: PAGE, by: "cursor" }] as const,
    queryFn: ({ signal, pageParam }) => apiGet(`/pools/${seg(name)}${qs({ limit: PAGE, cursor: pageParam })}`, PoolDetailSchema, signal),
    initialPageParam: "0",
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

/** Tags as one line of text: `site=forum.example · region=ap`. */
export function tagsText(tags: PoolItem["tags"]): string {
  if (!tags) return "";
  return Object.entries(tags)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" · ");
}

function isExpired(i: PoolItem, now: number): boolean {
  return i.expired === true || (i.expires_at !== null && i.expires_at <= now);
}
function isClaimed(i: PoolItem, now: number): boolean {
  return i.in_use_until !== null && i.in_use_until > now;
}

function Tags({ item }: { item: PoolItem }) {
  if (item.corrupt?.includes("tags")) return <CorruptBadge label="tags corrupt" />;
  const entries = Object.entries(item.tags ?? {});
  if (entries.length === 0) return <span className="text-slate-400">—</span>;
  return (
    <ul className="flex max-w-[28rem] flex-wrap gap-1 md:min-w-[18rem] xl:min-w-[22rem]" aria-label="Tags">
      {entries.map(([k, v]) => (
        <li key={k} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs break-all text-slate-700 dark:bg-slate-800 dark:text-slate-300">
          {k}={typeof v === "string" ? v : JSON.stringify(v)}
        </li>
      ))}
    </ul>
  );
}

function Expiry({ item }: { item: PoolItem }) {
  const now = useNow();
  if (item.corrupt?.includes("expires_at")) return <span className="text-slate-500 italic">unknown</span>;
  if (item.expires_at === null) return <span className="text-slate-500">never</span>;
  const expired = now !== null && isExpired(item, now);
  return (
    <span className="flex flex-wrap items-center gap-1.5">
      <RelativeTime at={item.expires_at} className="tabular-nums" />
      {expired && <span className="rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-950 dark:text-amber-300">expired</span>}
    </span>
  );
}

function Claim({ item }: { item: PoolItem }) {
  const now = useNow();
  if (item.in_use_until === null) return <span className="text-slate-500">free</span>;
  if (now !== null && item.in_use_until <= now) {
    return (
      <span className="text-slate-500">
        free{" "}
        <span className="text-xs">
          (lease ended <RelativeTime at={item.in_use_until} />)
        </span>
      </span>
    );
  }
  return (
    <span className="flex flex-col gap-0.5" data-testid="claim-countdown">
      <span className="flex items-center gap-1.5 whitespace-nowrap">
        <span className="rounded bg-sky-100 px-1.5 py-0.5 text-xs font-medium text-sky-800 dark:bg-sky-950 dark:text-sky-300">in use</span>
        <Countdown to={item.in_use_until} />
      </span>
      <span className="text-xs whitespace-nowrap text-slate-600 dark:text-slate-400" data-testid="claimed-until" title={absoluteTime(item.in_use_until)}>
        claimed until {clockTime(item.in_use_until)}
      </span>
    </span>
  );
}

/** Says the payload or tags hold something that looks secret, masked (or revealed by this operator). */
function SecretBadge({ item, revealed }: { item: PoolItem; revealed: boolean }) {
  if (revealed)
    return (
      <span data-testid="secret-revealed" className="w-fit rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-950 dark:text-amber-200">
        secrets shown
      </span>
    );
  if (!item.masked) return null;
  return (
    <span
      data-testid="secret-masked"
      className="w-fit rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-300"
      title={`Masked: ${item.masked.join(", ")}`}
    >
      secrets masked
    </span>
  );
}

type Ask = { kind: "release" | "remove"; item: PoolItem } | { kind: "pool" };

/** /pools/{name}: items with tags, expiry, claim lease; release, remove, remove the pool. */
export function PoolDetailView({ name }: { name: string }) {
  const [sp, setParams] = useQueryState();
  const stateParam = sp.get("state");
  const stateFilter: StateFilter = (STATES as readonly string[]).includes(stateParam ?? "") ? (stateParam as StateFilter) : "all";
  const q = sp.get("q") ?? "";
  const [search, setSearch] = useDebouncedParam(q, (v) => setParams({ q: v }));
  const client = useQueryClient();
  const router = useRouter();
  const now = useNow();
  const session = useSession();
  const canOperate = session.can("operator");
  const canAdmin = session.can("admin");
  const pages = useInfiniteQuery(poolPages(name));
  const { error, isPending, refetch } = pages;
  const data = pages.data?.pages[0];
  const summary = useQuery(queries.pools()).data?.pools.find((p) => p.name === name);
  const [ask, setAsk] = useState<Ask | null>(null);
  // Items an operator revealed on this page: kept in memory only, gone on reload.
  const [revealed, setRevealed] = useState<Map<string, PoolItem>>(() => new Map());
  const revealItem = useMutation({
    mutationFn: (item: PoolItem) => apiPost(`/pools/${seg(name)}/items/${seg(item.id)}/reveal${qs({ preview_bytes: 65536 })}`, PoolItemSchema),
    onSuccess: (item) => setRevealed((m) => new Map(m).set(item.id, item)),
  });
  const [note, setNote] = useState<{ kind: "ok" | "warn"; text: string } | null>(null);

  const openAsk = (a: Ask) => {
    action.reset();
    setAsk(a);
  };
  const action = useMutation({
    mutationFn: async (a: Ask) => {
      if (a.kind === "release") {
        const r = await apiPost(`/pools/${seg(name)}/items/${seg(a.item.id)}/release`, PoolReleasedSchema);
        return { a, text: r.released ? `Released the claim on ${a.item.id}.` : `${a.item.id} had no claim to release.`, ok: r.released };
      }
      if (a.kind === "remove") {
        await apiDelete(`/pools/${seg(name)}/items/${seg(a.item.id)}`, DeletedSchema);
        return { a, text: `Removed ${a.item.id} from the pool.`, ok: true };
      }
      const r = await apiDelete(`/pools/${seg(name)}`, PoolDeletedSchema);
      return { a, text: "", ok: r.deleted, items: r.items };
    },
    onSuccess: (r) => {
      setAsk(null);
      if (r.a.kind === "pool") {
        void client.invalidateQueries({ queryKey: queryKeys.pools.all });
        router.push(`/pools${qs({ removed: name, items: r.items ?? 0 })}`);
        return;
      }
      setNote({ kind: r.ok ? "ok" : "warn", text: r.text });
    },
    onSettled: (r) => {
      if (r?.a.kind !== "pool") void client.invalidateQueries({ queryKey: queryKeys.pools.all });
    },
  });

  // HSCAN pages may repeat an item written while paging: each id once
  const items = useMemo(() => {
    const seen = new Set<string>();
    const out: PoolItem[] = [];
    for (const page of pages.data?.pages ?? []) {
      for (const i of page.items) {
        if (seen.has(i.id)) continue;
        seen.add(i.id);
        out.push(revealed.get(i.id) ?? i);
      }
    }
    return out;
  }, [pages.data, revealed]);
  const rows = useMemo(() => {
    const needle = q.toLowerCase();
    const t = now ?? Date.now() / 1000;
    return items.filter((i) => {
      if (stateFilter === "claimed" && !isClaimed(i, t)) return false;
      if (stateFilter === "free" && (isClaimed(i, t) || isExpired(i, t))) return false;
      if (stateFilter === "expired" && !isExpired(i, t)) return false;
      return needle === "" || i.id.toLowerCase().includes(needle) || tagsText(i.tags).toLowerCase().includes(needle);
    });
    // `now` ticks every second; re-filtering that often keeps the claimed/expired split honest.
  }, [items, q, stateFilter, now]);

  const total = data?.total ?? summary?.size ?? 0;
  const header = <PageHeader title={name} breadcrumbs={[{ href: "/pools", label: "Pools" }]} description="Items with their tags, expiry and claim lease, live." />;

  // Release and remove need the operator role; viewers get no actions column.
  const actionsColumn: { header: ReactNode; cell: (row: PoolItem) => ReactNode } | undefined = canOperate
    ? {
        header: <span className="sr-only">Actions</span>,
        cell: (i) => (
          <span className="inline-flex flex-wrap gap-1">
            {revealed.has(i.id) ? (
              <button
                type="button"
                className="btn text-xs"
                aria-label={`Hide the secrets of ${i.id}`}
                onClick={() =>
                  setRevealed((m) => {
                    const next = new Map(m);
                    next.delete(i.id);
                    return next;
                  })
                }
              >
                Hide
              </button>
            ) : (
              i.masked && (
                <button
                  type="button"
                  className="btn text-xs"
                  aria-label={`Reveal the secrets of ${i.id}`}
                  disabled={revealItem.isPending}
                  onClick={() => revealItem.mutate(i)}
                  title="Shows the masked values of this item; recorded in the audit trail"
                >
                  Reveal
                </button>
              )
            )}
            {i.in_use_until !== null && (
              <button type="button" className="btn text-xs" aria-label={`Release ${i.id}`} onClick={() => openAsk({ kind: "release", item: i })}>
                Release
              </button>
            )}
            <button type="button" className="btn text-xs" aria-label={`Remove ${i.id}`} onClick={() => openAsk({ kind: "remove", item: i })}>
              Remove
            </button>
          </span>
        ),
      }
    : undefined;

  let body: ReactNode;
  if (isPending) body = <LoadingState label="Loading the pool…" />;
  else if (error)
    body = (
      <>
        <ErrorState
          error={error}
          title={error instanceof ApiError && error.status === 404 ? `There is no pool named “${name}”` : undefined}
          onRetry={error instanceof ApiError && error.status === 404 ? undefined : () => void refetch()}
        />
        <p className="mt-4 text-sm">
          <Link href="/pools" className="link">
            Back to every pool
          </Link>
        </p>
      </>
    );
  else
    body = (
      <>
        <WrongTypeNote parts={data?.corrupt ?? summary?.corrupt} what="pool" />
        <dl className="grid grid-cols-2 gap-2 sm:grid-cols-5" aria-label="Pool counts">
          <div className="col-span-2 min-w-0 rounded-lg border border-slate-200 bg-white px-3 py-2 sm:col-span-1 dark:border-slate-800 dark:bg-slate-900" data-testid="pool-free">
            <dt className="truncate text-xs font-medium tracking-wide uppercase opacity-75">Free</dt>
            <dd className="mt-0.5 flex flex-wrap items-center gap-2 text-xl font-semibold tabular-nums">
              {summary ? freeText(summary) : "—"}
              {summary && <AvailabilityBadge pool={summary} />}
            </dd>
            <dd className="text-xs opacity-75">{summary?.estimated ? `estimated from ${formatNumber(summary.estimated.sampled)} sampled items` : "live, not claimed"}</dd>
          </div>
          <Stat label="Size" value={summary?.size ?? total} />
          <Stat label="Live" value={summary?.live ?? null} />
          <Stat label="Expired" value={summary?.expired ?? null} tone="warn" />
          <Stat label="Claimed" value={summary?.claimed ?? null} />
        </dl>
        {revealItem.error && (
          <div className="mt-4">
            <ResultNote kind="error" onDismiss={() => revealItem.reset()}>
              Could not reveal the item: {errorMessage(revealItem.error)}
            </ResultNote>
          </div>
        )}
        {note && (
          <div className="mt-4">
            <ResultNote kind={note.kind} onDismiss={() => setNote(null)}>
              {note.text}
            </ResultNote>
          </div>
        )}
        <div className="mt-6 mb-3 flex flex-wrap items-center gap-3">
          <label className="flex w-full items-center gap-2 text-sm sm:w-auto">
            <span className="shrink-0">Search</span>
            <input type="search" className="field w-full sm:w-64" placeholder="id or tag" value={search} onChange={(e) => setSearch(e.target.value)} />
          </label>
          <label className="flex items-center gap-2 text-sm">
            Show
            <select className="field" value={stateFilter} onChange={(e) => setParams({ state: e.target.value === "all" ? null : e.target.value })}>
              <option value="all">all items</option>
              <option value="claimed">claimed</option>
              <option value="free">free (live, unclaimed)</option>
              <option value="expired">expired</option>
            </select>
          </label>
          <span className="ml-auto text-sm text-slate-500 dark:text-slate-400" data-testid="pool-loaded">
            {rows.length === items.length
              ? `${formatNumber(items.length)} item${items.length === 1 ? "" : "s"}`
              : `${formatNumber(rows.length)} of ${formatNumber(items.length)} items`}
            {total > items.length
              ? ` (${formatNumber(items.length)} of ${formatNumber(total)} loaded${q || stateFilter !== "all" ? "; the search and filter look at these" : ""})`
              : ""}
          </span>
        </div>
        <ItemTable<PoolItem>
          rows={rows}
          caption={`Items of pool ${name}`}
          rowKey={(i) => i.id}
          rowName={(i) => `item ${i.id}`}
          payload={(i) => i.payload}
          loadFull={(i, _index, v) => poolPayloadLoader(name, i.id, v)}
          fileName={(i) => `${name}-${i.id}`}
          // Expired rows tinted, not faded: an opacity took their text below WCAG contrast (pnpm screenshots' note).
          rowClassName={(i) => (now !== null && isExpired(i, now) ? "bg-amber-50/60 dark:bg-amber-950/20" : "")}
          columns={[
            {
              id: "id",
              header: "Item",
              cell: (i) => (
                <span className="flex flex-col gap-1">
                  <code className="block max-w-[12rem] truncate font-mono text-xs" title={i.id}>
                    {i.id}
                  </code>
                  {i.corrupt && i.corrupt.length > 0 && <CorruptBadge fields={i.corrupt} />}
                  <SecretBadge item={i} revealed={revealed.has(i.id)} />
                </span>
              ),
            },
            { id: "tags", header: "Tags", cell: (i) => <Tags item={i} /> },
            { id: "expires", header: "Expires", className: "whitespace-nowrap", cell: (i) => <Expiry item={i} />, hideOnMobile: true },
            { id: "claim", header: "Claim", className: "whitespace-nowrap", cell: (i) => <Claim item={i} /> },
          ]}
          trailing={actionsColumn}
          empty={
            <InlineEmpty>
              {items.length > 0
                ? `No item matches the search or filter${pages.hasNextPage ? " among those loaded" : ""}.`
                : pages.hasNextPage
                  ? "No items in this stretch of the pool yet: More items reads on."
                  : "This pool has no items."}
            </InlineEmpty>
          }
        />
        {pages.hasNextPage && (
          <div className="mt-3 flex flex-wrap items-center gap-3">
            <button type="button" className="btn" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
              {pages.isFetchingNextPage ? "Loading…" : "More items"}
            </button>
            <span className="text-sm text-slate-500 tabular-nums dark:text-slate-400">
              {formatNumber(items.length)} of {formatNumber(total)} loaded
            </span>
          </div>
        )}
      </>
    );

  const dialog =
    ask?.kind === "pool"
      ? {
          title: `Remove pool “${name}” and its ${formatNumber(total)} item${total === 1 ? "" : "s"}?`,
          confirm: `Remove ${formatNumber(total)} item${total === 1 ? "" : "s"}`,
          text: `Every item of ${name} and every claim on them are deleted. Workers that need the pool will find it empty. This cannot be undone.`,
          destructive: true,
        }
      : ask?.kind === "remove"
        ? {
            title: `Remove item ${ask.item.id}?`,
            confirm: "Remove 1 item",
            text: `The item and its claim are deleted from ${name}.${isClaimed(ask.item, now ?? 0) ? " A worker holds it right now." : ""}`,
            destructive: true,
          }
        : ask?.kind === "release"
          ? {
              title: `Release the claim on ${ask.item.id}?`,
              confirm: "Release",
              text: "The item becomes free for another worker to claim, even if its current holder is still using it.",
              destructive: false,
            }
          : null;

  return (
    <>
      {header}
      {body}
      {data && total > 0 && canAdmin && (
        <DangerZone id="pool-danger">
          <DangerAction text={`Remove the pool ${name}: every one of its ${formatNumber(total)} item${total === 1 ? "" : "s"} and every claim on them.`}>
            <button type="button" className="btn-danger" onClick={() => openAsk({ kind: "pool" })}>
              Remove whole pool
            </button>
          </DangerAction>
        </DangerZone>
      )}
      <ConfirmDialog
        open={ask !== null}
        title={dialog?.title ?? ""}
        confirmLabel={dialog?.confirm ?? ""}
        destructive={dialog?.destructive ?? true}
        busy={action.isPending}
        error={action.error ? errorMessage(action.error) : undefined}
        onConfirm={() => ask && action.mutate(ask)}
        onCancel={() => setAsk(null)}
      >
        {dialog?.text}
      </ConfirmDialog>
    </>
  );
}
