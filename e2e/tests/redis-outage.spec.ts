// Redis goes away and comes back. This test breaks Redis, so it runs against a console of
// its own (a private redis-server and a second `next start` on free ports), never the
// shared Redis that the main web server and every other test use.
import type { BrowserContext, Page } from "@playwright/test";

import type { Backend } from "@fleet/backend";

import { Seeder, expect, screenshotPath, test as base } from "../fixtures";
import { OwnConsole } from "./support/own-console";

const test = base.extend<{ own: OwnConsole; newContext: () => Promise<BrowserContext> }>({
  // Contexts made by the test, closed when it ends.
  newContext: async ({ browser }, use) => {
    const made: BrowserContext[] = [];
    await use(async () => {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      made.push(ctx);
      return ctx;
    });
    await Promise.all(made.map((c) => c.close()));
  },
  own: async ({}, use) => {
    const own = await OwnConsole.start();
    try {
      await use(own);
    } finally {
      await own.close();
    }
  },
});

const TYPE = "scraper";
const POOL = "proxies";

async function seedFleet(backend: Backend, workerId: string, poolItem: string, state: "RUNNING" | "IDLE" = "RUNNING"): Promise<void> {
  const now = Date.now() / 1000;
  await backend.workerRegister(TYPE, workerId, { hostname: `${workerId}.e2e.internal` });
  await backend.workerSetState(TYPE, workerId, state, null, now);
  await backend.queuePush(TYPE, Seeder.task(`${workerId}${"0".repeat(32 - workerId.length)}`, { url: `https://shop.example/${workerId}` }));
  await backend.poolPut(POOL, poolItem, "payload", { region: "eu" });
}

interface Tab {
  name: string;
  page: Page;
  errors: string[];
}

test("Redis stopped: six pages (overview, workers, a worker, a queue, a pool, events) show the banner and keep working; Redis back: they recover without a reload", async ({
  own,
  newContext,
}) => {
  test.setTimeout(360_000);
  await seedFleet(own.backend, "w-before", "item-before");

  const paths: Record<string, string> = {
    overview: "/",
    workers: `/workers?type=${TYPE}`,
    worker: `/workers/${TYPE}/w-before`,
    queue: `/queues/${TYPE}`,
    pool: `/pools/${POOL}`,
    events: "/events",
  };
  const tabs: Tab[] = [];
  // One browser context per page, as if each were a different browser: each holds a live
  // stream of its own (tabs of one browser share one; tests/live-tabs.spec.ts covers that).
  for (const [name, path] of Object.entries(paths)) {
    const page = await (await newContext()).newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(`${name}: ${e.message}`));
    await page.goto(`${own.baseURL}${path}`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.evaluate(() => ((window as unknown as { __e2eNoReload: boolean }).__e2eNoReload = true));
    tabs.push({ name, page, errors });
  }
  const tab = (name: string) => tabs.find((t) => t.name === name)!.page;
  await expect(tab("workers").getByRole("link", { name: "w-before", exact: true })).toBeVisible();
  await expect(tab("queue").getByRole("region", { name: /^Pending/ })).toContainText("shop.example/w-before");
  await expect(tab("pool").getByText("item-before")).toBeVisible();

  await own.stopRedis();

  // Each tab is looked at in turn (a background tab may pause its polling, as browsers do).
  for (const { name, page } of tabs) {
    await page.bringToFront();
    const banner = page.getByTestId("backend-unavailable");
    await expect(banner, `${name}: the banner`).toBeVisible({ timeout: 60_000 });
    await expect(banner).toContainText("The backend is unavailable.");
    // Not crashed: the page keeps its heading and navigation, and Next's error screen is absent.
    await expect(page.getByRole("heading", { level: 1 }), `${name}: the page`).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" }).first()).toBeVisible();
    await expect(page.getByText(/Application error|client-side exception/)).toHaveCount(0);
    // The stream itself stays up (the console answers, Redis does not): the indicator must not say "live".
    await expect(page.getByRole("status", { name: /^Live updates:/ }), `${name}: the indicator`).toHaveAccessibleName("Live updates: Redis down");
  }
  await tab("workers").screenshot({ path: screenshotPath("flow-redis-down-workers") });

  // Redis comes back empty (no persistence); what is seeded now must show up by itself.
  await own.startRedis();
  await seedFleet(own.backend, "w-after", "item-after");
  // The worker whose page is open comes back idle.
  await seedFleet(own.backend, "w-before", "item-before", "IDLE");

  // What each page shows once it is back, fetched without a reload.
  const back: Record<string, (page: Page) => Promise<void>> = {
    overview: (p) => expect(p.getByRole("main").getByText(TYPE).first()).toBeVisible(),
    workers: (p) => expect(p.getByRole("link", { name: "w-after", exact: true })).toBeVisible(),
    worker: (p) => expect(p.getByRole("region", { name: "Summary" }).locator("[data-status]")).toHaveAttribute("data-status", "idle"),
    queue: (p) => expect(p.getByRole("region", { name: /^Pending/ })).toContainText("shop.example/w-after"),
    pool: (p) => expect(p.getByText("item-after")).toBeVisible(),
    events: async (p) => {
      // The live stream is back too: a bus message shows.
      await expect(p.getByRole("status", { name: "Live updates: live" })).toBeVisible();
      await own.backend.eventPublish("e2e.recovered", JSON.stringify({ ok: true }));
      await expect(p.getByTestId("bus-event").filter({ hasText: "e2e.recovered" })).toBeVisible();
    },
  };
  for (const { name, page } of tabs) {
    await page.bringToFront();
    await expect(page.getByTestId("backend-unavailable"), `${name}: the banner goes`).toBeHidden({ timeout: 60_000 });
    await expect(page.getByRole("status", { name: /^Live updates:/ }), `${name}: live again`).toHaveAccessibleName("Live updates: live");
    await back[name]!(page);
  }

  for (const { name, page, errors } of tabs) {
    expect(await page.evaluate(() => (window as unknown as { __e2eNoReload?: boolean }).__e2eNoReload), `${name} was not reloaded`).toBe(true);
    expect(errors, `${name}: uncaught page errors`).toEqual([]);
  }
  await tab("workers").screenshot({ path: screenshotPath("flow-redis-back-workers") });
});
