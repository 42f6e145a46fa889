"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { CounterSchema, DeletedSchema, type Counter, type CounterBody } from "@fleet/schema";

import { ActionNoteSlot, InlineEmpty, Section } from "@/components/ui-bits";
import { ConfirmDialog, CorruptBadge, ErrorState, LoadingState } from "@/components";
import { apiDelete, apiPut, errorMessage, seg } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { queries, queryKeys } from "@/lib/query";
import { Can, useSession } from "@/lib/session";

/** "" when `text` is a whole number the API accepts, else why not, in plain words. */
export function counterValueProblem(text: string): string {
  const t = text.trim();
  if (t === "") return "Enter a whole number.";
  if (!/^-?\d+$/.test(t)) return "Only whole numbers: digits, optionally with a leading minus.";
  if (!Number.isSafeInteger(Number(t))) return `Too large: keep it between ${formatNumber(Number.MIN_SAFE_INTEGER)} and ${formatNumber(Number.MAX_SAFE_INTEGER)}.`;
  return "";
}

function CounterRow({ c, onDelete, onSaved }: { c: Counter; onDelete: () => void; onSaved: (text: string) => void }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState("");
  const [touched, setTouched] = useState(false);
  const errId = useId();
  const problem = counterValueProblem(text);

  const save = useMutation({
    mutationFn: (value: number) => apiPut(`/counters/${seg(c.name)}`, CounterSchema, { value } satisfies CounterBody),
    onSuccess: (r) => {
      setEditing(false);
      onSaved(`Counter “${c.name}” set to ${formatNumber(r.value)}.`);
    },
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.counters.all }),
  });

  const start = () => {
    setText(c.value === null ? "" : String(c.value));
    setTouched(false);
    save.reset();
    setEditing(true);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (problem) return;
    save.mutate(Number(text.trim()));
  };

  return (
    <li className="flex flex-wrap items-center gap-x-4 gap-y-2 px-3 py-2 text-sm">
      <code className="min-w-0 flex-1 basis-48 font-mono wrap-break-word">{c.name}</code>
      {editing ? (
        <form onSubmit={submit} className="flex flex-wrap items-start gap-2" noValidate>
          <div>
            <input
              type="text"
              inputMode="numeric"
              autoFocus
              className="field w-40 tabular-nums"
              aria-label={`New value of ${c.name}`}
              aria-invalid={touched && problem !== "" ? true : undefined}
              aria-describedby={touched && problem ? errId : undefined}
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                setTouched(true);
              }}
              onKeyDown={(e) => {
                if (e.key === "Escape") setEditing(false);
              }}
            />
            {touched && problem && (
              <p id={errId} className="mt-1 max-w-[16rem] text-xs text-red-700 dark:text-red-400">
                {problem}
              </p>
            )}
            {save.error && (
              <p role="alert" className="mt-1 max-w-[16rem] text-xs text-red-700 dark:text-red-400">
                {errorMessage(save.error)}
              </p>
            )}
          </div>
          <button type="submit" className="btn-primary text-xs" disabled={save.isPending || (touched && problem !== "")}>
            {save.isPending ? "Saving…" : "Save"}
          </button>
          <button type="button" className="btn text-xs" onClick={() => setEditing(false)} disabled={save.isPending}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <span className="min-w-24 text-right text-base font-semibold tabular-nums">
            {c.value !== null ? (
              formatNumber(c.value)
            ) : (
              <span className="inline-flex items-center gap-2 text-sm font-normal">
                <CorruptBadge fields={c.corrupt ?? ["value"]} />
                {c.raw !== undefined && (
                  <code className="font-mono text-xs break-all" title="As stored">
                    {c.raw}
                  </code>
                )}
              </span>
            )}
          </span>
          <Can role="admin">
            {/* ml-auto: wrapped under the number on a phone, the buttons stay on the right. */}
            <span className="ml-auto flex gap-1">
              <button type="button" className="btn text-xs" aria-label={`Edit ${c.name}`} onClick={start}>
                Edit
              </button>
              <button type="button" className="btn text-xs" aria-label={`Delete ${c.name}`} onClick={onDelete}>
                Delete
              </button>
            </span>
          </Can>
        </>
      )}
    </li>
  );
}

function NewCounter({ onSaved }: { onSaved: (text: string) => void }) {
  const client = useQueryClient();
  const [name, setName] = useState("");
  const [value, setValue] = useState("0");
  const [touched, setTouched] = useState(false);
  const problem = name.trim() === "" ? "Give the counter a name." : counterValueProblem(value);
  const errId = useId();
  const create = useMutation({
    mutationFn: () => apiPut(`/counters/${seg(name.trim())}`, CounterSchema, { value: Number(value.trim()) } satisfies CounterBody),
    onSuccess: (r) => {
      onSaved(`Counter “${r.name}” set to ${formatNumber(r.value)}.`);
      setName("");
      setValue("0");
      setTouched(false);
    },
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.counters.all }),
  });
  return (
    <form
      noValidate
      className="mt-3 flex flex-wrap items-end gap-2 text-sm"
      onSubmit={(e) => {
        e.preventDefault();
        setTouched(true);
        if (!problem) create.mutate();
      }}
    >
      <label className="flex w-full flex-col gap-1 sm:w-auto">
        <span className="text-xs font-medium text-slate-600 dark:text-slate-400">New counter</span>
        <input
          className="field w-full sm:w-56"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="name, e.g. scraper:pages"
          aria-describedby={touched && problem ? errId : undefined}
        />
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-xs font-medium text-slate-600 dark:text-slate-400">Value</span>
        <input
          className="field w-32 tabular-nums"
          inputMode="numeric"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          aria-invalid={touched && counterValueProblem(value) !== "" ? true : undefined}
          aria-describedby={touched && problem ? errId : undefined}
        />
      </label>
      <button type="submit" className="btn" disabled={create.isPending}>
        {create.isPending ? "Saving…" : "Set counter"}
      </button>
      {touched && problem && (
        <p id={errId} className="w-full text-xs text-red-700 dark:text-red-400">
          {problem}
        </p>
      )}
      {create.error && (
        <p role="alert" className="w-full text-xs text-red-700 dark:text-red-400">
          {errorMessage(create.error)}
        </p>
      )}
    </form>
  );
}

export function CountersSection() {
  const client = useQueryClient();
  const { data, error, isPending, refetch } = useQuery(queries.counters());
  const [ask, setAsk] = useState<string | null>(null);
  const [note, setNote] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const del = useMutation({
    mutationFn: (name: string) => apiDelete(`/counters/${seg(name)}`, DeletedSchema),
    onSuccess: (_r, name) => {
      setAsk(null);
      setNote({ kind: "ok", text: `Counter “${name}” deleted.` });
    },
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.counters.all }),
  });
  const counters = (data?.counters ?? []) as Counter[];
  const canAdmin = useSession().can("admin");

  return (
    <Section id="counters" title="Counters" count={data ? counters.length : undefined} description="Shared integers (pages scraped, cache hits…). Values are whole numbers.">
      <ActionNoteSlot note={note} onDismiss={() => setNote(null)} />
      {isPending ? (
        <LoadingState label="Loading counters…" />
      ) : error ? (
        <ErrorState error={error} onRetry={() => void refetch()} />
      ) : counters.length === 0 ? (
        <InlineEmpty>No counters yet.</InlineEmpty>
      ) : (
        <ul
          className="divide-y divide-slate-200 overflow-hidden rounded-lg border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900/40"
          aria-label="Counters"
        >
          {counters.map((c) => (
            <CounterRow
              key={c.name}
              c={c}
              onSaved={(text) => setNote({ kind: "ok", text })}
              onDelete={() => {
                del.reset();
                setAsk(c.name);
              }}
            />
          ))}
        </ul>
      )}
      {!isPending && !error && canAdmin && <NewCounter onSaved={(text) => setNote({ kind: "ok", text })} />}
      <ConfirmDialog
        open={ask !== null}
        title={`Delete counter “${ask ?? ""}”?`}
        confirmLabel="Delete 1 counter"
        busy={del.isPending}
        error={del.error ? errorMessage(del.error) : undefined}
        onConfirm={() => ask !== null && del.mutate(ask)}
        onCancel={() => setAsk(null)}
      >
        Its value is lost; the next increment starts it again from zero.
      </ConfirmDialog>
    </Section>
  );
}
