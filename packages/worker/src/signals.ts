// Process entrypoints stop gracefully on SIGTERM/SIGINT; a second signal exits at once.
export function onShutdownSignal(shutdown: (signal: NodeJS.Signals) => Promise<void>, log: (line: string) => void = console.error): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: exiting without waiting`);
      process.exit(130);
    }
    stopping = true;
    log(`${signal}: stopping gracefully (send it again to exit at once)`);
    shutdown(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        log(`shutdown failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}
