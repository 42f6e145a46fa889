// A console process's watch alone, for the hand-over test (../handover.test.ts): started as a
// child process with tsx, it runs a WatchService on the Redis named by argv and prints one JSON
// line per event (ready, lead, stepdown, tick) on stdout. SIGTERM: a clean stop (the lock is
// released); SIGKILL: a crash (the lock expires after its hold).
import { backendFromUrl } from "@fleet/backend/url";

import { WatchService } from "../service";

const [url, name, holdText, tickText] = process.argv.slice(2);
if (!url || !name) throw new Error("usage: watch-process.ts <redis url> <name> [hold seconds] [tick ms]");

const backend = backendFromUrl(url);
const say = (event: string, fields: Record<string, unknown> = {}) => process.stdout.write(`${JSON.stringify({ event, name, at: Date.now(), ...fields })}\n`);

const watch = new WatchService({
  getBackend: async () => backend,
  queueNames: (b) => b.queueNames(),
  offlineAfterSeconds: 60,
  holdSeconds: Number(holdText ?? 2),
  tickMs: Number(tickText ?? 250),
  alerts: false,
  log: (line) => {
    if (line.startsWith("watch: leading")) say("lead");
    else if (line.startsWith("watch: stepped down")) say("stepdown", { line });
    else say("log", { line });
  },
  onTick: (tick) => say("tick", { ts: tick.ts, queues: tick.queues.map((q) => q.name) }),
});
watch.start();
say("ready");

process.on("SIGTERM", () => {
  void watch.stop().then(async () => {
    say("stopped");
    await backend.close();
    process.exit(0);
  });
});
