// A console of its own for tests that must break Redis: a private redis-server (the shared
// launcher, @fleet/backend/testing/private-redis) and a second `next start` of the same
// production build (./console) pointed at it, so stopping that Redis never disturbs the shared
// one the other tests and the main web server use.
import type { Backend } from "@fleet/backend";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";
import { backendFromUrl } from "@fleet/backend/url";

import { startConsole, type RunningConsole } from "./console";

export class OwnConsole {
  /** Seeds the private Redis. */
  readonly backend: Backend;

  private constructor(
    private readonly redis: PrivateRedis,
    private readonly web: RunningConsole,
  ) {
    this.backend = backendFromUrl(this.redisUrl);
  }

  get redisUrl(): string {
    return this.redis.url(0);
  }

  get baseURL(): string {
    return this.web.baseURL;
  }

  static async start(): Promise<OwnConsole> {
    const redis = await startPrivateRedis();
    try {
      const web = await startConsole({ FLEET_BACKEND_URL: redis.url(0), FLEET_INSECURE_NO_AUTH: "1" });
      return new OwnConsole(redis, web);
    } catch (err) {
      await redis.stop();
      throw err;
    }
  }

  /** Starts the private redis-server again on its port, empty (no persistence). */
  async startRedis(): Promise<void> {
    await this.redis.resume();
  }

  /** Stops the private redis-server (SIGTERM) and waits until it has exited. */
  async stopRedis(): Promise<void> {
    await this.redis.pause();
  }

  async close(): Promise<void> {
    await this.backend.close().catch(() => undefined);
    await this.web.close();
    await this.redis.stop();
  }
}
