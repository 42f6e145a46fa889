// Safe by default: a console that would serve a real fleet without authentication does not
// start; the in-memory demo on loopback starts with a visible "no authentication" banner.
import { expect, test } from "../fixtures";

import { startPrivateRedis } from "@fleet/backend/testing/private-redis";

import { passwordHash, startConsole, startExpectingExit } from "./support/console";

const redisUrl = process.env.E2E_REDIS_URL!;

test.describe.configure({ timeout: 360_000 });

test("with a Redis backend and no authentication, next start exits 1 and says what to set", async () => {
  const run = await startExpectingExit({ FLEET_BACKEND_URL: redisUrl }, "127.0.0.1");
  expect(run.code, run.output).toBe(1);
  expect(run.output).toContain("refuses to start without authentication");
  expect(run.output).toContain("FLEET_INSECURE_NO_AUTH=1");
  expect(run.output).toContain("FLEET_AUTH_USERS");
});

test("a Redis Cluster endpoint is refused at start, saying why", async () => {
  const { join } = await import("node:path");
  // answering PING before the console looks at it (a Redis not up yet is only waited for)
  const server = await startPrivateRedis({ args: (dir) => ["--cluster-enabled", "yes", "--cluster-config-file", join(dir, "nodes.conf")] });
  try {
    const run = await startExpectingExit({ FLEET_BACKEND_URL: server.url(0), FLEET_INSECURE_NO_AUTH: "1" }, "127.0.0.1");
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain("Redis Cluster node, which Fleet cannot use");
    expect(run.output).toContain("hash tags");
  } finally {
    await server.stop();
  }
});

test("the in-memory demo bound to every interface refuses too", async () => {
  const run = await startExpectingExit({ FLEET_BACKEND_URL: "memory://e2e-refuse" }, "0.0.0.0");
  expect(run.code, run.output).toBe(1);
  expect(run.output).toContain("not only on loopback");
});

test("the in-memory demo on loopback opens without sign-in and says there is no authentication", async ({ page }) => {
  const c = await startConsole({ FLEET_BACKEND_URL: "memory://e2e-open" });
  try {
    await page.goto(`${c.baseURL}/queues`);
    await expect(page).toHaveURL(`${c.baseURL}/queues`);
    await expect(page.getByTestId("no-auth-banner")).toContainText("No authentication");
    await expect(page.getByRole("heading", { name: "Queues", level: 1 })).toBeVisible();
  } finally {
    await c.close();
  }
});

test("FLEET_INSECURE_NO_AUTH=1 runs against Redis with every request admin, and the banner says so", async ({ page }) => {
  // the suite's own web server runs this way
  await page.goto("/");
  await expect(page.getByTestId("no-auth-banner")).toContainText("Authentication is off");
  const res = await page.request.get("/api/v1/auth/session");
  expect(await res.json()).toMatchObject({ mode: "insecure", user: { role: "admin" } });
});

test("a console whose log reader went away shuts down as on SIGTERM (status 143) instead of spinning on EPIPE", async () => {
  // Its supervisor killed with SIGKILL, a `| tee` closed: nobody reads its stdout and stderr.
  // Each log line then fails with EPIPE; left to Next's handler of uncaught errors, which logs
  // it to that very pipe, the console spun a core for ever (the image test's orphan did in CI).
  const c = await startConsole({
    FLEET_BACKEND_URL: "memory://e2e-log-pipe",
    FLEET_AUTH_USERS: `ada:admin:${passwordHash("right-password")}`,
    FLEET_AUTH_SECRET: "e2e-session-secret-0123456789-0123456789",
  });
  try {
    const child = c.server.child;
    child.stdout?.destroy();
    child.stderr?.destroy();
    // a failed sign-in logs a line: the first write to the closed pipes
    const res = await fetch(`${c.baseURL}/api/v1/auth/signin`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: c.baseURL, "sec-fetch-site": "same-origin", "x-fleet-csrf": "1" },
      body: JSON.stringify({ username: "ada", password: "wrong" }),
    });
    expect(res.status).toBe(401);
    const exit = await Promise.race([c.server.exited, new Promise<"still running">((r) => setTimeout(() => r("still running"), 60_000).unref())]);
    expect(exit).toBe(143);
  } finally {
    await c.close();
  }
});
