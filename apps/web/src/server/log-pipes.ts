// A console whose log pipe breaks stops, as any program that writes to a closed pipe does.
//
// When the process that reads the console's stdout and stderr goes away (a supervisor killed
// with SIGKILL, a `| tee` that was closed), every log line fails with EPIPE. Unhandled, that
// error reaches Next's own handler of uncaught errors, which logs it to the same broken pipe:
// the next EPIPE, logged again, for ever. A console orphaned that way spun a whole core with
// no one to see it (found in CI, where the image test's server lived on through the run).
// With a handler on both streams the failed writes are only dropped, and the console shuts
// down the way SIGTERM does (event streams closed, requests in flight finished, bounded by
// FLEET_SHUTDOWN_GRACE_MS), so that its supervisor, if any is left, starts a new one.

type Stream = Pick<NodeJS.WriteStream, "on">;

/**
 * Calls `stop` once, on the first error of either stream (EPIPE and anything else that means
 * the log can no longer be written). Errors after that are dropped.
 */
export function stopWhenLogPipeBreaks(
  stop: (stream: "stdout" | "stderr", err: Error) => void,
  streams: { stdout: Stream; stderr: Stream } = { stdout: process.stdout, stderr: process.stderr },
): void {
  let stopped = false;
  for (const name of ["stdout", "stderr"] as const) {
    streams[name].on("error", (err: Error) => {
      if (stopped) return;
      stopped = true;
      stop(name, err);
    });
  }
}
