// Safe by default: whether the console may start with the authentication it has.
//   - authentication configured (users, tokens or a trusted proxy): start, ask everybody;
//   - FLEET_INSECURE_NO_AUTH=1: start, everybody is admin, the banner says so;
//   - neither: only the in-memory demo on a loopback address may start (everybody is
//     admin there too, with a "no authentication" banner). A Redis backend or any other
//     bind address refuses to start, saying what to set.
// Pure, so the rules are unit-tested; instrumentation.ts applies it and exits on refusal.
export interface StartupFacts {
  backendUrl: string;
  /** The address the server listens on; null when unknown (next start without -H binds every interface). */
  bindHost: string | null;
  authConfigured: boolean;
  insecureNoAuth: boolean;
  /** `next dev` on a developer's machine: the memory demo may run whatever the bind. */
  development: boolean;
}

export type StartupDecision = { start: true; mode: "auth" | "insecure" | "open" } | { start: false; reason: string };

export function isLoopbackHost(host: string | null): boolean {
  if (host === null) return false;
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (/^::ffff:127\.\d+\.\d+\.\d+$/.test(h)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export function decideStartup(f: StartupFacts): StartupDecision {
  if (f.authConfigured) return { start: true, mode: "auth" };
  if (f.insecureNoAuth) return { start: true, mode: "insecure" };
  const memory = /^memory:\/\//i.test(f.backendUrl.trim());
  const loopback = isLoopbackHost(f.bindHost);
  if (memory && (loopback || f.development)) return { start: true, mode: "open" };
  const why = !memory
    ? "it is connected to Redis (a real fleet)"
    : `it listens on ${f.bindHost === null ? "every network interface (no -H/--hostname given)" : f.bindHost}, not only on loopback`;
  return {
    start: false,
    reason:
      `Fleet Console refuses to start without authentication because ${why}. ` +
      'Configure sign-in (FLEET_AUTH_USERS with FLEET_AUTH_SECRET, FLEET_AUTH_TOKENS, or the trusted-proxy mode; see README, "Authentication"), ' +
      "or set FLEET_INSECURE_NO_AUTH=1 to run with every request treated as admin.",
  };
}

/** The -H / --hostname that `next start` was given, from its argv; else the standalone server's $HOSTNAME (see standaloneBindHost). */
export function bindHostFromArgv(argv: readonly string[], env: Record<string, string | undefined> = process.env): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "-H" || a === "--hostname") return argv[i + 1] ?? null;
    const m = /^(?:-H|--hostname)=(.+)$/.exec(a);
    if (m) return m[1]!;
  }
  return standaloneBindHost(env);
}

/**
 * Next's standalone server (`node apps/web/server.js`, the container image) takes no -H: it
 * listens on $HOSTNAME, every interface when unset. Null when not running standalone.
 */
export function standaloneBindHost(env: Record<string, string | undefined>): string | null {
  if (!env.__NEXT_PRIVATE_STANDALONE_CONFIG) return null;
  return env.HOSTNAME || "0.0.0.0";
}
