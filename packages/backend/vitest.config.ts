import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // A focused test (.only) fails the run, locally too: it would silently skip the rest.
    allowOnly: false,
    // fails the run at once when REDIS_TEST_URL's server has too few databases for the table of test databases
    globalSetup: ["./test/support/redis-dbs-setup.ts"],
    // Vitest's 5 s default is no proof of anything and fails on a loaded two-core machine
    // (the shared-table id tests, the races, the 1,001-worker reads take seconds there); a
    // test that outlives it also keeps running and spills its commands into the next one.
    // As in @fleet/web and @fleet/worker: a guard against hanging, not a latency claim.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
