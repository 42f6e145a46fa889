// fleet queues list | show
import { QueueDetailSchema, QueueListSchema, type Queue, type QueueList } from "@fleet/schema";

import { seg } from "../client";
import { flag, intOpt, type CommandSpec } from "../command";
import { EXIT } from "../exit-codes";
import { isoTime, json, keyValues, preview, relative, table } from "../format";
import { PAGE_OPTIONS } from "./shared";

const n = (v: number) => String(v);

export const queuesList: CommandSpec = {
  words: ["queues", "list"],
  summary: "List every queue that has any key, with its depths",
  positionals: { min: 0, max: 0 },
  options: { ...PAGE_OPTIONS },
  examples: ["fleet queues list", "fleet queues list --json | jq '.queues[] | select(.dead > 0) | .name'"],
  async run(ctx) {
    const cmd = "queues list";
    const all = flag(ctx, "all");
    const limit = intOpt(ctx, cmd, "limit", { min: 0, max: 1000, def: all ? 1000 : 100 })!;
    let offset = intOpt(ctx, cmd, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER, def: 0 })!;
    let list: QueueList | undefined;
    let raw: { total: number; queues: unknown[] } | undefined;
    for (;;) {
      const page = await ctx.client.request("GET", "/queues", { query: { limit, offset }, schema: QueueListSchema });
      const pageRaw = page.raw as { total: number; queues: unknown[] };
      list = list ? { ...page.data, queues: [...list.queues, ...page.data.queues] } : page.data;
      raw = raw ? { ...pageRaw, queues: [...raw.queues, ...pageRaw.queues] } : pageRaw;
      offset += page.data.queues.length;
      if (!all || page.data.queues.length === 0 || offset >= page.data.total) break;
    }
    if (ctx.json) {
      ctx.out(json(raw));
      return EXIT.OK;
    }
    if (list.queues.length > 0) {
      ctx.out(
        table<Queue>(list.queues, [
          { header: "NAME", value: (q) => q.name },
          { header: "PENDING", value: (q) => n(q.pending.total), align: "right" },
          { header: "HIGH", value: (q) => n(q.pending.high), align: "right" },
          { header: "NORMAL", value: (q) => n(q.pending.normal), align: "right" },
          { header: "LOW", value: (q) => n(q.pending.low), align: "right" },
          { header: "PROCESSING", value: (q) => n(q.processing), align: "right" },
          { header: "OVERDUE", value: (q) => n(q.overdue), align: "right" },
          { header: "SCHEDULED", value: (q) => n(q.scheduled), align: "right" },
          { header: "DUE", value: (q) => n(q.due), align: "right" },
          { header: "DEAD", value: (q) => n(q.dead), align: "right" },
        ]),
      );
    }
    ctx.err(`${list.queues.length} of ${list.total} queues`);
    return EXIT.OK;
  },
};

export const queuesShow: CommandSpec = {
  words: ["queues", "show"],
  summary: "Show one queue: depths, and its pending, processing and scheduled items",
  args: "<name>",
  positionals: { min: 1, max: 1 },
  options: {
    limit: { type: "string", value: "N", description: "at most N items of each list (0-1000, default 100)" },
  },
  async run(ctx) {
    const [name] = ctx.args as [string];
    const limit = intOpt(ctx, "queues show", "limit", { min: 0, max: 1000 });
    const { data: q, raw } = await ctx.client.request("GET", `/queues/${seg(name)}`, { query: { limit }, schema: QueueDetailSchema });
    if (ctx.json) {
      ctx.out(json(raw));
      return EXIT.OK;
    }
    const now = Date.now() / 1000;
    ctx.out(
      keyValues([
        ["queue", q.name],
        ["pending", `${q.pending.total} (high ${q.pending.high}, normal ${q.pending.normal}, low ${q.pending.low})`],
        ["processing", `${q.processing} (${q.overdue} overdue)`],
        ["scheduled", `${q.scheduled} (${q.due} due)`],
        ["dead", String(q.dead)],
      ]),
    );
    if (q.pending_items.length > 0) {
      ctx.out(`\npending (${q.pending_items.length} shown):`);
      ctx.out(
        table(q.pending_items, [
          { header: "PRIORITY", value: (i) => i.priority },
          { header: "TASK ID", value: (i) => i.task_id ?? "-" },
          { header: "BYTES", value: (i) => String(i.body.bytes), align: "right" },
          { header: "BODY", value: (i) => preview(i.body), max: 80 },
        ]),
      );
    }
    if (q.processing_items.length > 0) {
      ctx.out(`\nprocessing (${q.processing_items.length} shown):`);
      ctx.out(
        table(q.processing_items, [
          { header: "ID", value: (i) => i.id },
          { header: "DEADLINE", value: (i) => `${isoTime(i.deadline)} (${relative(i.deadline, now)})` },
          { header: "OVERDUE", value: (i) => (i.overdue ? "yes" : "no") },
          { header: "BODY", value: (i) => preview(i.body), max: 60 },
        ]),
      );
    }
    if (q.scheduled_items.length > 0) {
      ctx.out(`\nscheduled (${q.scheduled_items.length} shown):`);
      ctx.out(
        table(q.scheduled_items, [
          { header: "READY AT", value: (i) => `${isoTime(i.ready_at)} (${relative(i.ready_at, now)})` },
          { header: "TASK ID", value: (i) => i.task_id ?? "-" },
          { header: "BODY", value: (i) => preview(i.body), max: 60 },
        ]),
      );
    }
    return EXIT.OK;
  },
};
