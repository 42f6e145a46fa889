import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // A focused test (.only) fails the run, locally too: it would silently skip the rest.
    allowOnly: false,
    // fails the run at once when REDIS_TEST_URL's server has too few databases for the table of test databases
    globalSetup: ["../backend/test/support/redis-dbs-setup.ts"],
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // a guard against hanging, not a latency claim: each test runs the CLI as processes, one after the
    // other, and on a loaded two-core machine one of them took 57 s
    testTimeout: 300_000,
    // beforeAll starts `next start` of the production build
    hookTimeout: 240_000,
    // one console per file, and the files share nothing: run them one after the other
    fileParallelism: false,
  },
});
