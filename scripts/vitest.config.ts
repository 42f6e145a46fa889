import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A focused test (.only) fails the run, locally too: it would silently skip the rest.
    allowOnly: false,
    // Vitest's 5 s default fails CPU-bound tests (the filter fuzzing, the summer's fixture runs)
    // on a loaded two-core machine: a guard against hanging, not a latency claim (as elsewhere).
    testTimeout: 30_000,
  },
});
