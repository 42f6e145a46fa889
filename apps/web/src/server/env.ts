// The one place that reads process.env for the server. Parsed once, on first use, so a
// bad value fails loudly with the variable's name instead of deep inside a request.
import { z } from "zod";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const ServerEnvSchema = z.object({
  FLEET_BACKEND_URL: z
    .string()
    .trim()
    .min(1)
    .default("memory://demo")
    .refine((url) => /^(redis|rediss|redis\+sentinel|rediss\+sentinel|memory):\/\//i.test(url), {
      message: "must start with redis://, rediss://, redis+sentinel://, rediss+sentinel:// or memory://",
    }),
  FLEET_OFFLINE_AFTER_SECONDS: positiveInt(60),
  FLEET_EVENTS_INTERVAL_MS: positiveInt(1000),
  /** Seconds of live frames a reconnecting stream is given back (Last-Event-ID); 0: none, always refetch. */
  FLEET_EVENTS_REPLAY_SECONDS: z.coerce.number().int().min(0).max(600).default(60),
  /** 0: this process never leads the watch (queue history, alerts); another console must. */
  FLEET_WATCH: z
    .enum(["0", "1", "true", "false"], { message: "must be 1 (or true) to take part in the watch, 0 not to" })
    .default("1")
    .transform((v) => v === "1" || v === "true"),
  /** How long the watch's lead outlives a silent leader. */
  FLEET_WATCH_HOLD_SECONDS: z.coerce.number().int().min(3).max(600).default(30),
  /** MiB of worker values kept between reads, true by CLIENT TRACKING (packages/backend, worker-cache.ts); 0: none. */
  FLEET_WORKER_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(64),
});

export type ServerEnv = z.infer<typeof ServerEnvSchema>;

/** FLEET_WORKER_CACHE_MB in bytes: the worker cache of every backend the console opens (the request thread's, the live-events thread's). */
export function workerCacheBytes(env: Pick<ServerEnv, "FLEET_WORKER_CACHE_MB">): number {
  return env.FLEET_WORKER_CACHE_MB * 1024 * 1024;
}

/**
 * Authentication and audit settings (README, "Authentication"), parsed apart from the rest
 * so that one bad entry names its own variable. The user and token lists are checked
 * entry by entry in src/server/auth/config.ts.
 */
export const AuthEnvSchema = z.object({
  FLEET_AUTH_USERS: z.string().optional(),
  FLEET_AUTH_TOKENS: z.string().optional(),
  FLEET_AUTH_SECRET: z.string().optional(),
  FLEET_AUTH_PROXY_USER_HEADER: z.string().trim().optional(),
  FLEET_AUTH_PROXY_ROLE_HEADER: z.string().trim().optional(),
  FLEET_AUTH_TRUSTED_PROXIES: z.string().optional(),
  FLEET_AUTH_SESSION_TTL_SECONDS: positiveInt(12 * 3600),
  FLEET_INSECURE_NO_AUTH: z
    .enum(["0", "1", "true", "false"], { message: "must be 1 (or true) to switch authentication off, 0 otherwise" })
    .optional()
    .transform((v) => v === "1" || v === "true"),
  FLEET_AUDIT_MAX_ENTRIES: positiveInt(10_000),
  /** Host names the console answers to (src/server/auth/hosts.ts parses the list). */
  FLEET_ALLOWED_HOSTS: z.string().optional(),
  /** 1: session cookies without `Secure` even beyond loopback (a plain-http lab; README). */
  FLEET_INSECURE_HTTP_COOKIES: z
    .enum(["0", "1", "true", "false"], { message: "must be 1 (or true) to send cookies without Secure over plain http, 0 otherwise" })
    .optional()
    .transform((v) => v === "1" || v === "true"),
});

export type AuthEnv = z.infer<typeof AuthEnvSchema>;

/** Empty strings count as unset, so `FLEET_X= pnpm start` falls back to the default. */
function withoutEmpty(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) if (v !== undefined && v !== "") out[k] = v;
  return out;
}

export function parseServerEnv(source: Record<string, string | undefined>): ServerEnv {
  return parseWith(ServerEnvSchema, source);
}

export function parseAuthEnv(source: Record<string, string | undefined>): AuthEnv {
  return parseWith(AuthEnvSchema, source);
}

function parseWith<S extends z.ZodType>(schema: S, source: Record<string, string | undefined>): z.output<S> {
  const result = schema.safeParse(withoutEmpty(source));
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid server environment: ${problems}`);
  }
  return result.data;
}

let cached: ServerEnv | undefined;
let cachedAuth: AuthEnv | undefined;

export function serverEnv(): ServerEnv {
  cached ??= parseServerEnv(process.env);
  return cached;
}

export function authEnv(): AuthEnv {
  cachedAuth ??= parseAuthEnv(process.env);
  return cachedAuth;
}

/** Forgets the parsed environment so the next `serverEnv()` reads process.env again (tests). */
export function resetServerEnv(): void {
  cached = undefined;
  cachedAuth = undefined;
}
