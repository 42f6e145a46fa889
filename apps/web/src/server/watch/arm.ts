// What instrumentation.ts may do about the watch: arm it (a flag on globalThis) and nudge the
// server, once it listens, with one request of its own, so the watch starts without waiting
// for the first visitor (./index.ts says why it cannot start it itself). Imports nothing of
// the app: instrumentation has its own copies of the app's modules.

const holder = globalThis as typeof globalThis & { __fleetWatchArmed?: boolean };

export function armWatch(opts: { port: number | null; host: string | null; log: (line: string) => void }): void {
  holder.__fleetWatchArmed = true;
  if (!opts.port) return;
  const host = !opts.host || opts.host === "0.0.0.0" || opts.host === "::" ? "127.0.0.1" : opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const url = `http://${host}:${opts.port}/api/v1/health`;
  let tries = 0;
  const nudge = () => {
    tries++;
    fetch(url, { signal: AbortSignal.timeout(5000) }).then(
      (res) => void res.body?.cancel(),
      () => {
        // not listening yet: try again a little later (a minute at most); a visitor starts it otherwise
        if (tries < 30) setTimeout(nudge, 2000).unref();
        else opts.log("watch: the server did not answer its own nudge; the watch starts with the first request");
      },
    );
  };
  setTimeout(nudge, 1000).unref();
}
