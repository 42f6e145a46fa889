import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // A focused test (.only) fails the run, locally too: it would silently skip the rest.
    allowOnly: false,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    // beforeAll starts `next start` of the production build
    hookTimeout: 120_000,
    // one console per file, and the files share nothing: run them one after the other
    fileParallelism: false,
  },
});
