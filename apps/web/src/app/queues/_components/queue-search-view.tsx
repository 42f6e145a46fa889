"use client";

import type { SearchDoneLine, SearchList, SearchMatchLine, SearchProgressLine } from "@fleet/schema";
import Link from "next/link";
import { useEffect, useRef, useState, type FormEvent } from "react";

import { PageHeader } from "@/components";
import { ResultNote, Section } from "@/components/ui-bits";
import { ApiError, errorMessage, seg } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { streamSearch } from "@/lib/search-stream";
import { Can } from "@/lib/session";
import { useQueryState } from "@/lib/use-query-state";

import { BulkActionPanel } from "./bulk-action-panel";

const LISTS: ReadonlyArray<{ id: SearchList; label: string }> = [
  { id: "pending", label: "Pending" },
  { id: "processing", label: "In flight" },
  { id: "scheduled", label: "Scheduled retries" },
  { id: "dead", label: "Dead letters" },
];

/** Match lines kept in the page: the server sends at most this many (`limit`). */
const SHOWN = 200;

type Run =
  | { state: "idle" }
  | { state: "running"; progress: SearchProgressLine | null }
  | { state: "done"; done: SearchDoneLine }
  | { state: "cancelled"; progress: SearchProgressLine | null }
  | { state: "error"; message: string; filter: boolean };

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

function whereLabel(m: SearchMatchLine): string {
  if (m.list === "pending") return `pending (${m.priority}) #${m.index + 1}`;
  if (m.list === "processing") return `in flight #${m.index + 1}`;
  if (m.list === "scheduled") return `scheduled #${m.index + 1}`;
  return `dead letter #${m.index + 1}`;
}

/** One match: where it was found, what the body says about it, the body as text (cut). */
function MatchItem({ m }: { m: SearchMatchLine }) {
  return (
    <li className="card p-3" data-testid="search-match" data-list={m.list}>
      <div className="mb-2 flex flex-wrap items-baseline gap-x-3 gap-y-1 text-sm">
        <span className="font-medium">{whereLabel(m)}</span>
        <span className="text-slate-600 dark:text-slate-400">
          task <span className="font-mono">{m.task_id ?? "without id"}</span>
        </span>
        {m.attempts !== null && <span className="text-slate-600 dark:text-slate-400">{plural(m.attempts, "attempt")}</span>}
        <span className="font-mono text-xs text-slate-500 dark:text-slate-400" title="ref: SHA-1 of the body, as the dead-letter actions name it">
          {m.ref.slice(0, 12)}
        </span>
      </div>
      {m.last_error !== null && (
        <p className="mb-2 text-sm break-words text-red-800 dark:text-red-300">
          <span className="font-medium">Last error:</span> {m.last_error}
        </p>
      )}
      <pre className="max-h-48 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs break-all whitespace-pre-wrap dark:bg-slate-900">
        {m.body.text}
        {m.body.truncated && <span className="text-slate-500 dark:text-slate-400">{` … (${formatNumber(m.body.bytes)} bytes in all)`}</span>}
      </pre>
    </li>
  );
}

/** /queues/{name}/search: text and field search over every list of one queue, streamed. */
export function QueueSearchView({ name }: { name: string }) {
  const [sp, setParams] = useQueryState();
  const q = sp.get("q") ?? "";
  const where = sp.get("where") ?? "";
  const inParam = sp.get("in") ?? "";
  const chosen = new Set(inParam ? inParam.split(",") : LISTS.map((l) => l.id));

  const [text, setText] = useState(q);
  const [filter, setFilter] = useState(where);
  const [lists, setLists] = useState<Set<string>>(chosen);
  const [run, setRun] = useState<Run>({ state: "idle" });
  const [matches, setMatches] = useState<SearchMatchLine[]>([]);
  const abort = useRef<AbortController | null>(null);

  // the URL changed (a link, back/forward): the form follows it
  useEffect(() => {
    setText(q);
    setFilter(where);
    setLists(new Set(inParam ? inParam.split(",") : LISTS.map((l) => l.id)));
  }, [q, where, inParam]);

  // the search lives in the URL: it runs whenever the URL's query changes
  useEffect(() => {
    if (q === "" && where === "") {
      setRun({ state: "idle" });
      setMatches([]);
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    setMatches([]);
    setRun({ state: "running", progress: null });
    let found: SearchMatchLine[] = [];
    let flush: ReturnType<typeof setTimeout> | null = null;
    const show = () => {
      flush = null;
      setMatches(found);
    };
    streamSearch(name, { q: q || undefined, where: where || undefined, in: inParam || undefined, limit: SHOWN }, controller.signal, (line) => {
      if (line.type === "match") {
        found = [...found, line];
        // matches arrive in bursts: render at most every 100 ms
        flush ??= setTimeout(show, 100);
      } else if (line.type === "progress") {
        setRun((r) => (r.state === "running" ? { state: "running", progress: line } : r));
      } else if (line.type === "done") {
        setRun({ state: "done", done: line });
      } else {
        setRun({ state: "error", message: line.error.message, filter: false });
      }
    })
      .then(() => {
        if (flush) clearTimeout(flush);
        show();
      })
      .catch((err: unknown) => {
        if (flush) clearTimeout(flush);
        show();
        if (err instanceof DOMException && err.name === "AbortError") return;
        setRun({ state: "error", message: errorMessage(err), filter: err instanceof ApiError && err.status === 422 });
      });
    return () => {
      if (flush) clearTimeout(flush);
      controller.abort();
    };
  }, [name, q, where, inParam]);

  const cancel = () => {
    abort.current?.abort();
    setRun((r) => (r.state === "running" ? { state: "cancelled", progress: r.progress } : r));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const all = LISTS.every((l) => lists.has(l.id));
    setParams({
      q: text.trim(),
      where: filter.trim(),
      in: all
        ? null
        : LISTS.filter((l) => lists.has(l.id))
            .map((l) => l.id)
            .join(","),
    });
  };

  const progress = run.state === "running" || run.state === "cancelled" ? run.progress : null;
  const done = run.state === "done" ? run.done : null;

  return (
    <>
      <PageHeader
        title={`Search ${name}`}
        breadcrumbs={[
          { href: "/queues", label: "Queues" },
          { href: `/queues/${seg(name)}`, label: name },
        ]}
        description="Every pending, in-flight, scheduled and dead task of this queue, by text and by fields. The search is in the address: share it."
      />
      <form role="search" aria-label="Search tasks" className="card grid gap-3 p-4" onSubmit={submit}>
        <div className="grid gap-3 md:grid-cols-2">
          <label className="grid gap-1 text-sm">
            <span className="font-medium">Text in the body</span>
            <input className="field h-9" name="q" value={text} maxLength={500} onChange={(e) => setText(e.target.value)} placeholder="c17" autoComplete="off" />
            <span className="text-xs text-slate-600 dark:text-slate-400">Anywhere in the task body, ignoring case.</span>
          </label>
          <label className="grid gap-1 text-sm">
            <span className="font-medium">Filter</span>
            <input
              className="field h-9 font-mono"
              name="where"
              value={filter}
              maxLength={1000}
              onChange={(e) => setFilter(e.target.value)}
              placeholder='payload.customer = "c17" and attempts >= 3'
              autoComplete="off"
              spellCheck={false}
              aria-describedby="where-help"
            />
            <span id="where-help" className="text-xs text-slate-600 dark:text-slate-400">
              Fields <code>id</code>, <code>attempts</code>, <code>last_error</code>, <code>error_group</code>, <code>payload.&lt;path&gt;</code>; operators{" "}
              <code>= != &lt; &lt;= &gt; &gt;=</code> and <code>~</code> (contains, any case); <code>and</code>, <code>or</code>, <code>not</code>, parentheses; texts in quotes.
            </span>
          </label>
        </div>
        <fieldset className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
          <legend className="sr-only">Look in</legend>
          <span className="font-medium" aria-hidden>
            Look in
          </span>
          {LISTS.map((l) => (
            <label key={l.id} className="flex items-center gap-1.5">
              <input
                type="checkbox"
                className="size-4 accent-slate-800"
                checked={lists.has(l.id)}
                onChange={(e) => {
                  const next = new Set(lists);
                  if (e.target.checked) next.add(l.id);
                  else next.delete(l.id);
                  setLists(next.size === 0 ? lists : next);
                }}
              />
              {l.label}
            </label>
          ))}
          <span className="ml-auto flex gap-2">
            {run.state === "running" && (
              <button type="button" className="btn" onClick={cancel}>
                Cancel
              </button>
            )}
            <button type="submit" className="btn-primary">
              Search
            </button>
          </span>
        </fieldset>
      </form>

      <div className="mt-4 grid gap-2" aria-live="polite">
        {run.state === "running" && (
          <div role="status" className="grid gap-1 text-sm">
            <span data-testid="search-progress">
              Searching…{" "}
              {progress ? `${formatNumber(progress.scanned)} of ${formatNumber(progress.total)} tasks read, ${plural(progress.matched, "match", "matches")}` : "starting"}
            </span>
            <progress className="h-2 w-full" max={Math.max(1, progress?.total ?? 1)} value={progress?.scanned ?? 0} aria-label="Tasks read" />
          </div>
        )}
        {run.state === "cancelled" && (
          <ResultNote kind="warn">
            Cancelled
            {run.progress
              ? ` after ${formatNumber(run.progress.scanned)} of ${formatNumber(run.progress.total)} tasks, ${plural(run.progress.matched, "match", "matches")} so far`
              : ""}
            .
          </ResultNote>
        )}
        {run.state === "error" && (
          <ResultNote kind="error">
            {run.filter ? "The filter is not valid: " : "The search failed: "}
            {run.message}
          </ResultNote>
        )}
        {done && (
          <p role="status" data-testid="search-summary" className="text-sm">
            {plural(done.matched, "match", "matches")} in {plural(done.scanned, "task")} ({formatNumber(done.elapsed_ms)} ms)
            {done.matched > done.returned ? `; the first ${formatNumber(done.returned)} are shown.` : "."}
            {done.corrupt.length > 0 && ` Not read, their keys hold another Redis type: ${done.corrupt.join(", ")}.`}
            {done.reread.length > 0 &&
              ` The ${done.reread.join(", ")} list${done.reread.length === 1 ? "" : "s"} moved under the search (what it had last read there was taken meanwhile) and ${done.reread.length === 1 ? "was" : "were"} read again from the start; a match is counted once${done.repeats > 0 ? `, but ${formatNumber(done.repeats)} may repeat an earlier one` : ""}.`}
            {done.incomplete.length > 0 && ` Not read to the end, they moved too fast: ${done.incomplete.join(", ")}.`}
          </p>
        )}
        {run.state === "idle" && (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Give a text or a filter.{" "}
            <Link className="link" href={`/queues/${seg(name)}`}>
              Back to the queue
            </Link>
          </p>
        )}
      </div>

      {(q !== "" || where !== "") && (
        <Can role="operator">
          <BulkActionPanel name={name} q={q} where={where} />
        </Can>
      )}

      {matches.length > 0 && (
        <Section id="matches" title="Matches" count={formatNumber(matches.length)}>
          <ol className="grid gap-2" aria-label="Matching tasks">
            {matches.map((m, i) => (
              <MatchItem key={`${m.list}:${m.priority ?? ""}:${m.index}:${i}`} m={m} />
            ))}
          </ol>
        </Section>
      )}
    </>
  );
}
