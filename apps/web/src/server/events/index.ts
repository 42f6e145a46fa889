// The process-wide event hub, wired to the app's backend and environment.
import "server-only";

import { getBackend, getDiscovery } from "../backend";
import { serverEnv, workerCacheBytes } from "../env";
import { EventHub } from "./hub";
import { DEFAULT_REPLAY } from "./replay";
import { InlineSnapshotSource } from "./snapshot-source";
import { ThreadSnapshotSource } from "./snapshot-thread";
import { processWorkerFeed } from "./worker-feed";

export { EventHub } from "./hub";
export type { HubEvent, HubListener, HubStatus } from "./hub";

// On globalThis, not in a module variable: `next dev` re-evaluates modules on edits, and a
// second hub would mean a second Redis subscription and a second polling loop.
const holder = globalThis as typeof globalThis & { __fleetEventHub?: EventHub };

/** The hub of this process, created on first use (the first SSE client). */
export function getEventHub(): EventHub {
  if (!holder.__fleetEventHub) {
    const env = serverEnv();
    const offlineAfterSeconds = env.FLEET_OFFLINE_AFTER_SECONDS;
    const inline = () => new InlineSnapshotSource(getBackend, offlineAfterSeconds);
    // Redis: snapshots in a worker thread with its own connection (see ./snapshot-source).
    // The memory backend lives in this thread's heap, so it can only be read inline.
    const threaded = /^rediss?:\/\//i.test(env.FLEET_BACKEND_URL);
    holder.__fleetEventHub = new EventHub({
      getBackend,
      names: async () => {
        const d = await getDiscovery();
        const [queues, pools, streams] = await Promise.all([d.names("queue"), d.names("pool"), d.names("stream")]);
        return { queues, pools, streams };
      },
      // `event:<type>.emit` carries every push to stream:<type>: that stream exists now
      onBusTopic: (topic) => {
        if (topic.endsWith(".emit") && topic.length > ".emit".length) {
          void getDiscovery().then(
            (d) => d.learn("stream", topic.slice(0, -".emit".length)),
            () => undefined,
          );
        }
      },
      intervalMs: env.FLEET_EVENTS_INTERVAL_MS,
      offlineAfterSeconds,
      // the watch's error recorder in this process reads the loop's worker changes
      workerFeed: processWorkerFeed(),
      // The last minute of frames for reconnecting browsers (./replay.ts); the loop keeps
      // watching that long after the last stream closes, so a reload or a dropped connection
      // comes back to frames, not to a refetch.
      replay: { ...DEFAULT_REPLAY, windowMs: env.FLEET_EVENTS_REPLAY_SECONDS * 1000 },
      graceMs: Math.max(2000, env.FLEET_EVENTS_REPLAY_SECONDS * 1000),
      snapshotSource: threaded
        ? () =>
            new ThreadSnapshotSource({ backendUrl: env.FLEET_BACKEND_URL, offlineAfterSeconds, workerCacheBytes: workerCacheBytes(env) }, inline, (m, e) =>
              console.error(`[events] ${m}:`, e instanceof Error ? e.message : e),
            )
        : inline,
    });
  }
  return holder.__fleetEventHub;
}

/** Closes the hub and forgets it; the next `getEventHub()` builds a new one (tests). */
export async function resetEventHub(): Promise<void> {
  const hub = holder.__fleetEventHub;
  holder.__fleetEventHub = undefined;
  await hub?.close();
}
