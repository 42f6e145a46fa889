// The one place that chooses the console's backend. Route handlers and server components
// call `getBackend()`; nothing else in the app constructs a Backend.
import "server-only";

import { NameDiscovery, noteWrites, type Backend } from "@fleet/backend";
import { backendFromUrl } from "@fleet/backend/url";
import { startDemoFleet } from "@fleet/worker/demo";

import { serverEnv, workerCacheBytes } from "./env";

interface OpenBackend {
  /** The backend the app uses: its writes tell `discovery` the names they touch. */
  backend: Backend;
  /** The one name discovery of this console (src/server/names.ts reads it). */
  discovery: NameDiscovery;
  /** Stops what runs beside the backend (the demo fleet) before the backend closes. */
  stopExtras?: () => Promise<void>;
}

interface BackendSlot {
  url: string;
  opening: Promise<OpenBackend>;
}

// Kept on globalThis, not in a module variable: `next dev` re-evaluates modules on every
// edit, and a module-level cache would open a new Redis connection (and a new demo fleet)
// each time without closing the old one.
const holder = globalThis as typeof globalThis & { __fleetBackend?: BackendSlot };
const watchHolder = globalThis as typeof globalThis & { __fleetWatchArmed?: boolean; __fleetWatch?: unknown };

export async function getBackend(): Promise<Backend> {
  // The watch starts in the app's own module graph, with the first request the process
  // serves (src/server/watch/index.ts says why not from instrumentation.ts).
  if (watchHolder.__fleetWatchArmed && !watchHolder.__fleetWatch) {
    void import("./watch").then((m) => m.startWatchIfArmed());
    // bulk jobs left running by a console that died are continued (src/server/bulk)
    void import("./bulk").then((m) => m.startBulkRunnerIfArmed());
  }
  const url = serverEnv().FLEET_BACKEND_URL;
  let slot = holder.__fleetBackend;
  if (!slot || slot.url !== url) {
    const previous = slot;
    const opening = open(url);
    slot = { url, opening };
    holder.__fleetBackend = slot;
    // Forget a failed start so the next request tries again instead of failing forever.
    opening.catch(() => {
      if (holder.__fleetBackend?.opening === opening) holder.__fleetBackend = undefined;
    });
    if (previous) void shutdown(previous);
  }
  return (await slot.opening).backend;
}

/** The name discovery that belongs to the current backend (opening the backend if needed). */
export async function getDiscovery(): Promise<NameDiscovery> {
  const backend = await getBackend();
  const opened = await holder.__fleetBackend?.opening;
  if (!opened || opened.backend !== backend) throw new Error("the backend changed while its name discovery was asked for");
  return opened.discovery;
}

async function open(url: string): Promise<OpenBackend> {
  const raw = backendFromUrl(url, { workerCache: { bytes: workerCacheBytes(serverEnv()) } });
  // One discovery per backend, so per console: routes, the event hub and /metrics share it.
  const discovery = new NameDiscovery(raw, {
    log: (m, err) => console.warn(`[discovery] ${m}:`, err instanceof Error ? err.message : err),
  });
  const backend = noteWrites(raw, discovery);
  const opened: OpenBackend = { backend, discovery };
  if (isDemoUrl(url)) {
    // `memory://demo` is the zero-setup mode of `pnpm start`: the in-memory backend with a
    // simulated fleet (workers, tasks, pools, history) writing into it, so every page has
    // something to show. Other memory:// URLs start empty (tests).
    try {
      const fleet = await startDemoFleet(backend);
      opened.stopExtras = () => fleet.stop();
    } catch (err) {
      await discovery.close();
      await backend.close();
      throw err;
    }
  }
  return opened;
}

export function isDemoUrl(url: string): boolean {
  return /^memory:\/\/demo\/?$/i.test(url);
}

async function shutdown(slot: BackendSlot): Promise<void> {
  const opened = await slot.opening.catch(() => null);
  if (!opened) return;
  try {
    await opened.stopExtras?.();
  } finally {
    await opened.discovery.close();
    await opened.backend.close();
  }
}

/** Closes the current backend and forgets it; the next `getBackend()` opens a fresh one. */
export async function closeBackend(): Promise<void> {
  const slot = holder.__fleetBackend;
  holder.__fleetBackend = undefined;
  if (slot) await shutdown(slot);
}
