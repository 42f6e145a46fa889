"use client";

import type { DeadLetter } from "@fleet/schema";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";

import { ConfirmDialog, ErrorState, LoadingState } from "@/components";
import { apiPost, errorMessage, seg } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { deadLetterLoader } from "@/lib/full-value";
import { queries, queryKeys } from "@/lib/query";
import { useSession } from "@/lib/session";

import { ItemTable } from "@/components/item-table";
import { bodyField } from "@/components/payload-preview";
import { InlineEmpty, ResultNote, Section, TaskId } from "@/components/ui-bits";
import { intParam, useQueryState } from "@/lib/use-query-state";

const PAGE_SIZES = [25, 50, 100, 200] as const;

type Action = "requeue" | "delete";
interface Pending {
  action: Action;
  /** null: every dead letter of the queue ({"all": true}). */
  refs: string[] | null;
  count: number;
}
interface Outcome {
  kind: "ok" | "warn" | "error";
  text: string;
  missing: string[];
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
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

/**
 * The dead-letter list of a queue, paged (`dead_offset`, `dead_limit` in the URL), with
 * multi-select requeue and delete by ref (the SHA-1 of the stored bytes), or of all of them.
 */
export function DeadLetters({ name, total }: { name: string; total: number }) {
  const [sp, setParams] = useQueryState();
  const limit = intParam(sp, "dead_limit", 50, 1000);
  const offset = intParam(sp, "dead_offset", 0);
  const client = useQueryClient();
  // Viewers see the list; selecting and acting needs the operator role (the API checks too).
  const canAct = useSession().can("operator");
  const { data, error, isPending, refetch } = useQuery(queries.deadLetters(name, limit, offset));
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [pending, setPending] = useState<Pending | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  // A selection belongs to the page it was made on.
  useEffect(() => setSelected(new Set()), [offset, limit, name]);

  const items = useMemo(() => data?.items ?? [], [data]);
  const pageRefs = useMemo(() => [...new Set(items.map((i) => i.ref))], [items]);
  const selectedOnPage = pageRefs.filter((r) => selected.has(r)).length;
  const listTotal = data?.total ?? total;

  // A page emptied by an action (or by someone else) steps back to the last page that has items.
  useEffect(() => {
    if (data && data.items.length === 0 && offset > 0 && data.total > 0) {
      setParams({ dead_offset: Math.max(0, Math.floor((data.total - 1) / limit) * limit) || null });
    }
  }, [data, offset, limit, setParams]);

  const act = useMutation({
    mutationFn: async (p: Pending) => {
      const body = p.refs === null ? { all: true } : { refs: p.refs };
      if (p.action === "requeue") {
        const r = await apiPost<{ requeued: number; missing: string[] }>(`/queues/${seg(name)}/dead/requeue`, body);
        return { done: r.requeued, missing: r.missing, p };
      }
      const r = await apiPost<{ deleted: number; missing: string[] }>(`/queues/${seg(name)}/dead/delete`, body);
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
        Requeue all
      </button>
      <button type="button" className="btn-danger" disabled={listTotal === 0 || busy} onClick={() => ask("delete", "all")}>
        Delete all
      </button>
    </>
  );

  const title = pending
    ? `${pending.action === "requeue" ? "Requeue" : "Delete"} ${pending.refs === null ? "all " : ""}${plural(pending.count, "dead letter")}?`
    : "";

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
                    <li key={m} className="break-all">{m}</li>
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
            rowName={(r) => (r.task_id ? `dead letter ${r.task_id}` : `dead letter ${r.index + 1}`)}
            payload={(r) => r.body}
            payloadLabel="body"
            loadFull={(r, _i, v) => deadLetterLoader(name, r.index, r.ref, v)}
            fileName={(r) => `${name}-dead-${r.task_id ?? r.index + 1}`}
            previewField="payload"
            rowClassName={(r) => (selected.has(r.ref) ? "bg-sky-50 dark:bg-sky-950/30" : "")}
            leading={selectColumn}
            columns={[
              { id: "index", header: "#", className: "w-12 text-right tabular-nums text-slate-500", hideOnMobile: true, cell: (r) => r.index + 1 },
              { id: "id", header: "Task", cell: (r) => <TaskId id={r.task_id} /> },
              {
                id: "error",
                header: "Last error",
                hideOnMobile: true,
                cell: (r) => {
                  const err = bodyField(r.body, "last_error");
                  const attempts = bodyField(r.body, "attempts");
                  return (
                    <span className="block max-w-[18rem] text-xs">
                      <span className="block truncate text-red-800 dark:text-red-300" title={err ?? undefined}>
                        {err ?? "—"}
                      </span>
                      {attempts && <span className="text-slate-500">after {attempts} attempt{attempts === "1" ? "" : "s"}</span>}
                    </span>
                  );
                },
              },
            ]}
          />
          <div className="mt-3 flex flex-wrap items-center gap-3 text-sm">
            <button type="button" className="btn" disabled={offset === 0} onClick={() => setParams({ dead_offset: Math.max(0, offset - limit) || null })}>
              ← Previous
            </button>
            <button type="button" className="btn" disabled={offset + limit >= listTotal} onClick={() => setParams({ dead_offset: offset + limit })}>
              Next →
            </button>
            <label className="ml-auto flex items-center gap-2">
              Per page
              <select className="field" value={limit} onChange={(e) => setParams({ dead_limit: e.target.value === "50" ? null : e.target.value, dead_offset: null })}>
                {PAGE_SIZES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
          </div>
        </>
      )}
      <ConfirmDialog
        open={pending !== null}
        title={title}
        confirmLabel={pending ? `${pending.action === "requeue" ? "Requeue" : "Delete"} ${plural(pending.count, "dead letter")}` : ""}
        destructive={pending?.action === "delete"}
        busy={busy}
        error={act.error ? errorMessage(act.error) : undefined}
        onConfirm={() => pending && act.mutate(pending)}
        onCancel={() => setPending(null)}
      >
        {pending?.action === "requeue"
          ? `The ${pending.count === 1 ? "task goes" : "tasks go"} back on the normal pending list of ${name} and will be tried again.`
          : `The ${pending?.count === 1 ? "task is" : "tasks are"} removed from ${name} for good. This cannot be undone.`}
      </ConfirmDialog>
    </Section>
  );
}
