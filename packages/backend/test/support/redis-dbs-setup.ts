// vitest globalSetup of every package with Redis suites: fails the run at once, saying what to
// do, when REDIS_TEST_URL's server has fewer databases than the table of test databases needs
// (redis-server's default 16), instead of a suite failing later on "DB index is out of range".
import { Redis } from "ioredis";

import { TEST_REDIS_DATABASES, TEST_REDIS_DBS } from "./redis-dbs";

export default async function setup(): Promise<void> {
  const base = process.env.REDIS_TEST_URL;
  if (!base) return; // every suite fails on its own, saying so
  const r = new Redis(base, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000, retryStrategy: () => null });
  r.on("error", () => undefined);
  let databases: number;
  try {
    await r.connect();
    const reply = (await r.config("GET", "databases")) as string[];
    databases = Number(reply[1]);
  } catch {
    return; // unreachable, or CONFIG renamed away: the suites report what they meet
  } finally {
    r.disconnect();
  }
  const highest = Math.max(...Object.values(TEST_REDIS_DBS));
  if (!(databases > highest)) {
    throw new Error(
      `REDIS_TEST_URL's redis-server has ${databases} databases, and the test suites use databases 0-${highest}, one each ` +
        `(packages/backend/test/support/redis-dbs.ts). Start it with --databases ${TEST_REDIS_DATABASES}, as scripts/test-all.sh does.`,
    );
  }
}
