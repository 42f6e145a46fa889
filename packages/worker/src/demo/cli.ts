// `pnpm --filter @fleet/worker demo --backend redis://127.0.0.1:6379/0` (or FLEET_BACKEND_URL):
// runs the demo fleet and the housekeeping in this process until SIGTERM/SIGINT.
import { maskUrl } from "@fleet/backend";
import { backendFromUrl } from "@fleet/backend/url";
import { onShutdownSignal } from "../signals";
import { startDemoFleet } from "./index";

function parseArgs(argv: string[]): { backend?: string; heartbeatMs?: number; quiet: boolean } {
  const out: { backend?: string; heartbeatMs?: number; quiet: boolean } = { quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    // pnpm may pass the `--` separator through
    if (a === "--") continue;
    const [flag, inline] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--backend") out.backend = value();
    else if (flag === "--heartbeat-ms") out.heartbeatMs = Number(value());
    else if (flag === "--quiet") out.quiet = true;
    else if (flag === "--help" || flag === "-h") {
      console.log("usage: demo [--backend redis://host:port/db] [--heartbeat-ms 3000] [--quiet]\n  the backend URL defaults to $FLEET_BACKEND_URL, then redis://127.0.0.1:6379/0");
      process.exit(0);
    } else {
      console.error(`unknown argument ${a}; try --help`);
      process.exit(2);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const url = args.backend ?? process.env.FLEET_BACKEND_URL ?? "redis://127.0.0.1:6379/0";
  if (url.startsWith("memory:")) console.error("warning: a memory:// backend lives in this process only; the console will not see this fleet");
  const log = args.quiet ? () => {} : (line: string) => console.log(`${new Date().toISOString()} ${line}`);
  const backend = backendFromUrl(url);
  await backend.health();
  log(`demo: backend ${maskUrl(url)}`);
  const starting = startDemoFleet(backend, { log, ...(args.heartbeatMs ? { heartbeatMs: args.heartbeatMs } : {}) });
  // before the start settles: a SIGTERM while the workers register still stops them gracefully
  onShutdownSignal(async () => {
    const fleet = await starting.catch(() => null);
    await fleet?.stop();
    await backend.close();
  }, log);
  await starting;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
