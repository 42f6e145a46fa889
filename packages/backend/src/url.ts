// Chooses a Backend by URL scheme, as Python's backend_from_url does (redis://, rediss://,
// memory://). Importing this module loads ioredis; import "." for the contract alone.
import { UnsupportedBackendUrlError } from "./errors";
import { createMemoryBackend } from "./memory";
import { createRedisBackend, type RedisConnectionOptions } from "./redis";
import type { Backend } from "./types";

export const SUPPORTED_BACKEND_SCHEMES = ["redis://", "rediss://", "redis+sentinel://", "rediss+sentinel://", "memory://"] as const;

export function backendFromUrl(url: string = process.env.FLEET_BACKEND_URL ?? "memory://", opts: RedisConnectionOptions = {}): Backend {
  const scheme = url.includes("://") ? url.slice(0, url.indexOf("://")).toLowerCase() : "";
  if (scheme === "redis" || scheme === "rediss" || scheme === "redis+sentinel" || scheme === "rediss+sentinel") return createRedisBackend(url, opts);
  if (scheme === "memory") return createMemoryBackend(url);
  throw new UnsupportedBackendUrlError(url);
}
