import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // the interop and redis suites share DBs 4/5 by file; keep files from racing on them
    fileParallelism: false,
  },
});
