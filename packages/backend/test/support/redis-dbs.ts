// The one table of test Redis databases. Every test suite (and bench) that works in a database
// of the shared test server (REDIS_TEST_URL; the browser tests' E2E_REDIS_URL) has one here, and
// no two share one: a suite may FLUSHDB its own at will, and suites of different packages may
// run at the same time (`turbo run test` without --concurrency=1). A suite gets its URL with
// testRedisUrl("<its path>"), never by writing a number itself; test/redis-dbs.test.ts fails when
// two entries share a database, an entry names a file that does not exist, or a file asks for
// a database that is not in the table.
//
// The server therefore needs TEST_REDIS_DATABASES databases (redis-server's default is 16):
//   redis-server --databases 32 ...
// scripts/test-all.sh starts its own that way; see CONTRIBUTING.md. Suites whose keys are fixed
// names (the console's fleet:console:*, a named lock) start a server of their own instead
// (startPrivateRedis(), @fleet/backend/testing/private-redis) and are not listed here.

/** Suite (its file, from the repository root) → its database. */
export const TEST_REDIS_DBS = {
  "packages/cli/test/console.ts": 0,
  "packages/backend/test/contract-redis.test.ts": 1,
  "packages/backend/test/cross-lang.test.ts": 2,
  "e2e/fixtures.ts": 3, // E2E_REDIS_URL (scripts/test-all.sh sets .../3)
  "apps/web/src/server/api/wrong-types.test.ts": 4,
  "apps/web/src/server/auth/signin-throttle.test.ts": 5,
  "apps/web/src/server/api/workers-routes.test.ts": 6,
  "apps/web/src/server/api/queues-state-routes.test.ts": 7,
  "apps/web/src/app/api/v1/events/route.test.ts": 8,
  "apps/web/src/app/api/v1/metrics/route.test.ts": 9,
  "apps/web/src/server/events/snapshot-thread.test.ts": 10,
  "apps/web/src/server/auth/security-routes.test.ts": 11,
  "apps/web/src/server/auth/auth-flow.test.ts": 12,
  "apps/web/src/server/api/races.test.ts": 13,
  "apps/web/src/server/api/raw-values.test.ts": 14,
  "apps/web/src/server/audit/audit-trust.test.ts": 15,
  "packages/backend/src/redis/msgpack.test.ts": 16,
  "apps/web/src/app/api/v1/health/route.test.ts": 17,
  "apps/web/src/server/auth/sessions.test.ts": 18,
  "packages/worker/test/worker-redis.test.ts": 19,
  "packages/worker/test/mixed-bodies.test.ts": 20,
  "packages/worker/test/interop-redis.test.ts": 21,
  "packages/backend/src/redis/redis-backend.test.ts": 22,
  "packages/worker/test/master-redis.test.ts": 23,
  "packages/backend/test/races-redis.test.ts": 24,
  "packages/backend/test/wrong-type.test.ts": 25,
  "apps/web/bench/api.ts": 26,
  "packages/backend/bench/read-workers.ts": 27,
  "packages/backend/test/bounded-redis.test.ts": 28,
} as const satisfies Record<string, number>;

export type TestRedisSuite = keyof typeof TEST_REDIS_DBS;

/** How many databases the test server must have (`--databases`); the table fits with room to spare. */
export const TEST_REDIS_DATABASES = 32;

/** The database of `suite`. */
export function testRedisDb(suite: TestRedisSuite): number {
  const db: number | undefined = TEST_REDIS_DBS[suite];
  if (db === undefined) throw new Error(`${suite} has no test database: add it to packages/backend/test/support/redis-dbs.ts`);
  return db;
}

/**
 * `base` (default REDIS_TEST_URL) pointed at `suite`'s database. Throws, failing the suite, when
 * there is no base URL: the tests need a real redis-server.
 */
export function testRedisUrl(suite: TestRedisSuite, base: string | undefined = process.env.REDIS_TEST_URL): string {
  if (!base) {
    throw new Error(
      `REDIS_TEST_URL is not set: ${suite} needs a disposable redis-server with ${TEST_REDIS_DATABASES} databases, ` +
        `e.g. redis-server --port 6390 --databases ${TEST_REDIS_DATABASES} and REDIS_TEST_URL=redis://127.0.0.1:6390/0`,
    );
  }
  const u = new URL(base);
  u.pathname = `/${testRedisDb(suite)}`;
  return u.toString();
}
