// fleet bulk preview | start | status | list | cancel: act on a search's matches on the console
// (POST /queues/{name}/bulk and its job routes, issue 14.2), following a job live over the
// event stream (`event:fleet.bulk`, GET /events), with a poll as the fallback.
import { BULK_ACTION_LISTS, BULK_ACTIONS, BULK_DEFAULT_RATE, BULK_MAX_RATE, BulkJobSchema, BulkJobsSchema, type BulkAction, type BulkJob } from "@fleet/schema";

import { seg } from "../client";
import { choiceOpt, flag, intOpt, type CommandSpec, type Context } from "../command";
import { CliError, EXIT, UsageError, type ExitCode } from "../exit-codes";
import { isoTime, json, table } from "../format";
import { FILTER_OPTIONS, filterOpts, runSearch } from "./search";
import { sseFrames, type SseFrame } from "./tail";

/** The bus topic a console publishes its bulk jobs on (apps/web/src/server/bulk). */
export const BULK_TOPIC = "fleet.bulk";
/** With the stream open, ask the console for the job when it said nothing for this long. */
const QUIET_POLL_MS = 5000;
/** Without the stream, ask this often. */
const POLL_MS = 1000;

const NOUNS: Record<BulkAction, [string, string]> = {
  "requeue-dead": ["dead letter", "dead letters"],
  "delete-dead": ["dead letter", "dead letters"],
  "delete-pending": ["pending task", "pending tasks"],
};
const count = (n: number, action: BulkAction) => `${n} ${n === 1 ? NOUNS[action][0] : NOUNS[action][1]}`;
const verbOf = (action: BulkAction) => (action === "requeue-dead" ? "requeue" : "delete");
const pastOf = (action: BulkAction) => (action === "requeue-dead" ? "requeued" : "deleted");

/** The newer of two readings of one job (a frame that came late must not undo a newer one). */
export function newerJob(old: BulkJob, next: BulkJob): BulkJob {
  const ended = (j: BulkJob) => j.state !== "running";
  if (ended(old) && !ended(next)) return old;
  if (ended(old) === ended(next) && next.scanned < old.scanned) return old;
  return next;
}

/** How a job that ended is said, and the exit code a script acts on. */
export function jobOutcome(job: BulkJob): { text: string; code: ExitCode } {
  const facts = [`${job.expected} at the preview`, job.missing > 0 ? `${job.missing} gone before they could be ${pastOf(job.action)}` : null].filter(Boolean).join("; ");
  const text = `${pastOf(job.action)} ${count(job.done, job.action)} of queue ${job.queue} (${facts}), ${job.scanned} read: ${job.state}${job.note ? ` (${job.note})` : ""}`;
  if (job.state === "done") return { text, code: job.missing > 0 ? EXIT.NOT_FOUND : EXIT.OK };
  if (job.state === "cancelled") return { text, code: EXIT.CONFLICT };
  if (job.state === "failed") return { text, code: EXIT.ERROR };
  return { text, code: EXIT.OK };
}

function progressText(job: BulkJob): string {
  return `${job.state === "running" ? "running" : job.state}: ${pastOf(job.action)} ${job.done} of ${job.expected} previewed${job.missing > 0 ? `, ${job.missing} gone meanwhile` : ""}, ${job.scanned} read`;
}

interface EventStream {
  frames: AsyncIterator<SseFrame>;
  close(): void;
}

/**
 * The console's event stream, bus messages of bulk jobs only, open once its first frame (the
 * sync frame) came or `waitMs` passed; null when it cannot be had (then the job is polled).
 */
async function openEvents(ctx: Context, waitMs: number): Promise<EventStream | null> {
  const stop = new AbortController();
  const url = ctx.client.url("/events", { topics: BULK_TOPIC });
  try {
    const res = await ctx.client.fetch("GET", url, { headers: { Accept: "text/event-stream" }, signal: stop.signal });
    if (!res.ok || !res.body || !(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
      await res.body?.cancel().catch(() => undefined);
      return null;
    }
    const frames = sseFrames(res.body)[Symbol.asyncIterator]();
    const first = frames.next();
    first.catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([first, new Promise((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
    return { frames: withFirst(first, frames), close: () => stop.abort() };
  } catch {
    stop.abort();
    return null;
  }
}

/** The iterator again, the frame already asked for first. */
function withFirst(first: Promise<IteratorResult<SseFrame>>, rest: AsyncIterator<SseFrame>): AsyncIterator<SseFrame> {
  let pending: Promise<IteratorResult<SseFrame>> | null = first;
  return {
    next: () => {
      const p = pending ?? rest.next();
      pending = null;
      return p;
    },
  };
}

/** Follows a job until it ends: its frames on the stream, the job's route when they stop coming. Progress on stderr. */
async function follow(ctx: Context, job: BulkJob, events: EventStream | null): Promise<BulkJob> {
  let latest = job;
  // woken by a frame of this job, or by the stream's end (a holder: assigned in closures)
  const waiter: { wake: (() => void) | null } = { wake: null };
  let streaming = events !== null;
  const reading = (async () => {
    if (!events) return;
    try {
      for (;;) {
        const r = await events.frames.next();
        if (r.done) break;
        if (r.value.event !== "bus") continue;
        let data: unknown;
        try {
          data = JSON.parse(r.value.data);
        } catch {
          continue;
        }
        const d = data as { topic?: unknown; payload?: unknown };
        if (d.topic !== BULK_TOPIC) continue;
        const parsed = BulkJobSchema.safeParse(d.payload);
        if (!parsed.success || parsed.data.id !== job.id || parsed.data.queue !== job.queue) continue;
        latest = newerJob(latest, parsed.data);
        waiter.wake?.();
      }
    } catch {
      // the stream broke off: poll instead
    } finally {
      streaming = false;
      waiter.wake?.();
    }
  })();
  // every new reading once (the console sends at most two a second)
  let shown = "";
  const show = () => {
    const text = progressText(latest);
    if (text === shown) return;
    shown = text;
    ctx.err(`# ${text}`);
  };
  show();
  try {
    while (latest.state === "running") {
      const before = latest;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        waiter.wake = resolve;
        timer = setTimeout(resolve, streaming ? QUIET_POLL_MS : POLL_MS);
      });
      clearTimeout(timer);
      waiter.wake = null;
      if (latest === before) {
        const { data } = await ctx.client.request("GET", `/queues/${seg(job.queue)}/bulk/${seg(job.id)}`, { schema: BulkJobSchema });
        latest = newerJob(latest, data);
      }
      show();
    }
    show();
    return latest;
  } finally {
    events?.close();
    await reading;
  }
}

function actionOpt(ctx: Context, cmd: string): BulkAction {
  const action = choiceOpt(ctx, cmd, "action", BULK_ACTIONS);
  if (action === undefined) throw new UsageError(`--action is required: ${BULK_ACTIONS.join(", ")}`, cmd);
  return action;
}

function searchOpts(ctx: Context, cmd: string): { q?: string; where?: string } {
  const f = filterOpts(ctx);
  if (f.q === undefined && f.where === undefined) throw new UsageError("give --text or --where: a bulk action acts on a search's matches", cmd);
  return f;
}

const ACTION_OPTIONS = {
  action: { type: "string" as const, value: "ACTION", description: `${BULK_ACTIONS.join(", ")} (required)` },
  ...FILTER_OPTIONS,
};

async function preview(ctx: Context, queue: string, action: BulkAction, f: { q?: string; where?: string }, limit: number) {
  return runSearch(ctx, queue, { ...f, lists: [BULK_ACTION_LISTS[action]], limit });
}

export const bulkPreview: CommandSpec = {
  words: ["bulk", "preview"],
  summary: "How many tasks a bulk action would act on, and the first ones",
  args: "<queue>",
  positionals: { min: 1, max: 1 },
  description:
    "The search the action acts on (its list: dead letters for requeue-dead and delete-dead, the pending lists for " +
    "delete-pending), counted to its end; nothing is changed. `fleet bulk start` with the same options does it.",
  options: { ...ACTION_OPTIONS, limit: { type: "string", value: "N", description: "show the first N matches (0-1000, default 5)" } },
  examples: ["fleet bulk preview scraper --action requeue-dead --where 'error_group = \"Timeout after <n>s\"'"],
  async run(ctx) {
    const cmd = "bulk preview";
    const [queue] = ctx.args as [string];
    const action = actionOpt(ctx, cmd);
    const f = searchOpts(ctx, cmd);
    const limit = intOpt(ctx, cmd, "limit", { min: 0, max: 1000, def: 5 })!;
    const r = await preview(ctx, queue, action, f, limit);
    if (ctx.json) {
      ctx.out(json({ queue, action, q: f.q ?? null, where: f.where ?? null, matched: r.done.matched, scanned: r.done.scanned, first: r.raw }));
      return EXIT.OK;
    }
    ctx.out(`${count(r.done.matched, action)} of queue ${queue} match (${r.done.scanned} read); \`fleet bulk start\` would ${verbOf(action)} them`);
    if (r.matches.length > 0) {
      ctx.out(
        table(r.matches, [
          { header: "REF", value: (m) => m.ref },
          { header: "TASK ID", value: (m) => m.task_id ?? "-" },
          { header: "LAST ERROR", value: (m) => m.last_error ?? "-", max: 60 },
        ]),
      );
    }
    return EXIT.OK;
  },
};

export const bulkStart: CommandSpec = {
  words: ["bulk", "start"],
  summary: "Requeue or delete every match of a search, on the console, at a rate cap (operator)",
  args: "<queue>",
  positionals: { min: 1, max: 1 },
  description:
    "Previews first (the count), asks to confirm it (on a terminal; elsewhere --yes is required), starts the job " +
    "(POST /queues/{name}/bulk) and follows it live until it ends, progress on stderr. The job runs on the console: " +
    "Ctrl-C leaves it running (`fleet bulk cancel` stops it), and it survives a restart of the console. Exit 0 when " +
    "it is done, 3 when some matches were gone before they could be acted on (taken by a worker, removed meanwhile), " +
    "4 when it was cancelled or --expect did not hold, 1 when it failed.",
  options: {
    ...ACTION_OPTIONS,
    rate: { type: "string", value: "N", description: `at most N tasks a second (1-${BULK_MAX_RATE}, default ${BULK_DEFAULT_RATE})` },
    expect: { type: "string", value: "N", description: "start only if the preview counts exactly N matches (else exit 4, nothing started)" },
    yes: { type: "boolean", short: "y", description: "do not ask (required when not on a terminal)" },
    detach: { type: "boolean", description: "print the job and exit 0 once it started; do not follow it" },
  },
  examples: [
    "fleet bulk start scraper --action requeue-dead --where 'error_group = \"Timeout after <n>s\"' --rate 50",
    "fleet bulk start scraper --action delete-dead --text 'HTTP 410' --expect 12 --yes --json",
  ],
  async run(ctx) {
    const cmd = "bulk start";
    const [queue] = ctx.args as [string];
    const action = actionOpt(ctx, cmd);
    const f = searchOpts(ctx, cmd);
    const rate = intOpt(ctx, cmd, "rate", { min: 1, max: BULK_MAX_RATE, def: BULK_DEFAULT_RATE })!;
    const expect = intOpt(ctx, cmd, "expect", { min: 0, max: Number.MAX_SAFE_INTEGER });
    const yes = flag(ctx, "yes");
    if (!yes && !ctx.confirm) throw new UsageError("not on a terminal, so nothing can ask: add --yes to start the job", cmd);
    const r = await preview(ctx, queue, action, f, 0);
    const matched = r.done.matched;
    if (expect !== undefined && matched !== expect) {
      throw new CliError(`the search now matches ${count(matched, action)}, not ${expect}: nothing started`, EXIT.CONFLICT);
    }
    if (matched === 0) {
      if (ctx.json) ctx.out(json({ started: false, matched: 0 }));
      ctx.err(`no ${NOUNS[action][0]} of queue ${queue} matches (${r.done.scanned} read): nothing started`);
      return EXIT.OK;
    }
    const question = `${verbOf(action) === "requeue" ? "Requeue" : "Delete"} ${count(matched, action)} of queue ${queue}, at most ${rate} a second${action === "requeue-dead" ? " (attempts back to 0)" : " (this cannot be undone)"}?`;
    if (!yes && !(await ctx.confirm!(question))) throw new CliError("not confirmed: nothing started", EXIT.ERROR);
    const detach = flag(ctx, "detach");
    // open before the start, so that not even a job that ends at once is missed
    const events = detach ? null : await openEvents(ctx, 5000);
    let job: BulkJob;
    try {
      ({ data: job } = await ctx.client.request("POST", `/queues/${seg(queue)}/bulk`, {
        body: { action, ...(f.q !== undefined ? { q: f.q } : {}), ...(f.where !== undefined ? { where: f.where } : {}), rate, expected: matched },
        schema: BulkJobSchema,
      }));
    } catch (err) {
      events?.close();
      throw err;
    }
    ctx.err(`# job ${job.id} started: ${verbOf(action)} ${count(matched, action)} of queue ${queue}, at most ${rate} a second`);
    if (detach) {
      ctx.out(ctx.json ? json(job) : job.id);
      return EXIT.OK;
    }
    return finish(ctx, await follow(ctx, job, events));
  },
};

function finish(ctx: Context, job: BulkJob): ExitCode {
  const { text, code } = jobOutcome(job);
  if (ctx.json) ctx.out(json(job));
  else ctx.out(text);
  return code;
}

export const bulkStatus: CommandSpec = {
  words: ["bulk", "status"],
  summary: "A bulk job's state and counts; --follow waits for its end",
  args: "<queue> <job-id>",
  positionals: { min: 2, max: 2 },
  description:
    "GET /queues/{name}/bulk/{id}. Exits 0 while it runs; a job that ended exits as `fleet bulk start` does at its end (3 matches gone meanwhile, 4 cancelled, 1 failed). With --follow, it is followed live to its end as `fleet bulk start` follows it.",
  options: { follow: { type: "boolean", short: "f", description: "follow it live until it ends" } },
  examples: ["fleet bulk status scraper 3f2a9c0d1e2b4a5f --follow"],
  async run(ctx) {
    const [queue, id] = ctx.args as [string, string];
    const path = `/queues/${seg(queue)}/bulk/${seg(id)}`;
    if (flag(ctx, "follow")) {
      const events = await openEvents(ctx, 5000);
      let job: BulkJob;
      try {
        ({ data: job } = await ctx.client.request("GET", path, { schema: BulkJobSchema }));
      } catch (err) {
        events?.close();
        throw err;
      }
      return finish(ctx, await follow(ctx, job, events));
    }
    const { data, raw } = await ctx.client.request("GET", path, { schema: BulkJobSchema });
    if (ctx.json) ctx.out(json(raw));
    else ctx.out(data.state === "running" ? progressText(data) : jobOutcome(data).text);
    return data.state === "running" ? EXIT.OK : jobOutcome(data).code;
  },
};

export const bulkList: CommandSpec = {
  words: ["bulk", "list"],
  summary: "A queue's bulk jobs, newest first",
  args: "<queue>",
  positionals: { min: 1, max: 1 },
  options: {},
  async run(ctx) {
    const [queue] = ctx.args as [string];
    const { data, raw } = await ctx.client.request("GET", `/queues/${seg(queue)}/bulk`, { schema: BulkJobsSchema });
    if (ctx.json) {
      ctx.out(json(raw));
      return EXIT.OK;
    }
    if (data.jobs.length > 0) {
      ctx.out(
        table(data.jobs, [
          { header: "ID", value: (j) => j.id },
          { header: "ACTION", value: (j) => j.action },
          { header: "STATE", value: (j) => j.state },
          { header: "DONE", value: (j) => String(j.done), align: "right" },
          { header: "OF", value: (j) => String(j.expected), align: "right" },
          { header: "GONE", value: (j) => String(j.missing), align: "right" },
          { header: "BY", value: (j) => j.created_by },
          { header: "STARTED", value: (j) => isoTime(j.created_at) },
          { header: "SEARCH", value: (j) => [j.q !== null ? `text ${JSON.stringify(j.q)}` : null, j.where].filter(Boolean).join(" and "), max: 60 },
        ]),
      );
    }
    ctx.err(`${data.jobs.length} bulk job${data.jobs.length === 1 ? "" : "s"} on queue ${queue}`);
    return EXIT.OK;
  },
};

export const bulkCancel: CommandSpec = {
  words: ["bulk", "cancel"],
  summary: "Stop a running bulk job after its current chunk (operator)",
  args: "<queue> <job-id>",
  positionals: { min: 2, max: 2 },
  description: "POST /queues/{name}/bulk/{id}/cancel: what it did stays done. A job that already ended exits 4.",
  options: {},
  async run(ctx) {
    const [queue, id] = ctx.args as [string, string];
    const { data, raw } = await ctx.client.request("POST", `/queues/${seg(queue)}/bulk/${seg(id)}/cancel`, { schema: BulkJobSchema });
    if (ctx.json) ctx.out(json(raw));
    else ctx.out(`cancelled job ${id}: ${pastOf(data.action)} ${count(data.done, data.action)} so far`);
    return EXIT.OK;
  },
};
