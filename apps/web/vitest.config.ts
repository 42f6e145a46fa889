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
    environment: "node",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    testTimeout: 30_000,
  },
});
