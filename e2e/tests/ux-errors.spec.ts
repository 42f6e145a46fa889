// Issue 19, point 6: the workers table shows a worker's last error whole (wrapped) with since
// when; the worker page keeps a history of errors with times, recorded by the console's watch
// (in Redis, so every replica shows the same); the overview's "Errors / offline" tile leads to
// the filtered lists and to the workers' pages.
import type { Backend } from "@fleet/backend";

import { atEveryLook, enc, expect, test } from "../fixtures";

const LONG =
  "HTTPError: 502 Bad Gateway while fetching https://shop.example.com/catalogue/category/very-long-path/with/many/segments?page=17&sort=price-desc " +
  "after 3 retries (last attempt took 30.2 s; upstream said: <html><body>bad gateway</body></html>)";

/** Waits for the console's watch (a tick every 10 s) to have recorded `n` entries of a worker. */
async function recorded(backend: Backend, type: string, id: string, n: number): Promise<void> {
  await expect
    .poll(async () => (await backend.workerErrorsRead([{ automationType: type, workerId: id }], 50))[0]!.length, { timeout: 60_000, intervals: [500] })
    .toBeGreaterThanOrEqual(n);
}

// Four looks (sizes × schemes) each with axe and a full-page picture: minutes on a loaded machine.
test.describe.configure({ timeout: 450_000 });

test("the workers table shows the last error whole with since when; the worker page lists the errors the watch saw, with times", async ({ page, seed, backend }) => {
  const type = seed.name("scraper");
  await seed.automation(type);
  await seed.workers(type, [
    { id: "failing", state: "ERROR", lastError: LONG },
    { id: "fine", state: "RUNNING" },
  ]);
  await recorded(backend, type, "failing", 1);

  await page.goto(`/workers?type=${enc(type)}`);
  const cell = page
    .getByRole("row", { name: /failing/ })
    .getByTestId("last-error-cell")
    .locator("visible=true");
  await expect(cell).toContainText(LONG);
  await expect(cell).toContainText(/since (just now|\d+ s ago|\d+ min ago)/);
  // whole: wrapped inside its cell, nothing hidden by an ellipsis
  const clipped = await cell
    .locator("span")
    .first()
    .evaluate((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
  expect(clipped).toBe(false);
  await atEveryLook(page, "the workers table with a long error", "ux-errors-table", async () => {
    // The looks take a while on a loaded machine: both workers keep reporting (the same error,
    // which the watch does not record twice), so none goes offline in between.
    const now = Date.now() / 1000;
    await backend.workerSetState(type, "failing", "ERROR", LONG, now);
    await backend.workerSetState(type, "fine", "RUNNING", null, now);
    await expect(
      page
        .getByRole("row", { name: /failing/ })
        .getByTestId("last-error-cell")
        .locator("visible=true"),
    ).toContainText("bad gateway</body></html>)");
  });

  // the worker recovers, then fails with another error: three entries, newest first
  await backend.workerSetState(type, "failing", "RUNNING", null, Date.now() / 1000);
  await recorded(backend, type, "failing", 2);
  await backend.workerSetState(type, "failing", "ERROR", "Timeout after 30 s", Date.now() / 1000);
  await recorded(backend, type, "failing", 3);

  await page.goto(`/workers/${enc(type)}/failing`);
  const history = page.getByRole("region", { name: "Error history" });
  const entries = history.getByTestId("error-history-entry");
  await expect(entries).toHaveCount(3);
  await expect(entries.nth(0)).toContainText("Error");
  await expect(entries.nth(0)).toContainText("Timeout after 30 s");
  await expect(entries.nth(1)).toContainText("Back to normal");
  await expect(entries.nth(2)).toContainText(LONG);
  await expect(entries.nth(2).locator("time")).toHaveAttribute("datetime", /^\d{4}-\d\d-\d\dT/);
  await expect(page.getByRole("heading", { name: /Last error since/ })).toBeVisible();
  // the same history through the API, as another replica would answer it (it is in Redis)
  const api = await page.request.get(`/api/v1/workers/${enc(type)}/failing/errors`);
  expect((await api.json()).items.map((e: { kind: string }) => e.kind)).toEqual(["error", "recovered", "error"]);
  await atEveryLook(page, "the worker page's error history", "ux-errors-history");
});

test("the overview's Errors / offline tile leads to the filtered lists and to the workers' pages", async ({ page, seed }) => {
  const type = seed.name("scraper");
  await seed.automation(type);
  await seed.workers(type, [
    { id: "broken", state: "ERROR", lastError: "disk full" },
    { id: "silent", state: "RUNNING", seenAgo: 3600 },
  ]);
  await page.goto("/");
  const tile = page.getByRole("region", { name: "Errors / offline" });
  await expect(tile.getByRole("link", { name: /in error$/ })).toHaveAttribute("href", "/workers?status=error");
  await expect(tile.getByRole("link", { name: /offline$/ })).toHaveAttribute("href", "/workers?status=offline");
  const firstWorker = tile.getByRole("list", { name: "Workers in trouble" }).getByRole("link").first();
  await expect(firstWorker).toBeVisible();
  await atEveryLook(page, "the overview's trouble tile", "ux-errors-tile");

  const name = (await firstWorker.textContent())!.trim();
  await firstWorker.click();
  await expect(page).toHaveURL(new RegExp(`/workers/[^/]+/${enc(name)}$`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText(name);

  await page.goto("/");
  await tile.getByRole("link", { name: /in error$/ }).click();
  await expect(page).toHaveURL(/\/workers\?status=error$/);
  await expect(page.getByRole("button", { name: /^error/, pressed: true })).toBeVisible();
  await page.goto("/");
  await tile.getByRole("link", { name: /offline$/ }).click();
  await expect(page).toHaveURL(/\/workers\?status=offline$/);
  await page.goto(`/workers?status=offline&type=${enc(type)}`);
  await expect(page.getByRole("link", { name: "silent" })).toBeVisible();
});
