import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A focused test (.only) fails the run, locally too: it would silently skip the rest.
    allowOnly: false,
  },
});
