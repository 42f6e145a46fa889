// fleet tail: the live event stream (GET /events, Server-Sent Events), one line per change.
import { LiveEventSchema, type LiveEvent } from "@fleet/schema";

import { intOpt, stringOpt, type CommandSpec, type Context } from "../command";
import { CliError, EXIT, UsageError } from "../exit-codes";
import { compactJson, printable } from "../format";

const KINDS = LiveEventSchema.options.map((o) => o.shape.event.value);

export interface SseFrame {
  id: string | null;
  event: string;
  data: string;
}

/** Splits an SSE byte stream into frames (comments and retry lines dropped). */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let frame: { id: string | null; event: string; data: string[] } = { id: null, event: "message", data: [] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (frame.data.length > 0) yield { id: frame.id, event: frame.event, data: frame.data.join("\n") };
          frame = { id: null, event: "message", data: [] };
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") frame.data.push(value);
        else if (field === "event") frame.event = value;
        else if (field === "id") frame.id = value;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function clock(): string {
  return new Date().toISOString().slice(11, 19);
}

/** One event as lines for people. */
export function describe(e: LiveEvent): string[] {
  const t = clock();
  switch (e.event) {
    case "bus":
      return [`${t}  bus     ${e.data.topic}  ${compactJson(e.data.payload)}`];
    case "workers":
      return [
        ...e.data.changed.map(
          (w) => `${t}  worker  ${w.automation_type}/${w.worker_id}  ${w.status}${w.config_gen === null ? "" : `  gen ${w.config_gen}`}${w.last_error ? `  ${w.last_error}` : ""}`,
        ),
        ...e.data.removed.map((w) => `${t}  worker  ${w.automation_type}/${w.worker_id}  removed`),
      ];
    case "queues":
      return [
        ...e.data.queues.map((q) => `${t}  queue   ${q.name}  pending ${q.pending.total}, processing ${q.processing}, scheduled ${q.scheduled}, dead ${q.dead}`),
        ...(e.data.removed ?? []).map((n) => `${t}  queue   ${n}  removed`),
      ];
    case "pools":
      return [
        ...e.data.pools.map((p) => `${t}  pool    ${p.name}  size ${p.size}, live ${p.live}, claimed ${p.claimed}`),
        ...(e.data.removed ?? []).map((n) => `${t}  pool    ${n}  removed`),
      ];
    case "streams":
      return [...e.data.streams.map((s) => `${t}  stream  ${s.name}  length ${s.length}`), ...(e.data.removed ?? []).map((n) => `${t}  stream  ${n}  removed`)];
    case "sync":
      // once per connection: whether what was missed while away came again (replayed) or not (refetch)
      return e.data.mode === "fresh" ? [] : [`${t}  sync    ${e.data.mode}${e.data.replayed ? ` (${e.data.replayed} replayed)` : ""}${e.data.reason ? `  ${e.data.reason}` : ""}`];
  }
}

export const tail: CommandSpec = {
  words: ["tail"],
  summary: "Follow the live events: bus messages and changes of workers, queues, pools, streams",
  positionals: { min: 0, max: 0 },
  description:
    "Prints each event as it comes (with --json: one JSON object per line, {id, event, data}). Runs until --count " +
    "events were printed, --for seconds passed, or Ctrl-C; a stream the console ends (shutdown, credentials ended) " +
    "exits 6. A line on stderr says when the stream is connected: events published from then on arrive.",
  options: {
    topics: { type: "string", value: "GLOBS", description: "only bus messages whose topic matches one of these comma-separated globs (a,b.*)" },
    events: { type: "string", value: "KINDS", description: `only these kinds, comma-separated: ${KINDS.join(", ")}` },
    count: { type: "string", value: "N", description: "exit 0 after N events" },
    for: { type: "string", value: "SECONDS", description: "exit 0 after this long" },
  },
  examples: ["fleet tail --events workers", "fleet tail --topics 'scraper.*' --json | jq -c .data.payload", "fleet tail --count 1 --events queues"],
  async run(ctx) {
    return runTail(ctx);
  },
};

async function runTail(ctx: Context): Promise<typeof EXIT.OK> {
  const cmd = "tail";
  const kindsText = stringOpt(ctx, "events");
  const kinds =
    kindsText === undefined
      ? null
      : new Set(
          kindsText
            .split(",")
            .map((k) => k.trim())
            .filter(Boolean),
        );
  if (kinds) {
    const unknown = [...kinds].filter((k) => !KINDS.includes(k as (typeof KINDS)[number]));
    if (unknown.length > 0 || kinds.size === 0) throw new UsageError(`--events takes ${KINDS.join(", ")}; got ${JSON.stringify(kindsText)}`, cmd);
  }
  const count = intOpt(ctx, cmd, "count", { min: 1, max: Number.MAX_SAFE_INTEGER });
  const seconds = intOpt(ctx, cmd, "for", { min: 1, max: 365 * 86400 });
  const topics = stringOpt(ctx, "topics");

  const stop = new AbortController();
  const timer = seconds === undefined ? undefined : setTimeout(() => stop.abort(), seconds * 1000);
  const url = ctx.client.url("/events", { topics });
  try {
    const res = await ctx.client.fetch("GET", url, { headers: { Accept: "text/event-stream" }, signal: stop.signal });
    if (!res.ok) throw ctx.client.failure("GET", url, res, await res.text().catch(() => ""));
    if (!(res.headers.get("content-type") ?? "").includes("text/event-stream") || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw new CliError(`unexpected answer from GET ${url.pathname}: ${res.headers.get("content-type") ?? "no content type"} instead of an event stream`, EXIT.ERROR);
    }
    ctx.err(`# connected to ${ctx.client.base.origin}${url.pathname}${topics ? ` (bus topics ${topics})` : ""}`);
    let shown = 0;
    try {
      for await (const frame of sseFrames(res.body)) {
        if (kinds && !kinds.has(frame.event)) continue;
        let data: unknown;
        try {
          data = JSON.parse(frame.data);
        } catch {
          throw new CliError(`unexpected event from the console: the data of a '${printable(frame.event)}' frame is not JSON`, EXIT.ERROR);
        }
        if (KINDS.includes(frame.event as (typeof KINDS)[number])) {
          const parsed = LiveEventSchema.safeParse({ event: frame.event, data });
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            throw new CliError(`unexpected '${frame.event}' event from the console: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "bad shape"}`, EXIT.ERROR);
          }
          if (ctx.json) ctx.out(JSON.stringify({ id: frame.id, event: frame.event, data }));
          else for (const line of describe(parsed.data)) ctx.out(printable(line));
        } else {
          // a kind added after this CLI was written: shown as it is
          if (ctx.json) ctx.out(JSON.stringify({ id: frame.id, event: frame.event, data }));
          else ctx.out(printable(`${clock()}  ${frame.event}  ${compactJson(data)}`));
        }
        shown += 1;
        if (count !== undefined && shown >= count) {
          stop.abort();
          return EXIT.OK;
        }
      }
    } catch (err) {
      if (stop.signal.aborted) return EXIT.OK;
      if (err instanceof CliError) throw err;
      throw new CliError(`the event stream broke off: ${err instanceof Error ? err.message : String(err)}`, EXIT.UNAVAILABLE);
    }
    if (stop.signal.aborted) return EXIT.OK;
    throw new CliError("the console ended the event stream (it is shutting down, or the credentials ended)", EXIT.UNAVAILABLE);
  } catch (err) {
    // --for ran out while still connecting: that is the end asked for, not a failure
    if (stop.signal.aborted && !(err instanceof CliError && err.exitCode === EXIT.ERROR)) return EXIT.OK;
    throw err;
  } finally {
    if (timer) clearTimeout(timer);
  }
}
