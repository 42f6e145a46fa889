// fleet dead requeue | delete (dead search: ./search.ts)
import { DeadLetterDeleteResultSchema, DeadLetterRequeueResultSchema } from "@fleet/schema";

import { seg } from "../client";
import { flag, type CommandSpec, type Context } from "../command";
import { EXIT, UsageError } from "../exit-codes";
import { json } from "../format";
import { REF_PATTERN } from "./shared";

/** The API takes at most this many refs in one request. */
const REFS_PER_REQUEST = 1000;

/** The refs of a requeue or delete: arguments, `-` for stdin (whitespace-separated), or --all. */
async function selection(ctx: Context, cmd: string): Promise<{ all: true } | { refs: string[] }> {
  const given = ctx.args.slice(1);
  const all = flag(ctx, "all");
  if (all && given.length > 0) throw new UsageError("give refs or --all, not both", cmd);
  if (all) return { all: true };
  if (given.length === 0) throw new UsageError("give the refs of the dead letters (from `fleet dead search`), `-` to read them from stdin, or --all", cmd);
  const refs: string[] = [];
  for (const g of given) {
    if (g === "-") refs.push(...(await ctx.readStdin()).split(/\s+/).filter(Boolean));
    else refs.push(g);
  }
  const bad = refs.filter((r) => !REF_PATTERN.test(r));
  if (bad.length > 0)
    throw new UsageError(
      `not a dead-letter ref (40 lowercase hex digits): ${bad
        .slice(0, 3)
        .map((b) => JSON.stringify(b))
        .join(", ")}`,
      cmd,
    );
  if (refs.length === 0) throw new UsageError("stdin held no refs", cmd);
  return { refs: [...new Set(refs)] };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const SELECT_OPTIONS = {
  all: { type: "boolean" as const, description: "every dead letter of the queue" },
};

export const deadRequeue: CommandSpec = {
  words: ["dead", "requeue"],
  summary: "Move dead letters back onto the queue's normal pending list (operator)",
  args: "<queue> <ref>...",
  positionals: { min: 1, max: Number.POSITIVE_INFINITY },
  description:
    "Give refs (from `fleet dead search`), `-` to read them from stdin (whitespace-separated), or --all. Each request is atomic; more than 1000 refs go in requests of 1000. Refs no longer there (requeued or deleted " +
    "by someone else) are listed on stderr and make the exit code 3; the others are requeued all the same.",
  options: { ...SELECT_OPTIONS },
  examples: ["fleet dead requeue scraper 3f2a…(40 hex)", "fleet dead requeue scraper --all"],
  async run(ctx) {
    return act(ctx, "requeue");
  },
};

export const deadDelete: CommandSpec = {
  words: ["dead", "delete"],
  summary: "Delete dead letters for good (operator)",
  args: "<queue> <ref>... --yes",
  positionals: { min: 1, max: Number.POSITIVE_INFINITY },
  description:
    "Give refs (from `fleet dead search`), `-` to read them from stdin (whitespace-separated), or --all; --yes is required. " +
    "As with requeue, refs no longer there are listed on stderr and make the exit code 3.",
  options: {
    ...SELECT_OPTIONS,
    yes: { type: "boolean", short: "y", description: "really delete them (required: nothing asks)" },
  },
  examples: ["fleet dead delete scraper --all --yes"],
  async run(ctx) {
    return act(ctx, "delete");
  },
};

async function act(ctx: Context, action: "requeue" | "delete"): Promise<typeof EXIT.OK | typeof EXIT.NOT_FOUND> {
  const cmd = `dead ${action}`;
  const [queue] = ctx.args as [string];
  const which = await selection(ctx, cmd);
  if (action === "delete" && !flag(ctx, "yes")) throw new UsageError("deleting dead letters cannot be undone; add --yes to do it", cmd);
  const path = `/queues/${seg(queue)}/dead/${action}`;
  const bodies = "all" in which ? [which] : chunks(which.refs, REFS_PER_REQUEST).map((refs) => ({ refs }));
  let done = 0;
  const missing: string[] = [];
  for (const body of bodies) {
    if (action === "requeue") {
      const { data } = await ctx.client.request("POST", path, { body, schema: DeadLetterRequeueResultSchema });
      done += data.requeued;
      missing.push(...data.missing);
    } else {
      const { data } = await ctx.client.request("POST", path, { body, schema: DeadLetterDeleteResultSchema });
      done += data.deleted;
      missing.push(...data.missing);
    }
  }
  if (ctx.json) ctx.out(json(action === "requeue" ? { requeued: done, missing } : { deleted: done, missing }));
  else ctx.out(`${action === "requeue" ? "requeued" : "deleted"} ${done} dead letter${done === 1 ? "" : "s"} of queue ${queue}`);
  if (missing.length > 0) {
    ctx.err(`${missing.length} ref${missing.length === 1 ? " was" : "s were"} no longer there:\n${missing.map((r) => `  ${r}`).join("\n")}`);
    return EXIT.NOT_FOUND;
  }
  return EXIT.OK;
}
