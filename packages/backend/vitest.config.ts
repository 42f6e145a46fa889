import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // A focused test (.only) fails the run, locally too: it would silently skip the rest.
    allowOnly: false,
  },
});
