// The workers table and a worker's page, against workers seeded through the backend.
import type { Locator, Page } from "@playwright/test";

import { enc, expect, screenshotPath, test, waitForLive } from "../fixtures";

function workerRow(page: Page, id: string): Locator {
  return page
    .getByRole("region", { name: "Workers" })
    .getByRole("row")
    .filter({ has: page.getByRole("link", { name: id, exact: true }) });
}

test("the workers table shows seeded workers with their statuses, offline included, and Redis changes within 3 s", async ({ page, seed, backend }) => {
  const type = seed.name("scraper");
  await seed.workers(type, [
    { id: "w-running", state: "RUNNING" },
    { id: "w-idle", state: "IDLE" },
    { id: "w-error", state: "ERROR", lastError: "proxy refused the connection" },
    // A RUNNING state whose last heartbeat is an hour old: the console calls it offline.
    { id: "w-offline", state: "RUNNING", seenAgo: 3600 },
  ]);

  await page.goto(`/workers?type=${enc(type)}`);
  const expected = { "w-running": "running", "w-idle": "idle", "w-error": "error", "w-offline": "offline" } as const;
  for (const [id, status] of Object.entries(expected)) {
    const badge = workerRow(page, id).locator("[data-status]");
    await expect(badge).toHaveAttribute("data-status", status);
    await expect(badge).toHaveText(status);
  }
  await expect(page.getByRole("region", { name: "Workers" }).getByRole("link")).toHaveCount(4);
  await expect(workerRow(page, "w-error")).toContainText("proxy refused the connection");
  // Each status filter counts its one worker.
  const statusFilters = page.getByRole("group", { name: "Status" });
  for (const status of ["running", "idle", "error", "offline"]) {
    await expect(statusFilters.getByRole("button", { name: new RegExp(`^${status}\\s*1$`, "i") })).toBeVisible();
  }

  // Live, without a reload: a marker on the window survives only if the page is not reloaded.
  await page.evaluate(() => ((window as unknown as { __e2eNoReload: boolean }).__e2eNoReload = true));
  // A new stream gets no snapshot, only changes after it connected: wait for it, and let a
  // first change (a heartbeat bringing the offline worker back) prove frames flow.
  await waitForLive(page);
  await backend.workerSetState(type, "w-offline", "IDLE", null, Date.now() / 1000);
  await expect(workerRow(page, "w-offline").locator("[data-status]")).toHaveAttribute("data-status", "idle");
  // Then the measured one: shown within 3 s of the write.
  await backend.workerSetState(type, "w-idle", "ERROR", "disk full on /var/cache", Date.now() / 1000);
  await expect(workerRow(page, "w-idle").locator("[data-status]")).toHaveAttribute("data-status", "error", { timeout: 3000 });
  await expect(workerRow(page, "w-idle")).toContainText("disk full on /var/cache", { timeout: 3000 });
  expect(await page.evaluate(() => (window as unknown as { __e2eNoReload?: boolean }).__e2eNoReload)).toBe(true);
  await page.screenshot({ path: screenshotPath("flow-workers-live") });
});

test("a worker's page draws its stats history charts from the seeded frames", async ({ page, seed }) => {
  const type = seed.name("scraper");
  // Twelve frames a minute apart: cpu_pct 5, 10, ... 60 and pages_done 101 ... 112.
  const history: Array<[number, Record<string, unknown>]> = Array.from({ length: 12 }, (_, i) => [
    (11 - i) * 60,
    { cpu_pct: (i + 1) * 5, pages_done: 101 + i, note: "not numeric" },
  ]);
  await seed.workers(type, [{ id: "w1", state: "RUNNING", history, stats: { cpu_pct: 60, pages_done: 112 } }]);

  await page.goto(`/workers/${enc(type)}/${enc("w1")}`);
  const section = page.getByRole("region", { name: "Stats history" });
  await expect(section).toContainText("12 frames from");

  const cpu = section.getByRole("img", { name: "cpu_pct over time, 12 points, latest 60" });
  const pages = section.getByRole("img", { name: "pages_done over time, 12 points, latest 112" });
  await expect(cpu).toBeVisible();
  await expect(pages).toBeVisible();
  // Only numeric fields get a chart.
  await expect(section.getByRole("img")).toHaveCount(2);
  await expect(cpu).toHaveAttribute("data-points", "12");
  await expect(cpu.locator("canvas")).toHaveCount(1);

  // Hovering the plot's left and right edges shows the first and last seeded values in the legend.
  const over = cpu.locator(".u-over");
  const legendValue = cpu.locator(".u-legend .u-series").nth(1).locator(".u-value");
  const box = await over.boundingBox();
  if (!box) throw new Error("the chart's plot area has no box");
  await over.hover({ position: { x: box.width - 1, y: box.height / 2 } });
  await expect(legendValue).toHaveText("60");
  await over.hover({ position: { x: 1, y: box.height / 2 } });
  await expect(legendValue).toHaveText("5");
  await page.screenshot({ path: screenshotPath("flow-worker-stats-chart"), fullPage: true });
});
