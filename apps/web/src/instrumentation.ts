// Runs once when the server starts: a bad FLEET_* value stops it here, with the variable's
// name, instead of failing every request later. So does a console that would serve a real
// fleet without authentication (src/server/auth/startup.ts): it exits with status 1 and
// says what to configure.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { serverEnv } = await import("./server/env");
  const { maskUrl } = await import("@fleet/backend");
  const { authConfig } = await import("./server/auth/config");
  const { bindHostFromArgv, decideStartup, isLoopbackHost } = await import("./server/auth/startup");
  const { installPeerStamp } = await import("./server/auth/peer");

  const backendUrl = serverEnv().FLEET_BACKEND_URL;
  let config: ReturnType<typeof authConfig>;
  try {
    config = authConfig();
  } catch (err) {
    console.error(`Fleet Console cannot start: ${(err as Error).message}`);
    process.exit(1);
  }
  const decision = decideStartup({
    backendUrl,
    bindHost: bindHostFromArgv(process.argv),
    authConfigured: config.enabled,
    insecureNoAuth: config.insecureNoAuth,
    development: process.env.NODE_ENV === "development",
  });
  if (!decision.start) {
    console.error(decision.reason);
    process.exit(1);
  }
  installPeerStamp();
  const { installShutdownHandlers } = await import("./server/shutdown");
  installShutdownHandlers({
    graceMs: Number(process.env.FLEET_SHUTDOWN_GRACE_MS ?? 9500) - 1000,
    log: (line) => console.log(line),
  });
  // nobody reads the log any more (its reader died): shut down as on SIGTERM (status 143)
  const { stopWhenLogPipeBreaks } = await import("./server/log-pipes");
  stopWhenLogPipeBreaks(() => process.kill(process.pid, "SIGTERM"));
  console.log(`Fleet Console backend: ${maskUrl(backendUrl)}`);
  if (!/^memory:/i.test(backendUrl)) {
    // One look at the Redis now: a Cluster endpoint can never work (ClusterNotSupportedError
    // says why), so it stops the start; a Redis that is merely down is waited for (503s).
    const { backendFromUrl } = await import("@fleet/backend/url");
    const { ClusterNotSupportedError } = await import("@fleet/backend");
    const probe = backendFromUrl(backendUrl);
    try {
      await probe.health();
    } catch (err) {
      if (err instanceof ClusterNotSupportedError) {
        console.error(`Fleet Console cannot start: ${err.message}`);
        process.exit(1);
      }
      console.warn(`Fleet Console: ${(err as Error).message}; requests answer 503 until it is reachable`);
    } finally {
      await probe.close();
    }
  }
  const bindHost = bindHostFromArgv(process.argv);
  const hosts = config.allowedHosts.list;
  console.log(
    `Fleet Console hosts: ${hosts === "any" ? "any (FLEET_ALLOWED_HOSTS=*, no DNS-rebinding check)" : hosts === null ? "loopback names and IP addresses (set FLEET_ALLOWED_HOSTS to serve a DNS name)" : hosts.map((h) => (h.port === null ? h.host : `${h.host}:${h.port}`)).join(", ")}`,
  );
  if (config.users.size > 0 && !isLoopbackHost(bindHost)) {
    console.log(
      config.insecureHttpCookies
        ? "Fleet Console: FLEET_INSECURE_HTTP_COOKIES=1, session cookies travel over plain http too."
        : "Fleet Console: listening beyond loopback, session cookies are Secure (__Host-): sign in over https.",
    );
  }
  if (decision.mode === "auth") {
    const ways = [
      config.users.size > 0 ? `${config.users.size} user(s)` : null,
      config.tokens.length > 0 ? `${config.tokens.length} token(s)` : null,
      config.proxy ? `trusted proxy ${config.proxy.trustedText}` : null,
    ].filter(Boolean);
    console.log(`Fleet Console authentication: ${ways.join(", ")}`);
  } else if (decision.mode === "insecure") {
    console.warn("Fleet Console: FLEET_INSECURE_NO_AUTH=1, authentication is OFF and every request is treated as admin.");
  } else {
    console.warn("Fleet Console: no authentication (in-memory demo on loopback); every request is treated as admin.");
  }
  // Queue history and alerts: one leader among the console processes (src/server/watch),
  // started in the app's module graph by the first request; armed here.
  if (serverEnv().FLEET_WATCH) {
    const { armWatch } = await import("./server/watch/arm");
    const portArg = process.argv.findIndex((a) => a === "-p" || a === "--port");
    const port = Number(portArg >= 0 ? process.argv[portArg + 1] : (process.env.PORT ?? 3000)) || null;
    armWatch({ port, host: bindHost, log: (line) => console.log(`[watch] ${line}`) });
  }
}
