import { fileURLToPath } from "node:url";

import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@/": fileURLToPath(new URL("./src/", import.meta.url)),
      // Next resolves `server-only` itself; under vitest the route modules run on the
      // server anyway, so point it at Next's own empty module.
      "server-only": fileURLToPath(import.meta.resolve("next/dist/compiled/server-only/empty.js")),
    },
  },
  test: {
    // A focused test (.only) fails the run, locally too: it would silently skip the rest.
    allowOnly: false,
    // fails the run at once when REDIS_TEST_URL's server has too few databases for the table of test databases
    globalSetup: ["../../packages/backend/test/support/redis-dbs-setup.ts"],
    environment: "node",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    testTimeout: 30_000,
  },
});
