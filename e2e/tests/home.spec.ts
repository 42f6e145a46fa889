import { expect, screenshotPath, test } from "../fixtures";

test("the home page loads and names the console", async ({ page }) => {
  const res = await page.goto("/");
  expect(res?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1, name: "Fleet Console" })).toBeVisible();
  await expect(page.getByTestId("backend-status")).toContainText("Connected: redis");
  await page.screenshot({ path: screenshotPath("home"), fullPage: true });
});

test("GET /api/v1/health reports the redis backend", async ({ request, backend, prefix }) => {
  // The backend fixture reaches the same Redis the server reads: a counter written through
  // it is visible to the console's Redis.
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
