// The process-wide watch, wired to the app's backend and environment, stopped on shutdown
// (which releases the lead so another replica takes over at its next try).
//
// Started in the app's module graph, never from instrumentation.ts: Next bundles
// instrumentation apart from the routes, with its own copy of every module, and the backend
// the watch would open there (kept on globalThis, shared with the routes) would throw that
// copy's error classes, which the routes' `instanceof BackendUnavailableError` does not
// recognise (an outage answering 500 instead of 503). So instrumentation only arms it
// (`armWatch`, a flag on globalThis) and nudges the server once it listens; the first
// request the process serves (a load balancer's health check, the image's HEALTHCHECK, a
// page) opens the backend through `getBackend()`, which starts the watch.
import "server-only";

import type { Backend } from "@fleet/backend";

import { getBackend, getDiscovery, isDemoUrl } from "../backend";
import { serverEnv } from "../env";
import { processWorkerFeed } from "../events/worker-feed";
import { onShutdown } from "../shutdown";
import { seedDemoHistory, seedDemoRules } from "../history/demo";
import { WatchService } from "./service";

export { WatchService } from "./service";

const holder = globalThis as typeof globalThis & { __fleetWatch?: WatchService; __fleetWatchArmed?: boolean };

/** Starts the watch if instrumentation.ts armed it (a server process, not a test). */
export function startWatchIfArmed(): WatchService | null {
  return holder.__fleetWatchArmed ? startWatch() : null;
}

/**
 * The queues the watch records: THE one place the watch asks for queue names. They come
 * from the console's one name discovery (as GET /queues, /metrics and the event hub get
 * them), never from a walk of the key space per tick.
 */
export async function watchedQueueNames(_backend: Backend): Promise<string[]> {
  return (await getDiscovery()).names("queue");
}

/** The pools alert rules look at, from the same discovery (a pool_free rule once walked the whole key space every tick). */
export async function watchedPoolNames(_backend: Backend): Promise<string[]> {
  return (await getDiscovery()).names("pool");
}

/**
 * Queues a tick found with every figure at zero: those without any key left are forgotten by
 * the discovery at once (as the list routes do, src/server/live-names.ts), so a deleted queue
 * stops being recorded; its history rings expire on their own.
 */
export async function forgetAbsentQueues(backend: Backend, zero: string[]): Promise<void> {
  const exists = await backend.queuesExist(zero);
  const discovery = await getDiscovery();
  zero.forEach((name, i) => {
    if (!exists[i]) discovery.forget("queue", name);
  });
}

export function getWatch(): WatchService | undefined {
  return holder.__fleetWatch;
}

/** Starts this process's watch (follower until it wins the lock). Idempotent. */
export function startWatch(log: (line: string) => void = (line) => console.log(`[watch] ${line}`)): WatchService | null {
  const env = serverEnv();
  if (!env.FLEET_WATCH) return null;
  if (holder.__fleetWatch) return holder.__fleetWatch;
  const watch = new WatchService({
    getBackend,
    queueNames: watchedQueueNames,
    poolNames: watchedPoolNames,
    forgetQueues: forgetAbsentQueues,
    offlineAfterSeconds: env.FLEET_OFFLINE_AFTER_SECONDS,
    workerFeed: processWorkerFeed(),
    holdSeconds: env.FLEET_WATCH_HOLD_SECONDS,
    log,
  });
  holder.__fleetWatch = watch;
  if (isDemoUrl(env.FLEET_BACKEND_URL)) {
    // The demo should have something to show at once: a day and a month of made-up history.
    void getBackend()
      .then(async (backend) => {
        await seedDemoHistory(backend, Date.now() / 1000);
        await seedDemoRules(backend);
      })
      .catch((err: unknown) => log(`demo history not seeded: ${err instanceof Error ? err.message : String(err)}`));
  }
  watch.start();
  onShutdown(() => {
    void watch.stop();
  });
  return watch;
}
