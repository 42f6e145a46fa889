// Test fixtures: a backend on the same Redis the console under test reads, and a unique
// name prefix per test, so tests seed their own data through the backend (never the UI)
// and never see each other's.
import { randomBytes } from "node:crypto";

import { test as base, expect } from "@playwright/test";

import type { Backend } from "@fleet/backend";
import { backendFromUrl } from "@fleet/backend/url";

export interface TestFixtures {
  /** Unique per test, safe in every Fleet name (`e2e-<worker>-<random>-`). */
  prefix: string;
}

export interface WorkerFixtures {
  /** Connected to E2E_REDIS_URL, the Redis behind the console's web server. */
  backend: Backend;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  backend: [
    async ({}, use) => {
      const url = process.env.E2E_REDIS_URL;
      if (!url) throw new Error("E2E_REDIS_URL is not set");
      const backend = backendFromUrl(url);
      try {
        await use(backend);
      } finally {
        await backend.close();
      }
    },
    { scope: "worker" },
  ],
  prefix: async ({}, use, testInfo) => {
    await use(`e2e-${testInfo.workerIndex}-${randomBytes(4).toString("hex")}-`);
  },
});

export { expect };

/** Where tests save screenshots for people to look at (gitignored). */
export function screenshotPath(name: string): string {
  return new URL(`./screenshots/${name}.png`, import.meta.url).pathname;
}
