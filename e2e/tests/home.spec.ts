import { expect, screenshotPath, test } from "../fixtures";

test("the home page loads and names the console", async ({ page }) => {
  const res = await page.goto("/");
  expect(res?.status()).toBe(200);
  await expect(page).toHaveTitle(/Fleet Console/);
  await expect(page.getByText("Fleet Console", { exact: true }).first()).toBeVisible();
  // The shell raises this banner when /api/v1/health answers 503: its absence means
  // something only once the overview shows what /health answered.
  await expect(page.getByTestId("backend-status")).toHaveText(/^Connected: redis \d/);
  await expect(page.getByTestId("backend-unavailable")).toHaveCount(0);
  await page.screenshot({ path: screenshotPath("home"), fullPage: true });
});

test("GET /api/v1/health reports the redis backend", async ({ request, backend, prefix }) => {
  // Exercises the backend fixture: tests seed through it, on the Redis the server reads.
  await backend.counterSet(`${prefix}probe`, 7);
  expect(await backend.counterGet(`${prefix}probe`)).toBe(7);

  const res = await request.get("/api/v1/health");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body).toMatchObject({ ok: true, backend: "redis" });
  expect(body.redis.version).toMatch(/^\d+\.\d+/);
  expect(typeof body.redis.aof_enabled).toBe("boolean");

  await backend.counterDel(`${prefix}probe`);
});
