// Graceful shutdown of one console process (SIGTERM/SIGINT). Next's own handler stops
// accepting connections and waits for the requests in flight (a write finishes and
// answers); what would keep it waiting for ever are the event streams, which never end by
// themselves. So, on the signal, every open stream gets a comment and a short `retry:` hint
// (EventSource reconnects to another replica, or to this one once it is back) and is closed.
// A bound of FLEET_SHUTDOWN_GRACE_MS (less than the supervisor's) ends the process even when
// a request hangs; a stuck event loop is the supervisor's to end (scripts/supervise.mjs).

type Closer = () => void;

interface ShutdownState {
  closing: boolean;
  closers: Set<Closer>;
  installed: boolean;
}

const holder = globalThis as typeof globalThis & { __fleetShutdown?: ShutdownState };

function state(): ShutdownState {
  holder.__fleetShutdown ??= { closing: false, closers: new Set(), installed: false };
  return holder.__fleetShutdown;
}

export function isShuttingDown(): boolean {
  return state().closing;
}

/** Registers what to close on shutdown (an event stream); returns its unregistration. Runs at once when already closing. */
export function onShutdown(close: Closer): () => void {
  const s = state();
  if (s.closing) {
    close();
    return () => {};
  }
  s.closers.add(close);
  return () => s.closers.delete(close);
}

/** Starts the shutdown: closes every registered stream. Idempotent. */
export function beginShutdown(): void {
  const s = state();
  if (s.closing) return;
  s.closing = true;
  for (const close of [...s.closers]) {
    try {
      close();
    } catch {
      // one stream failing to close must not keep the others open
    }
  }
  s.closers.clear();
}

/** Installs the signal handlers once per process (instrumentation.ts, the Node runtime only). */
export function installShutdownHandlers(opts: { graceMs: number; log: (line: string) => void }): void {
  const s = state();
  if (s.installed) return;
  s.installed = true;
  const onSignal = (signal: NodeJS.Signals) => {
    if (s.closing) return;
    opts.log(`Fleet Console: ${signal}: closing ${s.closers.size} event stream(s), finishing requests in flight`);
    beginShutdown();
    // Next's handler exits once its server has closed; this bounds a request that hangs
    setTimeout(() => {
      opts.log(`Fleet Console: still busy ${opts.graceMs} ms after ${signal}; exiting`);
      process.exit(143);
    }, opts.graceMs).unref();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
