"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { AuditListSchema, type AuditItem, type AuditOutcome } from "@fleet/schema";

import { CorruptBadge, EmptyState, ErrorState, JsonView, LoadingState, PageHeader, RelativeTime } from "@/components";
import { apiGet, qs } from "@/lib/api";
import { auditSentence, viaText } from "@/lib/audit-sentence";
import { formatNumber } from "@/lib/format";
import { auditEntryId, revertableFleet, revertableWorker, stashFleetRevert, stashRevert } from "@/lib/revert";
import { useSession } from "@/lib/session";

const PAGE = 50;
const FILTERS = ["actor", "action", "target"] as const;
type Filter = (typeof FILTERS)[number];

const OUTCOME_LABEL: Partial<Record<AuditOutcome, { text: string; title: string; className: string }>> = {
  refused: {
    text: "refused",
    title: "The console refused this request; nothing was changed.",
    className: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  },
  suppressed: {
    text: "not all listed",
    title: "Too many refusals of one actor within a minute: the rest were counted, not listed.",
    className: "bg-slate-200 text-slate-800 dark:bg-slate-800 dark:text-slate-200",
  },
  pending: {
    text: "outcome unknown",
    title: "Written before the change; its outcome was never recorded (Redis went away, or the console stopped). The change may or may not have been made.",
    className: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  },
  failed: {
    text: "failed",
    title: "The change failed part way and may be incomplete.",
    className: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  },
};

function Entry({ item }: { item: AuditItem }) {
  const router = useRouter();
  const revert = revertableWorker(item);
  const fleetRevert = revert ? null : revertableFleet(item);
  const outcome = item.outcome === undefined ? undefined : OUTCOME_LABEL[item.outcome];
  const via = viaText(item.via);
  // Corrupt entries (not a JSON object) have no action to put in words: their raw text is the entry.
  const sentence = item.raw === undefined ? auditSentence(item) : null;
  return (
    <li className="px-3 py-2.5" data-testid="audit-entry">
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1 text-sm">
        <span className="w-28 shrink-0 text-slate-500 dark:text-slate-400">{item.ts !== null ? <RelativeTime at={item.ts} /> : "time unknown"}</span>
        <p className="min-w-0 flex-1 basis-64 break-words" data-testid="audit-sentence">
          <span className="font-semibold">{item.actor ?? "unknown"}</span> {sentence ?? "wrote an entry that is not readable"}
          {via && <span className="text-slate-500 dark:text-slate-400"> ({via})</span>}
        </p>
        {item.role && item.role !== "none" && <span className="rounded bg-slate-200 px-1.5 py-0.5 text-xs dark:bg-slate-800">{item.role}</span>}
        {outcome && (
          <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${outcome.className}`} title={outcome.title} data-testid="audit-outcome">
            {outcome.text}
          </span>
        )}
        {item.corrupt && <CorruptBadge fields={item.corrupt} />}
        {revert && (
          <button
            type="button"
            className="btn text-xs"
            aria-label={`Revert ${revert.workerId} to its config before this change`}
            title="Opens the worker's config with the values before this change, for review; nothing is saved until you confirm"
            onClick={() => router.push(stashRevert({ ...revert, config: item.before as Record<string, unknown>, actor: item.actor, ts: item.ts, entryId: auditEntryId(item.id) }))}
          >
            Revert to before…
          </button>
        )}
        {fleetRevert && (
          <button
            type="button"
            className="btn text-xs"
            aria-label={
              (fleetRevert.kept?.total ?? fleetRevert.workers.length) === 1
                ? `Revert the worker of ${fleetRevert.automationType} to its config before this change`
                : `Revert the ${fleetRevert.kept?.total ?? fleetRevert.workers.length} workers of ${fleetRevert.automationType} to their config before this change`
            }
            title="Opens the automation's page with each worker's config before this change, for review; nothing is saved until you confirm"
            onClick={() => router.push(stashFleetRevert({ ...fleetRevert, actor: item.actor, ts: item.ts, entryId: auditEntryId(item.id) }))}
          >
            Revert to before…
          </button>
        )}
      </div>
      <details className="mt-1.5 text-sm sm:ml-31">
        <summary className="cursor-pointer text-xs text-slate-600 dark:text-slate-400">
          Raw request{item.before !== undefined || item.changes !== undefined ? ", config before / after" : ""}
        </summary>
        <div className="mt-2 grid gap-3">
          <p className="flex flex-wrap items-baseline gap-x-2 gap-y-1 text-xs">
            <code className="rounded bg-sky-50 px-1.5 py-0.5 text-sky-900 dark:bg-sky-950 dark:text-sky-100">{item.action ?? "?"}</code>
            <span className="min-w-0 break-all font-mono">{item.target ?? ""}</span>
            {item.via && <span className="text-slate-500 dark:text-slate-400">via {item.via}</span>}
          </p>
          {item.path && (
            <p className="font-mono text-xs break-all">
              {item.method} {item.path} → {item.status}
            </p>
          )}
          {item.raw !== undefined && <pre className="whitespace-pre-wrap break-all font-mono text-xs">{item.raw}</pre>}
          {item.details !== undefined && <JsonView value={item.details} />}
          {(item.before !== undefined || item.after !== undefined) && (
            <div className="grid gap-3 md:grid-cols-2">
              <div>
                <h3 className="mb-1 text-xs font-semibold uppercase text-slate-500 dark:text-slate-400">Before</h3>
                <JsonView value={item.before ?? null} />
              </div>
              <div>
                <h3 className="mb-1 text-xs font-semibold uppercase text-slate-500 dark:text-slate-400">After</h3>
                <JsonView value={item.after ?? null} />
              </div>
            </div>
          )}
          {item.changes !== undefined && (
            <div>
              <h3 className="mb-1 text-xs font-semibold uppercase text-slate-500 dark:text-slate-400">
                Config changes ({formatNumber(item.changes_total ?? item.changes.length)} worker{(item.changes_total ?? item.changes.length) === 1 ? "" : "s"}
                {item.changes_total !== undefined && item.changes_total > item.changes.length ? `, first ${item.changes.length} kept` : ""})
              </h3>
              <JsonView value={item.changes} expandDepth={1} />
            </div>
          )}
        </div>
      </details>
    </li>
  );
}

/** /audit: the console's audit trail, newest first, filtered by actor, action and target (in the URL). */
export function AuditView() {
  const sp = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const session = useSession();
  const applied: Record<Filter, string> = { actor: sp.get("actor") ?? "", action: sp.get("action") ?? "", target: sp.get("target") ?? "" };
  const offset = Math.max(0, Number(sp.get("offset") ?? 0) || 0);
  const [draft, setDraft] = useState(applied);
  // the URL is the truth: back/forward and deep links refill the form
  useEffect(() => setDraft({ actor: sp.get("actor") ?? "", action: sp.get("action") ?? "", target: sp.get("target") ?? "" }), [sp]);

  const allowed = session.can("admin");
  const { data, error, isPending, isFetching, refetch } = useQuery({
    queryKey: ["audit", applied, offset],
    queryFn: ({ signal }) => apiGet(`/audit${qs({ ...applied, limit: PAGE, offset })}`, AuditListSchema, signal),
    placeholderData: keepPreviousData,
    enabled: allowed,
    refetchInterval: 10_000,
  });

  const go = (next: Partial<Record<Filter | "offset", string>>) => {
    const params = new URLSearchParams(sp.toString());
    for (const [k, v] of Object.entries(next)) {
      if (v) params.set(k, v);
      else params.delete(k);
    }
    const s = params.toString();
    router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    go({ ...draft, offset: "" });
  };
  const anyFilter = FILTERS.some((f) => applied[f] !== "");

  return (
    <>
      <PageHeader title="Audit trail" description="Every change made through this console: who, when, what and on which target; config changes with the value before and after." />
      {!allowed ? (
        <EmptyState title="Only admins can read the audit trail">Ask an admin, or sign in as one.</EmptyState>
      ) : (
        <>
          <form onSubmit={submit} className="mb-4 grid gap-3 sm:grid-cols-[1fr_1fr_1fr_auto] sm:items-end" role="search" aria-label="Filter the audit trail">
            <label className="grid gap-1 text-sm font-medium">
              Actor
              <input className="field" value={draft.actor} onChange={(e) => setDraft({ ...draft, actor: e.target.value })} placeholder="alice" />
            </label>
            <label className="grid gap-1 text-sm font-medium">
              Action
              <input className="field" value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })} placeholder="dead.requeue, worker" />
            </label>
            <label className="grid gap-1 text-sm font-medium">
              Target
              <input className="field" value={draft.target} onChange={(e) => setDraft({ ...draft, target: e.target.value })} placeholder="queue:jobs" />
            </label>
            <div className="flex gap-2">
              <button type="submit" className="btn-primary">
                Filter
              </button>
              {anyFilter && (
                <button type="button" className="btn-ghost" onClick={() => go({ actor: "", action: "", target: "", offset: "" })}>
                  Clear
                </button>
              )}
            </div>
          </form>
          {isPending ? (
            <LoadingState label="Loading the audit trail…" />
          ) : error ? (
            <ErrorState error={error} onRetry={() => void refetch()} />
          ) : data.items.length === 0 ? (
            <EmptyState title={anyFilter ? "No entry matches these filters" : "Nothing has been changed yet"}>
              {anyFilter ? "Clear a filter to see more." : "Requeues, deletions, task submissions and config writes made through the console appear here."}
            </EmptyState>
          ) : (
            <>
              <p className="mb-2 text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
                {offset === 0 && data.items.length === data.total
                  ? `${formatNumber(data.total)} entr${data.total === 1 ? "y" : "ies"}`
                  : `${formatNumber(offset + 1)}–${formatNumber(offset + data.items.length)} of ${formatNumber(data.total)} entries`}
                {isFetching ? " · refreshing…" : ""}
              </p>
              {/* One list, rows divided: a trail reads down a column, not as a stack of cards. */}
              <ol className="card divide-y divide-slate-200 p-0 dark:divide-slate-800" aria-label="Audit entries, newest first">
                {data.items.map((item, i) => (
                  <Entry key={`${offset + i}-${item.ts ?? ""}`} item={item} />
                ))}
              </ol>
              {/* Paging only when there is more than one page. */}
              {data.total > PAGE && (
                <nav aria-label="Pages" className="mt-4 flex gap-2">
                  <button type="button" className="btn" disabled={offset === 0} onClick={() => go({ offset: String(Math.max(0, offset - PAGE)) })}>
                    ← Newer
                  </button>
                  <button type="button" className="btn" disabled={offset + PAGE >= data.total} onClick={() => go({ offset: String(offset + PAGE) })}>
                    Older →
                  </button>
                </nav>
              )}
            </>
          )}
        </>
      )}
    </>
  );
}
