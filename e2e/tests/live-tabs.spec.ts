// Many console tabs in one browser share ONE live stream: Chromium opens at most six
// HTTP/1.1 connections per host, and a stream per tab left the seventh tab's requests
// hanging. A leader tab holds the EventSource and re-broadcasts its frames to the others;
// when it closes, another tab takes over.
import type { Page, Request } from "@playwright/test";

import { enc, expect, screenshotPath, test, waitForLive } from "../fixtures";

import { passwordHash, startConsole } from "./support/console";

const TABS = 8;

function isEventsRequest(r: Request): boolean {
  return new URL(r.url()).pathname === "/api/v1/events";
}

test("eight tabs share one /events connection; every tab gets the frames; the next tab takes over when the leader closes", async ({ browser, seed, backend }) => {
  test.setTimeout(360_000);
  const type = seed.name("scraper");
  await seed.workers(type, [{ id: "w1", state: "RUNNING" }]);

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const streamsByPage = new Map<Page, number>();
    context.on("request", (r) => {
      if (!isEventsRequest(r)) return;
      const page = r.frame().page();
      streamsByPage.set(page, (streamsByPage.get(page) ?? 0) + 1);
    });
    const streams = () => [...streamsByPage.values()].reduce((a, b) => a + b, 0);

    // Half the tabs on /events (bus frames), half on the worker's page (workers frames).
    const eventsPath = `/events?topics=${enc(`${seed.prefix}*`)}`;
    const workerPath = `/workers/${enc(type)}/w1`;
    type Tab = { page: Page; kind: "events" | "worker"; errors: string[] };
    const openTab = async (i: number): Promise<Tab> => {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const kind = i % 2 === 0 ? "events" : "worker";
      await page.goto(kind === "events" ? eventsPath : workerPath);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      if (kind === "worker") {
        // The tab's own requests go through: no connection is left hanging on a stream.
        await expect(page.getByRole("region", { name: "Summary" }).locator("[data-status]")).toHaveAttribute("data-status", "running");
      }
      await waitForLive(page);
      return { page, kind, errors };
    };
    // The first tab leads; the seven others open all at once.
    const tabs: Tab[] = [await openTab(0)];
    tabs.push(...(await Promise.all(Array.from({ length: TABS - 1 }, (_, i) => openTab(i + 1)))));
    expect(streams(), "one /events connection for the whole browser").toBe(1);

    const check = async (round: string, state: "IDLE" | "ERROR", status: string) => {
      const topic = seed.name(`tabs.${round}`);
      await backend.eventPublish(topic, JSON.stringify({ round }));
      await backend.workerSetState(type, "w1", state, null, Date.now() / 1000);
      for (const { page, kind } of tabs) {
        if (kind === "events") {
          await expect(page.getByTestId("bus-event").filter({ hasText: topic })).toBeVisible();
        } else {
          await expect(page.getByRole("region", { name: "Summary" }).locator("[data-status]")).toHaveAttribute("data-status", status);
        }
      }
    };
    await check("one", "IDLE", "idle");

    // The leader is the tab that opened the stream.
    const leaders = [...streamsByPage.keys()];
    expect(leaders).toHaveLength(1);
    const leader = tabs.find((t) => t.page === leaders[0])!;
    await leader.page.close();
    tabs.splice(tabs.indexOf(leader), 1);

    // Another tab takes the lock and connects (60 s: a guard, generous for a loaded machine).
    await expect.poll(streams, { timeout: 60_000 }).toBe(2);
    for (const { page } of tabs) await waitForLive(page);
    await check("two", "ERROR", "error");
    expect(streams(), "still one stream at a time").toBe(2);
    expect(new Set(streamsByPage.keys()).size).toBe(2);

    await tabs[0]!.page.screenshot({ path: screenshotPath("flow-live-tabs") });
    for (const { errors } of tabs) expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
});

test("the shared stream follows the session: signed out when it is gone, live again right after a sign-in", async ({ browser, seed, backend }) => {
  test.setTimeout(360_000);
  const password = "vera-viewer-password";
  const c = await startConsole({
    FLEET_BACKEND_URL: process.env.E2E_REDIS_URL!,
    FLEET_AUTH_USERS: `vera:viewer:${passwordHash(password)}`,
    FLEET_AUTH_SECRET: "e2e-session-secret-0123456789-0123456789",
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const eventsPath = `/events?topics=${enc(`${seed.prefix}*`)}`;
    const signIn = async (page: Page) => {
      await page.goto(`${c.baseURL}/signin?next=${enc(eventsPath)}`);
      await page.getByLabel("User name").fill("vera");
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page.getByTestId("user-menu")).toContainText("Signed in as vera");
    };
    const indicator = (page: Page) => page.getByRole("status", { name: /^Live updates:/ });

    const a = await context.newPage();
    await signIn(a);
    await waitForLive(a);
    const b = await context.newPage();
    await b.goto(`${c.baseURL}${eventsPath}`);
    await waitForLive(b);

    // A (the leader) signs out: B takes the stream over, and the server refuses it.
    await a.getByRole("button", { name: "Sign out" }).click();
    await expect(a).toHaveURL(/\/signin/);
    await expect(indicator(b)).toHaveAccessibleName("Live updates: signed out", { timeout: 60_000 });

    // Signing in again in A brings the stream back for both, without reloading B.
    await b.evaluate(() => ((window as unknown as { __e2eNoReload: boolean }).__e2eNoReload = true));
    await signIn(a);
    await waitForLive(a);
    await expect(indicator(b)).toHaveAccessibleName("Live updates: live", { timeout: 60_000 });
    const topic = seed.name("tabs.after-sign-in");
    await backend.eventPublish(topic, JSON.stringify({ ok: true }));
    for (const page of [a, b]) await expect(page.getByTestId("bus-event").filter({ hasText: topic })).toBeVisible();
    expect(await b.evaluate(() => (window as unknown as { __e2eNoReload?: boolean }).__e2eNoReload)).toBe(true);
  } finally {
    await context.close();
    await c.close();
  }
});
