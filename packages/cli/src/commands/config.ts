// fleet config get | patch
import { readFile } from "node:fs/promises";
import path from "node:path";

import { ConfigResultSchema, WorkerDetailSchema } from "@fleet/schema";

import { seg } from "../client";
import { flag, listOpt, stringOpt, type CommandSpec, type Context } from "../command";
import { EXIT, UsageError } from "../exit-codes";
import { json } from "../format";

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

export const configGet: CommandSpec = {
  words: ["config", "get"],
  summary: "Print a worker's config and its generation (what --if-match takes)",
  args: "<type> <id>",
  positionals: { min: 2, max: 2 },
  options: {},
  examples: ["fleet config get scraper w-1", "fleet config get scraper w-1 --json | jq .config_gen"],
  async run(ctx) {
    const [type, id] = ctx.args as [string, string];
    const { data: w } = await ctx.client.request("GET", `/workers/${seg(type)}/${seg(id)}`, { schema: WorkerDetailSchema });
    if (ctx.json) {
      ctx.out(json({ automation_type: w.automation_type, worker_id: w.worker_id, config: w.config, config_gen: w.config_gen }));
      return EXIT.OK;
    }
    ctx.err(`config of ${w.automation_type}/${w.worker_id}, generation ${w.config_gen ?? "unknown"}:`);
    ctx.out(json(w.config));
    return EXIT.OK;
  },
};

/** `a.b=1` -> {"a": {"b": 1}}; the value is JSON when it parses as JSON, else a string. */
export function setPatch(patch: JsonObject, assignment: string, cmd: string): void {
  const eq = assignment.indexOf("=");
  if (eq <= 0) throw new UsageError(`--set takes KEY=VALUE, got ${JSON.stringify(assignment)}`, cmd);
  const keys = assignment.slice(0, eq).split(".");
  if (keys.some((k) => k === "")) throw new UsageError(`--set: empty key in ${JSON.stringify(assignment.slice(0, eq))}`, cmd);
  const text = assignment.slice(eq + 1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = text;
  }
  put(patch, keys, value);
}

function put(target: JsonObject, keys: string[], value: unknown): void {
  let node = target;
  for (const k of keys.slice(0, -1)) {
    if (!isObject(node[k])) node[k] = {};
    node = node[k] as JsonObject;
  }
  node[keys[keys.length - 1]!] = value;
}

/** RFC 7386 applied to two patches: `b` on top of `a`, objects merged, anything else replaced. */
function mergePatches(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObject(v) && isObject(out[k]) ? mergePatches(out[k] as JsonObject, v) : v;
  return out;
}

async function readPatchSource(ctx: Context, cmd: string): Promise<JsonObject> {
  const data = stringOpt(ctx, "data");
  const file = stringOpt(ctx, "file");
  if (data !== undefined && file !== undefined) throw new UsageError("give --data or --file, not both", cmd);
  let text: string | undefined;
  let from = "";
  if (data !== undefined) {
    text = data;
    from = "--data";
  } else if (file !== undefined) {
    from = file === "-" ? "stdin" : file;
    try {
      text = file === "-" ? await ctx.readStdin() : await readFile(path.resolve(ctx.cwd, file), "utf8");
    } catch (err) {
      throw new UsageError(`cannot read ${from}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, cmd);
    }
  }
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${from} is not valid JSON: ${(err as Error).message}`, cmd);
  }
  if (!isObject(value)) throw new UsageError(`${from} must hold a JSON object (the ${flag(ctx, "replace") ? "config" : "merge patch"})`, cmd);
  return value;
}

export const configPatch: CommandSpec = {
  words: ["config", "patch"],
  summary: "Change a worker's config with a JSON merge patch, or replace it (admin)",
  args: "<type> <id>",
  positionals: { min: 2, max: 2 },
  description:
    "Builds one JSON merge patch (RFC 7386) from --data or --file, then --set and --unset on top, and sends it with " +
    "PATCH; the console validates the merged config against the automation's config schema and writes it with a new " +
    "generation. --if-match makes the write conditional: if the config is no longer at that generation (someone " +
    "changed it since you read it), nothing is written and the exit code is 4. --replace sends the object as the " +
    "whole new config (PUT) instead.",
  options: {
    set: { type: "string", multiple: true, value: "KEY=VALUE", description: "set KEY (dots for nesting: a.b=1); VALUE is JSON if it parses, else a string" },
    unset: { type: "string", multiple: true, value: "KEY", description: "remove KEY (a null in the merge patch)" },
    data: { type: "string", value: "JSON", description: "the merge patch (or, with --replace, the config) as JSON" },
    file: { type: "string", value: "PATH", description: "read it from a file, or - for stdin" },
    "if-match": { type: "string", value: "GEN", description: "only if the config is still at generation GEN (from `fleet config get`)" },
    replace: { type: "boolean", description: "replace the whole config (PUT) instead of patching" },
  },
  examples: [
    "fleet config patch scraper w-1 --set slots=4 --set mode=fast",
    "fleet config patch scraper w-1 --set proxy.region=eu --unset debug --if-match 7",
    "fleet config patch scraper w-1 --replace --file config.json",
  ],
  async run(ctx) {
    const cmd = "config patch";
    const [type, id] = ctx.args as [string, string];
    let patch = await readPatchSource(ctx, cmd);
    const extra: JsonObject = {};
    for (const s of listOpt(ctx, "set")) setPatch(extra, s, cmd);
    for (const u of listOpt(ctx, "unset")) {
      if (u === "" || u.split(".").some((k) => k === "")) throw new UsageError(`--unset: bad key ${JSON.stringify(u)}`, cmd);
      put(extra, u.split("."), null);
    }
    patch = mergePatches(patch, extra);
    if (Object.keys(patch).length === 0) throw new UsageError("nothing to change: give --set, --unset, --data or --file", cmd);
    const replace = flag(ctx, "replace");
    if (replace && listOpt(ctx, "unset").length > 0) throw new UsageError("--unset has no meaning with --replace (leave the key out)", cmd);
    const headers: Record<string, string> = {};
    const ifMatch = stringOpt(ctx, "if-match");
    if (ifMatch !== undefined) {
      if (ifMatch !== "*" && !/^\d+$/.test(ifMatch)) throw new UsageError(`--if-match takes a config generation (a whole number) or *, got ${JSON.stringify(ifMatch)}`, cmd);
      headers["If-Match"] = ifMatch === "*" ? "*" : `"${ifMatch}"`;
    }
    const { data, raw } = await ctx.client.request(replace ? "PUT" : "PATCH", `/workers/${seg(type)}/${seg(id)}/config`, {
      body: patch,
      headers,
      schema: ConfigResultSchema,
    });
    if (ctx.json) {
      ctx.out(json(raw));
      return EXIT.OK;
    }
    ctx.err(`config of ${type}/${id} is now at generation ${data.config_gen}:`);
    ctx.out(json(data.config));
    return EXIT.OK;
  },
};
