import { defineConfig, devices } from "@playwright/test";

// The Redis that scripts/test-all.sh started. Required: without it the run fails rather
// than testing against something else.
const redisUrl = process.env.E2E_REDIS_URL;
if (!redisUrl) {
  throw new Error("E2E_REDIS_URL is not set (e.g. redis://127.0.0.1:6390/3); run the e2e tier through `pnpm test`");
}

const port = Number(process.env.E2E_PORT ?? 3210);
// The built web app to serve (its `.next`). A copy elsewhere keeps a local run steady while
// someone else rebuilds apps/web; CI always serves apps/web itself.
const webDir = process.env.E2E_WEB_DIR ?? "../apps/web";
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: "./tests",
  // E2E_OUTPUT_DIR: a run of one's own beside someone else's (each run empties its output dir).
  outputDir: process.env.E2E_OUTPUT_DIR ? `${process.env.E2E_OUTPUT_DIR}/artifacts` : "./test-results/artifacts",
  fullyParallel: false,
  // Always, not only on CI: a focused test would silently skip the rest.
  forbidOnly: true,
  retries: 0,
  workers: 1,
  // Guards against hanging, sized for a loaded two-core machine (a page with axe and two
  // screenshots took over a minute there); a passing test takes what it takes, a failing one
  // waits these out. Specs that do more scale theirs from the same base (x3 of the old 60 s).
  timeout: 180_000,
  expect: { timeout: 45_000 },
  // scripts/sum-test-reports.mjs reads the report from the same place (keep the two in step).
  reporter: [["list"], ["json", { outputFile: `${process.env.E2E_OUTPUT_DIR || "test-results"}/results.json` }]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        // Debian's Chromium: Playwright never downloads a browser here.
        launchOptions: {
          executablePath: "/usr/bin/chromium",
          args: [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        },
      },
    },
  ],
  webServer: {
    // The production build (`next build` ran before this tier), never `next dev`.
    command: `pnpm exec next start -p ${port} -H 127.0.0.1`,
    cwd: webDir,
    url: `${baseURL}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      FLEET_BACKEND_URL: redisUrl,
      // The suite drives the console as an admin would; the authentication flows (issue 6)
      // will run against a server of their own with users configured.
      FLEET_INSECURE_NO_AUTH: "1",
      // A worker seeded live stays live while a loaded machine loads its page (5 min; the
      // default 60 s turned a live worker offline before the page showed it); the offline
      // ones are seeded 10 minutes or more ago.
      FLEET_OFFLINE_AFTER_SECONDS: "300",
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_ENV: "production",
      // A build of one's own beside someone else's (apps/web/next.config.ts reads it).
      ...(process.env.NEXT_DIST_DIR ? { NEXT_DIST_DIR: process.env.NEXT_DIST_DIR } : {}),
    },
  },
});
