// fleet search | dead search: GET /queues/{name}/search (NDJSON, streamed as the console finds
// matches), text and filter (`where`) in any of the queue's lists.
import { SEARCH_LISTS, SEARCH_MAX_LIMIT, SearchLineSchema, type SearchDoneLine, type SearchLine, type SearchList, type SearchMatchLine } from "@fleet/schema";

import { seg } from "../client";
import { intOpt, stringOpt, type CommandSpec, type Context, type OptionSpec } from "../command";
import { CliError, EXIT, UsageError } from "../exit-codes";
import { json, table } from "../format";

export interface SearchSpec {
  q?: string;
  where?: string;
  lists: readonly SearchList[];
  limit: number;
}

export interface SearchResult {
  matches: SearchMatchLine[];
  /** The lines as the console sent them (fields this CLI does not know included), for --json. */
  raw: unknown[];
  done: SearchDoneLine;
}

/**
 * Runs one search to its end. Refusals before the stream (a filter that does not parse: 422,
 * an unknown queue: 404) are the client's usual errors; a failure the console reports midway
 * (Redis went away) ends it with exit 6.
 */
export async function runSearch(ctx: Context, queue: string, spec: SearchSpec, onLine?: (line: SearchLine) => void): Promise<SearchResult> {
  const url = ctx.client.url(`/queues/${seg(queue)}/search`, {
    q: spec.q,
    where: spec.where,
    in: spec.lists.length === SEARCH_LISTS.length ? undefined : spec.lists.join(","),
    limit: spec.limit,
  });
  const where = `GET ${url.pathname}`;
  const res = await ctx.client.fetch("GET", url, { headers: { Accept: "application/x-ndjson" } });
  if (!res.ok) throw ctx.client.failure("GET", url, res, await res.text().catch(() => ""));
  if (!(res.headers.get("content-type") ?? "").includes("ndjson") || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new CliError(`unexpected answer from ${where}: ${res.headers.get("content-type") ?? "no content type"} instead of NDJSON`, EXIT.ERROR);
  }
  const matches: SearchMatchLine[] = [];
  const raw: unknown[] = [];
  let done: SearchDoneLine | null = null;
  let buffer = "";
  const take = (text: string) => {
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new CliError(`unexpected answer from ${where}: a line is not JSON`, EXIT.ERROR);
    }
    const parsed = SearchLineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CliError(`unexpected line from ${where}: ${issue ? `${issue.path.join(".") || "the line"}: ${issue.message}` : "bad shape"}`, EXIT.ERROR);
    }
    const line = parsed.data;
    if (line.type === "error") {
      throw new CliError(
        `${where}: the search failed midway: ${line.error.code}: ${line.error.message}`,
        line.error.code === "backend_unavailable" ? EXIT.UNAVAILABLE : EXIT.ERROR,
      );
    }
    if (line.type === "match") {
      matches.push(line);
      raw.push(value);
    } else if (line.type === "done") done = line;
    onLine?.(line);
  };
  try {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      buffer += value;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        take(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    }
    take(buffer);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${where}: the answer was cut off (${err instanceof Error ? err.message : String(err)})`, EXIT.UNAVAILABLE);
  }
  if (done === null) throw new CliError(`${where}: the answer ended before its last line (the console stopped midway)`, EXIT.UNAVAILABLE);
  return { matches, raw, done };
}

/** `--in pending,dead`: which lists, checked here (the console checks them again). */
export function listsOpt(ctx: Context, cmd: string): SearchList[] {
  const text = stringOpt(ctx, "in");
  if (text === undefined) return [...SEARCH_LISTS];
  const out: SearchList[] = [];
  for (const part of text.split(",")) {
    const p = part.trim();
    if (p === "") continue;
    if (!(SEARCH_LISTS as readonly string[]).includes(p)) throw new UsageError(`--in takes ${SEARCH_LISTS.join(", ")} (comma-separated), not ${JSON.stringify(p)}`, cmd);
    if (!out.includes(p as SearchList)) out.push(p as SearchList);
  }
  if (out.length === 0) throw new UsageError(`--in takes ${SEARCH_LISTS.join(", ")} (comma-separated)`, cmd);
  return out;
}

/** A task id as a filter: the id as text, or as the number it reads as (the filter's `=` is strict). */
export function taskIdFilter(id: string): string {
  const quoted = JSON.stringify(id);
  return /^-?(0|[1-9]\d{0,14})$/.test(id) ? `(id = ${quoted} or id = ${id})` : `id = ${quoted}`;
}

/** `--text` and `--where`, and `--task-id` as a filter joined to the `--where` with `and`. */
export function filterOpts(ctx: Context): { q?: string; where?: string } {
  const q = stringOpt(ctx, "text");
  const whereText = stringOpt(ctx, "where");
  const taskId = stringOpt(ctx, "task-id");
  const given = whereText?.trim() ? whereText : undefined;
  // the filter as given when alone, so that the console's positions are the user's
  const where = taskId === undefined ? given : given === undefined ? taskIdFilter(taskId) : `(${given}) and ${taskIdFilter(taskId)}`;
  return { q: q === "" ? undefined : q, where };
}

export const FILTER_OPTIONS: Record<string, OptionSpec> = {
  text: { type: "string", value: "TEXT", description: "the body contains TEXT (case-insensitive)" },
  where: {
    type: "string",
    value: "FILTER",
    description: 'a filter on the body\'s fields, e.g. \'payload.customer = "c17" and attempts >= 3\' (apps/web/README.md, "The filter language")',
  },
};

const matchColumns = (withList: boolean) => [
  { header: "REF", value: (m: SearchMatchLine) => m.ref },
  ...(withList ? [{ header: "LIST", value: (m: SearchMatchLine) => (m.priority && m.priority !== "normal" ? `${m.list}:${m.priority}` : m.list) }] : []),
  { header: "INDEX", value: (m: SearchMatchLine) => String(m.index), align: "right" as const },
  { header: "TASK ID", value: (m: SearchMatchLine) => m.task_id ?? "-" },
  { header: "ATTEMPTS", value: (m: SearchMatchLine) => (m.attempts === null ? "-" : String(m.attempts)), align: "right" as const },
  { header: "LAST ERROR", value: (m: SearchMatchLine) => m.last_error ?? "-", max: 40 },
  { header: "BODY", value: (m: SearchMatchLine) => `${m.body.text}${m.body.truncated ? "…" : ""}`, max: 80 },
];

function summaryLine(r: SearchResult, lists: readonly SearchList[]): string {
  const d = r.done;
  const where = lists.length === SEARCH_LISTS.length ? "" : ` (${lists.join(", ")})`;
  const shown = d.returned < d.matched ? `; ${d.returned} shown` : "";
  const corrupt = d.corrupt.length > 0 ? `; unreadable (another Redis type): ${d.corrupt.join(", ")}` : "";
  const reread =
    d.reread.length > 0 ? `; read again from the start, it moved under the search: ${d.reread.join(", ")}${d.repeats > 0 ? ` (${d.repeats} matches may repeat)` : ""}` : "";
  const incomplete = d.incomplete.length > 0 ? `; not read to the end, it moved too fast: ${d.incomplete.join(", ")}` : "";
  return `${d.matched} match${d.matched === 1 ? "" : "es"} in ${d.scanned} task${d.scanned === 1 ? "" : "s"} read${where}${shown}, ${d.elapsed_ms} ms${corrupt}${reread}${incomplete}`;
}

async function searchCommand(ctx: Context, cmd: string, lists: readonly SearchList[], withList: boolean) {
  const [queue] = ctx.args as [string];
  const limit = intOpt(ctx, cmd, "limit", { min: 0, max: SEARCH_MAX_LIMIT, def: 100 })!;
  const result = await runSearch(ctx, queue, { ...filterOpts(ctx), lists, limit });
  if (ctx.json) {
    const { type: _type, ...done } = result.done;
    ctx.out(json({ queue, ...done, matches: result.raw }));
    return EXIT.OK;
  }
  if (result.matches.length > 0) ctx.out(table(result.matches, matchColumns(withList)));
  ctx.err(summaryLine(result, lists));
  return EXIT.OK;
}

export const search: CommandSpec = {
  words: ["search"],
  summary: "Find a queue's tasks by text and fields: pending, in flight, scheduled, dead",
  args: "<queue>",
  positionals: { min: 1, max: 1 },
  description:
    "GET /queues/{name}/search: the console reads the lists chunk by chunk and streams the matches as it finds them; " +
    "every match is counted, the first --limit are shown. Without --text or --where every task matches. A filter that " +
    "does not parse is refused by the console, naming the position (exit 1). Each match has its list, index and ref " +
    "(dead letters: what `fleet dead requeue` and `delete` take).",
  options: {
    ...FILTER_OPTIONS,
    in: { type: "string", value: "LISTS", description: `only these lists, comma-separated: ${SEARCH_LISTS.join(", ")} (default all)` },
    limit: { type: "string", value: "N", description: `show at most N matches (0-${SEARCH_MAX_LIMIT}, default 100; 0: count only)` },
  },
  examples: [
    "fleet search scraper --text timeout",
    "fleet search scraper --where 'payload.customer = \"c17\" and attempts >= 3' --in pending,dead",
    "fleet search scraper --where 'error_group = \"Timeout after <n>s\"' --limit 0",
  ],
  async run(ctx) {
    return searchCommand(ctx, "search", listsOpt(ctx, "search"), true);
  },
};

export const deadSearch: CommandSpec = {
  words: ["dead", "search"],
  summary: "Find dead letters of a queue by text, filter or task id (without one: list them)",
  args: "<queue>",
  positionals: { min: 1, max: 1 },
  description:
    "`fleet search <queue> --in dead`, with --task-id: GET /queues/{name}/search?in=dead. The console matches every dead " +
    "letter, whole (not a first part of it), and counts them all; the first --limit are shown, each with the ref that " +
    "requeue and delete take. To act on every match, `fleet bulk start` does it on the console, at a rate cap.",
  options: {
    ...FILTER_OPTIONS,
    "task-id": { type: "string", value: "ID", description: "the body's task id is ID" },
    limit: { type: "string", value: "N", description: `show at most N matches (0-${SEARCH_MAX_LIMIT}, default 100; 0: count only)` },
  },
  examples: [
    "fleet dead search scraper --text timeout",
    "fleet dead search scraper --where 'attempts >= 3 and last_error ~ \"HTTP 503\"' --json | jq -r '.matches[].ref' | fleet dead requeue scraper -",
  ],
  async run(ctx) {
    return searchCommand(ctx, "dead search", ["dead"], false);
  },
};
