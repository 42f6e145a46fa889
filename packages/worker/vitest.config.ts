import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // A focused test (.only) fails the run, locally too: it would silently skip the rest.
    allowOnly: false,
    // fails the run at once when REDIS_TEST_URL's server has too few databases for the table of test databases
    globalSetup: ["../backend/test/support/redis-dbs-setup.ts"],
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
