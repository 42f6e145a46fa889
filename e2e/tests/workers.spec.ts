// The workers table and a worker's page, against workers seeded through the backend.
import type { Locator, Page } from "@playwright/test";

import { enc, expect, screenshotPath, test, waitForLive } from "../fixtures";
import { seedWorkersBulk, type BulkWorker } from "./support/bulk-workers";

function workerRow(page: Page, id: string): Locator {
  return page
    .getByRole("region", { name: "Workers" })
    .getByRole("row")
    .filter({ has: page.getByRole("link", { name: id, exact: true }) });
}

test("the workers table shows seeded workers with their statuses, offline included, and Redis changes live, without a reload", async ({ page, seed, backend }) => {
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
  // Then an error, shown live too (how fast is the benchmarks' business, not this test's).
  await backend.workerSetState(type, "w-idle", "ERROR", "disk full on /var/cache", Date.now() / 1000);
  await expect(workerRow(page, "w-idle").locator("[data-status]")).toHaveAttribute("data-status", "error");
  await expect(workerRow(page, "w-idle")).toContainText("disk full on /var/cache");
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
  await expect(section).toContainText("12 reports (stats frames) from");

  const cpu = section.getByRole("img", { name: "CPU (%) over time, 12 points, latest 60" });
  const pages = section.getByRole("img", { name: "Pages done over time, 12 points, latest 112" });
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

test("under a status filter, live frames move workers in and out of the page without a reload", async ({ page, seed, backend }) => {
  const type = seed.name("scraper");
  await seed.workers(type, [
    { id: "w-a", state: "RUNNING" },
    { id: "w-b", state: "RUNNING" },
    { id: "w-c", state: "IDLE" },
  ]);
  await page.goto(`/workers?type=${enc(type)}&status=running`);
  const table = page.getByRole("region", { name: "Workers" });
  await expect(table.getByRole("link")).toHaveText(["w-a", "w-b"]);
  await page.evaluate(() => ((window as unknown as { __e2eNoReload: boolean }).__e2eNoReload = true));
  await waitForLive(page);

  // w-b fails: it leaves the running page, and the error chip counts it.
  await backend.workerSetState(type, "w-b", "ERROR", "out of memory", Date.now() / 1000);
  await expect(table.getByRole("link")).toHaveText(["w-a"]);
  await expect(page.getByRole("group", { name: "Status" }).getByRole("button", { name: /^error\s*1$/i })).toBeVisible();
  // A new running worker, not in view until now, joins the page.
  await seed.workers(type, [{ id: "w-0-new", state: "RUNNING" }]);
  await expect(table.getByRole("link")).toHaveText(["w-0-new", "w-a"]);
  await expect(page.getByTestId("workers-range")).toHaveText("1–2 of 2");
  expect(await page.evaluate(() => (window as unknown as { __e2eNoReload?: boolean }).__e2eNoReload)).toBe(true);
});

test("10,000 workers: the total, a search, a status filter's count, the next page and the newest-first sort, all read from the server", async ({ page, seed, backend }) => {
  // Seeding and the first frames about 10,000 new workers are heavy on a loaded machine.
  test.setTimeout(360_000);
  const type = seed.name("fleet");
  const now = Date.now() / 1000;
  const states = ["RUNNING", "IDLE", "ERROR"] as const;
  const newest = "w-04321";
  // Every tenth worker last beat an hour ago (offline); the others within the last 3 s, so
  // none goes offline while the test runs; w-04321 is the most recent of all.
  const workers: BulkWorker[] = Array.from({ length: 10_000 }, (_, i) => {
    const id = `w-${String(i).padStart(5, "0")}`;
    const state = states[i % 3]!;
    return {
      id,
      state,
      lastSeen: id === newest ? now : i % 10 === 0 ? now - 3600 - i : now - 3 + (i % 29) * 0.1,
      lastError: state === "ERROR" ? `failure ${i}` : null,
      hardware: { hostname: `host-${id}.e2e.internal`, cpus: 4 },
    };
  });
  await seedWorkersBulk(backend, type, workers);
  const expectedErrors = workers.filter((w, i) => i % 10 !== 0 && w.state === "ERROR").length;

  const table = page.getByRole("region", { name: "Workers" });
  const range = page.getByTestId("workers-range");
  const statusFilters = page.getByRole("group", { name: "Status" });
  const firstLink = table.getByRole("link").first();
  await page.goto(`/workers?type=${enc(type)}`);

  // The total, from the server's counts; one page of rows in the browser.
  await expect(range).toHaveText("1–100 of 10,000");
  await expect(statusFilters.getByRole("button", { name: /^all\s*10,000$/i })).toBeVisible();
  await expect(firstLink).toHaveText("w-00000");

  // The next page shows the next hundred ids, and says so in the URL.
  await page.getByRole("navigation", { name: "Pages" }).getByRole("button", { name: "Next page" }).click();
  await expect(range).toHaveText("101–200 of 10,000");
  await expect(firstLink).toHaveText("w-00100");
  await expect(page).toHaveURL(/[?&]page=2(&|$)/);
  await expect(workerRow(page, "w-00100")).toBeVisible();

  // A status filter: its chip's count is what the filtered list holds, and back to page 1.
  const errorChip = statusFilters.getByRole("button", { name: /^error\s*[\d,]+$/i });
  await expect(errorChip).toHaveText(new RegExp(`${expectedErrors.toLocaleString("en-US")}$`));
  await errorChip.click();
  await expect(errorChip).toHaveAttribute("aria-pressed", "true");
  await expect(range).toHaveText(`1–100 of ${expectedErrors.toLocaleString("en-US")}`);
  await expect(firstLink).toHaveText("w-00002");
  await expect(table.locator("[data-status]").first()).toHaveAttribute("data-status", "error");
  await statusFilters.getByRole("button", { name: /^all\s/i }).click();
  await expect(range).toHaveText("1–100 of 10,000");

  // Search by id narrows to that one worker.
  await page.getByLabel("Search by id or hostname").fill("w-07654");
  await expect(range).toHaveText("1–1 of 1");
  await expect(table.getByRole("link")).toHaveCount(1);
  await expect(firstLink).toHaveText("w-07654");
  await page.getByLabel("Search by id or hostname").fill("");
  await expect(range).toHaveText("1–100 of 10,000");

  // Newest first: the most recently seen worker leads, offline ones come last.
  await page.getByLabel("Sort", { exact: true }).selectOption("-last_seen");
  await expect(page).toHaveURL(/[?&]sort=-last_seen(&|$)/);
  await expect(firstLink).toHaveText(newest);
  await page.getByRole("button", { name: "Last page" }).click();
  await expect(range).toHaveText("9,901–10,000 of 10,000");
  // The last page holds the oldest heartbeats: offline workers, w-09000 … w-09990.
  await expect(firstLink).toHaveText("w-09000");
  await expect(table.locator("[data-status]").first()).toHaveAttribute("data-status", "offline");
  await page.screenshot({ path: screenshotPath("flow-workers-10k") });
});
