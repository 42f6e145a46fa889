// `pnpm master` (= `pnpm --filter @fleet/worker master --`): Fleet's master housekeeping on a
// real Redis, for fleets without a Python master. See ./master.ts and the root README.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { maskUrl } from "@fleet/backend";
import { backendFromUrl } from "@fleet/backend/url";
import type { Automation } from "./automation";
import { cfCookiesAutomation, enricherAutomation, scraperAutomation } from "./demo/automations";
import { MASTER_LOCK, startMaster } from "./master";
import { onShutdownSignal } from "./signals";

const USAGE = `usage: pnpm master [options]

Runs Fleet's master housekeeping against a Redis: one leader among every copy (through the
Fleet lock fleet:lock:<lock>); the leader replaces fleet:catalog with the given automations'
schemas when it takes the lead, then re-queues expired reservations of every queue.

  --backend URL           redis://[:password@]host:port/db (default: $FLEET_BACKEND_URL)
  --automations MODULE    a module exporting \`automations\` (or a default export): Automation[]
  --demo-catalog          publish the demo fleet's automations (scraper, cf-cookies, enricher)
  --no-catalog            leave fleet:catalog alone (a Python master publishes it)
  --sweep-interval-ms N   default 10000
  --hold-seconds N        how long the lead outlives a silent leader (default 30)
  --lock NAME             default ${MASTER_LOCK}
  --quiet                 no log lines
  -h, --help`;

async function loadAutomations(spec: string): Promise<Automation[]> {
  const mod = (await import(pathToFileURL(path.resolve(spec)).href)) as { automations?: unknown; default?: unknown };
  const list = mod.automations ?? mod.default;
  if (!Array.isArray(list) || list.some((a) => !a || typeof (a as Automation).type !== "string")) {
    throw new Error(`${spec} exports no automations: export \`automations\` (or a default export) as an array of defineAutomation(...) results`);
  }
  return list as Automation[];
}

async function main(): Promise<void> {
  const args = (() => {
    try {
      return parseArgs({
        args: process.argv.slice(2).filter((a) => a !== "--"),
        options: {
          backend: { type: "string" },
          automations: { type: "string" },
          "demo-catalog": { type: "boolean", default: false },
          "no-catalog": { type: "boolean", default: false },
          "sweep-interval-ms": { type: "string" },
          "hold-seconds": { type: "string" },
          lock: { type: "string" },
          quiet: { type: "boolean", default: false },
          help: { type: "boolean", short: "h", default: false },
        },
        strict: true,
      }).values;
    } catch (err) {
      console.error(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
      process.exit(2);
    }
  })();
  if (args.help) {
    console.log(USAGE);
    return;
  }
  const num = (name: string, v: string | undefined, min: number): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) {
      console.error(`--${name} must be a number of at least ${min}, got ${JSON.stringify(v)}`);
      process.exit(2);
    }
    return n;
  };
  const sweepIntervalMs = num("sweep-interval-ms", args["sweep-interval-ms"], 100);
  const holdSeconds = num("hold-seconds", args["hold-seconds"], 1);
  if ([args.automations, args["demo-catalog"] || undefined, args["no-catalog"] || undefined].filter(Boolean).length > 1) {
    console.error("choose one of --automations, --demo-catalog and --no-catalog");
    process.exit(2);
  }
  const url = args.backend ?? process.env.FLEET_BACKEND_URL;
  if (!url) {
    console.error(`no backend: pass --backend redis://host:port/db or set FLEET_BACKEND_URL\n\n${USAGE}`);
    process.exit(2);
  }
  if (url.startsWith("memory:")) {
    console.error("a master needs a shared Redis: a memory:// backend lives in this process only");
    process.exit(2);
  }
  const log = args.quiet ? () => {} : (line: string) => console.log(`${new Date().toISOString()} ${line}`);
  const automations = args.automations ? await loadAutomations(args.automations) : args["demo-catalog"] ? [scraperAutomation(), cfCookiesAutomation(), enricherAutomation()] : [];
  if (!args.automations && !args["demo-catalog"] && !args["no-catalog"]) {
    log("master: no --automations given: fleet:catalog will be cleared when this master leads (--no-catalog leaves it alone)");
  }
  const backend = backendFromUrl(url);
  await backend.health();
  log(`master: backend ${maskUrl(url)}`);
  const starting = startMaster({
    backend,
    automations,
    catalog: args["no-catalog"] ? "none" : "replace",
    log,
    ...(sweepIntervalMs ? { sweepIntervalMs } : {}),
    ...(holdSeconds ? { holdSeconds } : {}),
    ...(args.lock ? { lockName: args.lock } : {}),
  });
  // before the start settles: a SIGTERM while it takes the lead (it logs "catalog replaced"
  // then) still releases the lock, instead of killing the process by the default action
  onShutdownSignal(async () => {
    const m = await starting.catch(() => null);
    await m?.stop();
    await backend.close();
  }, log);
  const master = await starting;
  if (!master.isLeader) log("master: following (another master leads); retrying the lock");
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
