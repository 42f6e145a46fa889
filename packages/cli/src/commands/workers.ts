// fleet workers list | show | remove
import { DeletedSchema, WorkerDetailSchema, WorkerListSchema, WorkerStatusSchema, WorkersSortSchema, type Worker, type WorkerList } from "@fleet/schema";

import { seg } from "../client";
import { choiceOpt, flag, intOpt, stringOpt, type CommandSpec } from "../command";
import { EXIT, UsageError } from "../exit-codes";
import { compactJson, isoTime, json, keyValues, relative, table } from "../format";
import { PAGE_OPTIONS } from "./shared";

const host = (w: Worker) => {
  const h = w.hardware?.hostname;
  return typeof h === "string" ? h : "-";
};

export const workersList: CommandSpec = {
  words: ["workers", "list"],
  summary: "List workers (sorted by type, then id) with their status",
  positionals: { min: 0, max: 0 },
  options: {
    type: { type: "string", value: "TYPE", description: "only workers of this automation type" },
    status: { type: "string", value: "STATUS", description: `only this status: ${WorkerStatusSchema.options.join(", ")}` },
    search: { type: "string", short: "q", value: "TEXT", description: "worker id or hostname contains TEXT" },
    sort: { type: "string", value: "ORDER", description: `${WorkersSortSchema.options.join(", ")} (default name)` },
    ...PAGE_OPTIONS,
  },
  examples: ["fleet workers list --type scraper --status error", "fleet workers list --all --json | jq -r '.workers[].worker_id'"],
  async run(ctx) {
    const cmd = "workers list";
    const status = choiceOpt(ctx, cmd, "status", WorkerStatusSchema.options);
    const sort = choiceOpt(ctx, cmd, "sort", WorkersSortSchema.options);
    const all = flag(ctx, "all");
    const limit = intOpt(ctx, cmd, "limit", { min: 0, max: 1000, def: all ? 1000 : 100 })!;
    let offset = intOpt(ctx, cmd, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER, def: 0 })!;
    const query = { type: stringOpt(ctx, "type"), status, q: stringOpt(ctx, "search"), sort };
    let list: WorkerList | undefined;
    let raw: { total: number; counts: unknown; workers: unknown[] } | undefined;
    // --all: page after page until every matching worker is read
    for (;;) {
      const page = await ctx.client.request("GET", "/workers", { query: { ...query, limit, offset }, schema: WorkerListSchema });
      const pageRaw = page.raw as { total: number; counts: unknown; workers: unknown[] };
      if (!list || !raw) {
        list = page.data;
        raw = pageRaw;
      } else {
        list = { ...page.data, workers: [...list.workers, ...page.data.workers] };
        raw = { ...pageRaw, workers: [...raw.workers, ...pageRaw.workers] };
      }
      offset += page.data.workers.length;
      if (!all || page.data.workers.length === 0 || offset >= page.data.total) break;
    }
    if (ctx.json) {
      ctx.out(json(raw));
      return EXIT.OK;
    }
    const now = Date.now() / 1000;
    if (list.workers.length > 0) {
      ctx.out(
        table(list.workers, [
          { header: "TYPE", value: (w) => w.automation_type },
          { header: "ID", value: (w) => w.worker_id },
          { header: "STATUS", value: (w) => w.status },
          { header: "LAST SEEN", value: (w) => relative(w.last_seen, now) },
          { header: "HOST", value: host, max: 32 },
          { header: "GEN", value: (w) => (w.config_gen === null ? "-" : String(w.config_gen)), align: "right" },
          { header: "LAST ERROR", value: (w) => w.last_error ?? "", max: 60 },
        ]),
      );
    }
    const c = list.counts;
    const first = list.workers.length > 0 ? offset - list.workers.length + 1 : 0;
    ctx.err(
      `${list.workers.length === 0 ? "no workers" : `workers ${first}-${offset}`} of ${list.total} · running ${c.running}, idle ${c.idle}, error ${c.error}, offline ${c.offline}`,
    );
    return EXIT.OK;
  },
};

export const workersShow: CommandSpec = {
  words: ["workers", "show"],
  summary: "Show one worker: status, heartbeat, config, hardware, stats",
  args: "<type> <id>",
  positionals: { min: 2, max: 2 },
  options: {},
  async run(ctx) {
    const [type, id] = ctx.args as [string, string];
    const { data: w, raw } = await ctx.client.request("GET", `/workers/${seg(type)}/${seg(id)}`, { schema: WorkerDetailSchema });
    if (ctx.json) {
      ctx.out(json(raw));
      return EXIT.OK;
    }
    const pairs: Array<[string, string]> = [
      ["worker", `${w.automation_type}/${w.worker_id}`],
      ["status", `${w.status}${w.state ? ` (state ${w.state})` : ""}`],
      ["last seen", w.last_seen === null ? "-" : `${isoTime(w.last_seen)} (${relative(w.last_seen)})`],
      ["last error", w.last_error ?? "-"],
      ["host", host(w)],
      ["config gen", w.config_gen === null ? "-" : String(w.config_gen)],
      ["config", compactJson(w.config)],
      ["hardware", compactJson(w.hardware)],
      ["stats", compactJson(w.stats)],
      ["history", `${w.history_len} stats frames`],
    ];
    if (w.corrupt && w.corrupt.length > 0) pairs.push(["unreadable", w.corrupt.join(", ")]);
    ctx.out(keyValues(pairs));
    return EXIT.OK;
  },
};

export const workersRemove: CommandSpec = {
  words: ["workers", "remove"],
  summary: "Remove every key of a worker (stats history too) and its index entries (admin)",
  args: "<type> <id>",
  positionals: { min: 2, max: 2 },
  options: {
    yes: { type: "boolean", short: "y", description: "really remove it (required: nothing asks)" },
  },
  examples: ["fleet workers remove scraper w-17 --yes"],
  async run(ctx) {
    const [type, id] = ctx.args as [string, string];
    if (!flag(ctx, "yes")) throw new UsageError(`removing worker ${type}/${id} deletes all its keys; add --yes to do it`, "workers remove");
    const { raw } = await ctx.client.request("DELETE", `/workers/${seg(type)}/${seg(id)}`, { schema: DeletedSchema });
    if (ctx.json) ctx.out(json(raw));
    else ctx.out(`removed worker ${type}/${id}`);
    return EXIT.OK;
  },
};
