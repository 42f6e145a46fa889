"use client";

import { DeadLetterDeleteResultSchema, DeadLetterRequeueResultSchema, type DeadLetter, type DeadLetterActionBody } from "@fleet/schema";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";

import { ConfirmDialog, ErrorState, LoadingState, RelativeTime, useNow } from "@/components";
import { apiPost, errorMessage, seg } from "@/lib/api";
import { deadLetterFacts } from "@/lib/dead-letter-facts";
import { absoluteTime, formatNumber, isoTime } from "@/lib/format";
import { deadLetterLoader } from "@/lib/full-value";
import { queries, queryKeys } from "@/lib/query";
import { useSession } from "@/lib/session";

import { ItemTable } from "@/components/item-table";
import { InlineEmpty, ResultNote, Section, TaskId } from "@/components/ui-bits";
import { useOnChange } from "@/components/use-on-change";
import { intParam, useQueryState } from "@/lib/use-query-state";

type Action = "requeue" | "delete";
interface Pending {
  action: Action;
  /** null: every dead letter of the queue ({"all": true}); its count is the live total. */
  refs: string[] | null;
  count: number;
  /** One row's own action: its name ("dead letter 1a2b…"). */
  one?: string;
}
interface Outcome {
  kind: "ok" | "warn" | "error";
  text: string;
  missing: string[];
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/** "dead letter 1a2b…" (its task id) or "dead letter #3" (its place) when the body has no id. */
function rowName(r: DeadLetter): string {
  return r.task_id ? `dead letter ${r.task_id}` : `dead letter #${r.index + 1}`;
}

/** Where the last page of `total` entries, `limit` a page, starts. */
function lastPageOffset(total: number, limit: number): number {
  return Math.max(0, Math.floor((total - 1) / limit) * limit);
}

/** The select-all checkbox shows "some selected" as the indeterminate state. */
function SelectAll({ checked, indeterminate, onChange, disabled }: { checked: boolean; indeterminate: boolean; onChange: (v: boolean) => void; disabled: boolean }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate;
  }, [indeterminate]);
  return (
    <input
      ref={ref}
      type="checkbox"
      className="size-4 accent-slate-800"
      aria-label="Select every dead letter on this page"
      checked={checked}
      disabled={disabled}
      onChange={(e) => onChange(e.target.checked)}
    />
  );
}

/** How a dead letter died, as far as its body says: error, attempts, when, on which worker. */
function Failure({ row }: { row: DeadLetter }) {
  const f = deadLetterFacts(row.body);
  // no clock yet (server rendering, hydration): a time-zone-free title, as RelativeTime's
  const clock = useNow();
  const meta: ReactNode[] = [];
  if (f.attempts !== null) meta.push(<span key="a">after {plural(f.attempts, "attempt")}</span>);
  if (f.failedAt !== null)
    meta.push(
      <span key="t" title={`${clock === null ? isoTime(f.failedAt) : absoluteTime(f.failedAt)} (${f.failedAtField})`}>
        failed <RelativeTime at={f.failedAt} />
      </span>,
    );
  if (f.worker !== null)
    meta.push(
      <span key="w" title={`The body's ${f.workerField}`}>
        last run on <span className="font-mono">{f.worker}</span>
      </span>,
    );
  return (
    // A minimum width of its own: beside the full-width body column it would shrink to a word a line.
    <span className="block min-w-[13rem] max-w-[22rem] text-xs" data-testid="dead-failure">
      <span className="line-clamp-2 break-words text-red-800 dark:text-red-300" title={f.error ?? undefined}>
        {f.error ?? "No error recorded"}
      </span>
      {meta.length > 0 && (
        <span className="mt-0.5 flex flex-wrap gap-x-2 text-slate-600 dark:text-slate-400">
          {meta.map((m, i) => (
            <span key={i}>
              {i > 0 && <span aria-hidden>· </span>}
              {m}
            </span>
          ))}
        </span>
      )}
    </span>
  );
}

/**
 * A paging control: a link to the page at offset `to` (null: disabled, where it would not
 * move). A plain click stays on this page and moves the list (`go`); a modified click (new
 * tab, new window) and a click before the scripts run follow the link.
 */
function PageLink({ to, label, href, go, children }: { to: number | null; label?: string; href: (o: number) => string; go: (o: number) => void; children: ReactNode }) {
  if (to === null) {
    return (
      // biome-ignore lint/a11y/useValidAnchor: a placeholder link (no href: it goes nowhere from here), announced as a disabled link, as a disabled button is
      <a role="link" aria-disabled="true" aria-label={label} className="btn">
        {children}
      </a>
    );
  }
  return (
    <a
      href={href(to)}
      aria-label={label}
      className="btn"
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        go(to);
      }}
    >
      {children}
    </a>
  );
}

/**
 * The dead-letter list of a queue, paged (`dead_offset` in the URL; its page size is the page's
 * one "Items per list", `limit`), with per-row and multi-select requeue and delete by ref (the
 * SHA-1 of the stored bytes), or of all of them.
 */
export function DeadLetters({ name, total, limit }: { name: string; total: number; limit: number }) {
  const [sp] = useQueryState();
  const pathname = usePathname();
  // Paging changes only `dead_offset`: the URL is replaced in place, not by router.replace,
  // which asks the server to render the page again before the list can move (most of a second
  // on a busy machine, for a page of 100 read in a few milliseconds). The offset shown is this
  // component's state, written to the URL too, not read back from it: Next learns of a
  // history.replaceState only once its router has wrapped it, in an effect after hydration,
  // and a click that landed before that changed the URL alone: the list stayed where it was
  // ("Last »" did nothing; bench:scale waited 30 s for the last page twice). The URL moving by
  // other means (back and forward, a link) moves the list too.
  const urlOffset = intParam(sp, "dead_offset", 0);
  const [offset, setOffsetState] = useState(urlOffset);
  useOnChange(String(urlOffset), () => setOffsetState(urlOffset));
  const setOffset = useCallback(
    (o: number) => {
      setOffsetState(o);
      const next = new URLSearchParams(window.location.search);
      if (o > 0) next.set("dead_offset", String(o));
      else next.delete("dead_offset");
      const q = next.toString();
      window.history.replaceState(null, "", `${pathname}${q ? `?${q}` : ""}${window.location.hash}`);
    },
    [pathname],
  );
  // The page links' own URLs: before the scripts run (the first paint is the server's), a
  // click loads that page, which the server renders with its dead letters; once they run,
  // it moves the list in place (setOffset).
  const hrefFor = (o: number) => {
    const next = new URLSearchParams(sp.toString());
    if (o > 0) next.set("dead_offset", String(o));
    else next.delete("dead_offset");
    const q = next.toString();
    return `${pathname}${q ? `?${q}` : ""}#dead`;
  };
  const client = useQueryClient();
  // Viewers see the list; selecting and acting needs the operator role (the API checks too).
  const canAct = useSession().can("operator");
  const { data, error, isPending, refetch } = useQuery(queries.deadLetters(name, limit, offset));
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [pending, setPending] = useState<Pending | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  // A selection belongs to the page it was made on.
  useOnChange(JSON.stringify([name, limit, offset]), () => setSelected(new Set()));

  const items = useMemo(() => data?.items ?? [], [data]);
  const pageRefs = useMemo(() => [...new Set(items.map((i) => i.ref))], [items]);
  const selectedOnPage = pageRefs.filter((r) => selected.has(r)).length;
  const listTotal = data?.total ?? total;

  // A page emptied by an action (or by someone else) steps back to the last page that has items.
  useEffect(() => {
    if (data && data.items.length === 0 && offset > 0 && data.total > 0) {
      setOffset(lastPageOffset(data.total, limit));
    }
  }, [data, offset, limit, setOffset]);

  const act = useMutation({
    mutationFn: async (p: Pending) => {
      const body: DeadLetterActionBody = p.refs === null ? { all: true } : { refs: p.refs };
      if (p.action === "requeue") {
        const r = await apiPost(`/queues/${seg(name)}/dead/requeue`, DeadLetterRequeueResultSchema, body);
        return { done: r.requeued, missing: r.missing, p };
      }
      const r = await apiPost(`/queues/${seg(name)}/dead/delete`, DeadLetterDeleteResultSchema, body);
      return { done: r.deleted, missing: r.missing, p };
    },
    onSuccess: ({ done, missing, p }) => {
      const verb = p.action === "requeue" ? "Requeued" : "Deleted";
      const where = p.action === "requeue" ? " (back on the normal pending list)" : "";
      const gone = missing.length > 0 ? ` ${plural(missing.length, "selected dead letter was", "selected dead letters were")} no longer there.` : "";
      setOutcome({ kind: missing.length > 0 ? "warn" : "ok", text: `${verb} ${plural(done, "dead letter")}${where}.${gone}`, missing });
      setSelected(new Set());
      setPending(null);
    },
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.queues.all }),
  });

  const ask = (action: Action, scope: "selected" | "all") => {
    act.reset();
    if (scope === "all") setPending({ action, refs: null, count: listTotal });
    else setPending({ action, refs: [...selected], count: selected.size });
  };
  const askOne = (action: Action, row: DeadLetter) => {
    act.reset();
    setPending({ action, refs: [row.ref], count: 1, one: rowName(row) });
  };
  // "All" counts what is listed now: the dialog follows the live total while it is open.
  const pendingCount = pending === null ? 0 : pending.refs === null ? listTotal : pending.count;

  const toggle = (ref: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(ref);
      else next.delete(ref);
      return next;
    });

  const n = selected.size;
  const busy = act.isPending;
  const pageEnd = Math.min(offset + items.length, listTotal);

  const tools = (
    <>
      <button type="button" className="btn" disabled={n === 0 || busy} onClick={() => ask("requeue", "selected")}>
        Requeue selected{n > 0 ? ` (${formatNumber(n)})` : ""}
      </button>
      <button type="button" className="btn" disabled={n === 0 || busy} onClick={() => ask("delete", "selected")}>
        Delete selected{n > 0 ? ` (${formatNumber(n)})` : ""}
      </button>
      <span aria-hidden className="hidden h-6 w-px bg-slate-300 sm:block dark:bg-slate-700" />
      <button type="button" className="btn" disabled={listTotal === 0 || busy} onClick={() => ask("requeue", "all")}>
        Requeue all {formatNumber(listTotal)}
      </button>
      <button type="button" className="btn-danger" disabled={listTotal === 0 || busy} onClick={() => ask("delete", "all")}>
        Delete all {formatNumber(listTotal)}
      </button>
    </>
  );

  const verb = pending?.action === "requeue" ? "Requeue" : "Delete";
  const title = !pending ? "" : pending.one ? `${verb} ${pending.one}?` : `${verb} ${pending.refs === null ? "all " : ""}${plural(pendingCount, "dead letter")}?`;

  // Viewers get no checkboxes: selecting only serves the operator's actions.
  const selectColumn: { header: ReactNode; cell: (row: DeadLetter) => ReactNode } | undefined = canAct
    ? {
        header: (
          <SelectAll
            checked={pageRefs.length > 0 && selectedOnPage === pageRefs.length}
            indeterminate={selectedOnPage > 0 && selectedOnPage < pageRefs.length}
            disabled={pageRefs.length === 0 || busy}
            onChange={(on) =>
              setSelected((prev) => {
                const next = new Set(prev);
                for (const r of pageRefs) {
                  if (on) next.add(r);
                  else next.delete(r);
                }
                return next;
              })
            }
          />
        ),
        cell: (r) => (
          <input
            type="checkbox"
            className="size-4 accent-slate-800"
            aria-label={`Select dead letter ${r.task_id ?? `#${r.index + 1}`}`}
            checked={selected.has(r.ref)}
            disabled={busy}
            onChange={(e) => toggle(r.ref, e.target.checked)}
          />
        ),
      }
    : undefined;

  return (
    <Section
      id="dead"
      title="Dead letters"
      count={listTotal > 0 ? formatNumber(listTotal) : undefined}
      description="Tasks that failed every attempt. Requeue puts them back on the normal pending list."
      tools={canAct && (listTotal > 0 || n > 0) ? tools : undefined}
    >
      {outcome && (
        <div className="mb-3">
          <ResultNote kind={outcome.kind} onDismiss={() => setOutcome(null)}>
            <p>{outcome.text}</p>
            {outcome.missing.length > 0 && (
              <details className="mt-1">
                <summary className="cursor-pointer">Refs no longer there</summary>
                <ul className="mt-1 font-mono text-xs">
                  {outcome.missing.map((m) => (
                    <li key={m} className="break-all">
                      {m}
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </ResultNote>
        </div>
      )}
      {isPending ? (
        <LoadingState label="Loading dead letters…" />
      ) : error ? (
        <ErrorState error={error} onRetry={() => void refetch()} />
      ) : listTotal === 0 ? (
        <InlineEmpty>No dead letters. Tasks land here after their last failed attempt.</InlineEmpty>
      ) : (
        <>
          <p className="mb-2 text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
            {n > 0 ? `${plural(n, "dead letter")} selected. ` : ""}
            Showing {formatNumber(items.length === 0 ? 0 : offset + 1)}–{formatNumber(pageEnd)} of {formatNumber(listTotal)}
          </p>
          <ItemTable<DeadLetter>
            rows={items}
            caption="Dead letters"
            rowKey={(r) => `${r.index}:${r.ref}`}
            rowName={rowName}
            payload={(r) => r.body}
            payloadLabel="body"
            loadFull={(r, _i, v) => deadLetterLoader(name, r.index, r.ref, v)}
            fileName={(r) => `${name}-dead-${r.task_id ?? r.index + 1}`}
            previewField="payload"
            rowClassName={(r) => (selected.has(r.ref) ? "bg-sky-50 dark:bg-sky-950/30" : "")}
            leading={selectColumn}
            trailing={
              canAct
                ? {
                    header: "Actions",
                    cell: (r) => (
                      <span className="inline-flex gap-1.5">
                        <button type="button" className="btn px-2 py-1 text-xs" disabled={busy} aria-label={`Requeue ${rowName(r)}`} onClick={() => askOne("requeue", r)}>
                          Requeue
                        </button>
                        <button
                          type="button"
                          className="btn px-2 py-1 text-xs text-red-700 dark:text-red-400"
                          disabled={busy}
                          aria-label={`Delete ${rowName(r)}`}
                          onClick={() => askOne("delete", r)}
                        >
                          Delete
                        </button>
                      </span>
                    ),
                  }
                : undefined
            }
            columns={[
              { id: "index", header: "#", className: "w-12 text-right tabular-nums text-slate-500", hideOnMobile: true, cell: (r) => r.index + 1 },
              { id: "id", header: "Task", cell: (r) => <TaskId id={r.task_id} /> },
              { id: "error", header: "Failure", cell: (r) => <Failure row={r} /> },
            ]}
          />
          <div className="mt-3 flex flex-wrap items-center gap-3 text-sm">
            {/* Newest and oldest: a list of 200,000 is two clicks from either end (the server reads the
                last page from the list's tail, so it costs what the first does). */}
            <PageLink to={offset === 0 ? null : 0} label="First page of dead letters" href={hrefFor} go={setOffset}>
              « First
            </PageLink>
            <PageLink to={offset === 0 ? null : Math.max(0, offset - limit)} href={hrefFor} go={setOffset}>
              ← Previous
            </PageLink>
            <PageLink to={offset + limit >= listTotal ? null : offset + limit} href={hrefFor} go={setOffset}>
              Next →
            </PageLink>
            <PageLink to={offset + limit >= listTotal ? null : lastPageOffset(listTotal, limit)} label="Last page of dead letters" href={hrefFor} go={setOffset}>
              Last »
            </PageLink>
            <span className="ml-auto text-slate-600 dark:text-slate-400">{formatNumber(limit)} per page (“Items per list” at the top)</span>
          </div>
        </>
      )}
      <ConfirmDialog
        open={pending !== null}
        title={title}
        confirmLabel={pending ? (pending.one ? `${verb} 1 dead letter` : `${verb} ${plural(pendingCount, "dead letter")}`) : ""}
        destructive={pending?.action === "delete"}
        busy={busy}
        error={act.error ? errorMessage(act.error) : undefined}
        onConfirm={() => pending && act.mutate(pending)}
        onCancel={() => setPending(null)}
      >
        <span data-testid="dead-confirm-text">
          {pending?.action === "requeue"
            ? `The ${pendingCount === 1 ? "task goes" : "tasks go"} back on the normal pending list of ${name} and will be tried again.`
            : `The ${pendingCount === 1 ? "task is" : "tasks are"} removed from ${name} for good. This cannot be undone.`}
          {pending?.refs === null ? ` The count follows the list live; what is there when you confirm is ${pending.action === "requeue" ? "requeued" : "deleted"}.` : ""}
        </span>
      </ConfirmDialog>
    </Section>
  );
}
