// Issue 19, point 11: keyboard and screen readers. "Skip to content" is the first tab stop;
// after an in-app navigation focus is on the new page's h1 (not left on the nav link); Esc
// closes the phone menu; a field marked aria-invalid looks invalid; charts carry plain names.
import type { Page } from "@playwright/test";

import { SIZES, Seeder, atEveryLook, enc, expect, expectAxeClean, screenshotPath, test } from "../fixtures";

// Four looks (sizes × schemes) each with axe and a full-page picture: minutes on a loaded machine.
test.describe.configure({ timeout: 240_000 });

/** The focused element's tag and text, for messages. */
async function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return el ? `${el.tagName.toLowerCase()} ${(el.textContent ?? "").trim().slice(0, 60)}` : "nothing";
  });
}

test("Skip to content is the first tab stop at both sizes and lands in the page", async ({ page, seed }) => {
  const type = seed.name("scraper");
  await seed.workers(type, [{ id: "w1" }]);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.goto(`/workers?type=${enc(type)}`);
    await expect(page.getByRole("main").getByText("w1").first()).toBeVisible();
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip, await focused(page)).toBeFocused();
    await expect(skip).toBeVisible();
    await page.screenshot({ path: screenshotPath(`ux-skip-link-${size.label}`) });
    await page.keyboard.press("Enter");
    await expect(page.locator("#main")).toBeFocused();
    // The next stop is inside the page, not in the header's bars.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.getElementById("main")!.contains(document.activeElement)), await focused(page)).toBe(true);
  }
});

test("after an in-app navigation focus is on the new page's h1, and the next Tab is in the page", async ({ page, seed, backend }) => {
  const type = seed.name("scraper");
  await seed.workers(type, [{ id: "w1" }]);
  await backend.queueDead(type, Seeder.task(`${"d".repeat(32)}`, { url: "https://x.example/" }, { attempts: 3, last_error: "HTTP 503" }));

  await page.setViewportSize(SIZES[0]);
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Queues" }).click();
  const h1 = page.getByRole("heading", { level: 1, name: "Queues" });
  await expect(h1).toBeFocused();
  await expectAxeClean(page, "the queues page after navigation");

  // Follow a link inside the page (the queue), by keyboard.
  await page.getByRole("main").getByRole("link", { name: type }).first().focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: type })).toBeFocused();
  // From the heading, the dead letter's checkbox is a few Tabs away, not sixteen.
  let tabs = 0;
  const box = page.getByRole("checkbox", { name: `Select dead letter ${"d".repeat(32)}` });
  await expect(box).toBeVisible();
  while (tabs < 20 && !(await box.evaluate((el) => el === document.activeElement))) {
    await page.keyboard.press("Tab");
    tabs += 1;
  }
  expect(tabs, "Tabs from the heading to the dead letter's checkbox").toBeLessThan(16);

  // Phone: through the menu.
  await page.setViewportSize(SIZES[1]);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workers" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Workers" })).toBeFocused();
  await expectAxeClean(page, "the workers page after navigation on a phone");
});

test("Esc closes the phone menu and puts focus back on its button", async ({ page }) => {
  await page.setViewportSize(SIZES[1]);
  await page.goto("/workers");
  const menu = page.getByRole("button", { name: "Menu" });
  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav).toBeVisible();
  await expectAxeClean(page, "the open phone menu");
  await page.screenshot({ path: screenshotPath("ux-phone-menu-open") });
  await nav.getByRole("link", { name: "Pools" }).focus();
  await page.keyboard.press("Escape");
  await expect(nav).toBeHidden();
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(menu).toBeFocused();
});

/** The computed border colour a CSS colour resolves to on this page. */
async function resolved(page: Page, css: string): Promise<string> {
  return page.evaluate((c) => {
    const probe = document.createElement("div");
    probe.style.borderTop = `1px solid ${c}`;
    document.body.append(probe);
    const v = getComputedStyle(probe).borderTopColor;
    probe.remove();
    return v;
  }, css);
}

test("a field marked aria-invalid has a red border, in both colour schemes, and the config form's too", async ({ page, seed }) => {
  await page.goto("/state");
  const counters = page.getByRole("region", { name: "Counters" });
  const value = counters.getByRole("textbox", { name: "Value", exact: true });
  await expect(value).toBeVisible();
  const before = await value.evaluate((el) => getComputedStyle(el).borderTopColor);
  await value.fill("abc");
  await counters.getByRole("button", { name: "Set counter" }).click();
  await expect(value).toHaveAttribute("aria-invalid", "true");
  const red = await resolved(page, "var(--color-red-600)");
  await expect.poll(() => value.evaluate((el) => getComputedStyle(el).borderTopColor)).toBe(red);
  expect(red).not.toBe(before);
  await value.screenshot({ path: screenshotPath("ux-invalid-field-light") });

  // Dark scheme (the system preference): the lighter red, still not the plain border.
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  const redDark = await resolved(page, "var(--color-red-400)");
  await expect.poll(() => value.evaluate((el) => getComputedStyle(el).borderTopColor)).toBe(redDark);
  await value.screenshot({ path: screenshotPath("ux-invalid-field-dark") });
  await page.emulateMedia({ colorScheme: "light" });

  // The config form: slots above its maximum.
  const type = seed.name("scraper");
  await seed.automation(type, {
    config: { type: "object", properties: { slots: { type: "integer", minimum: 0, maximum: 64, title: "Slots" } } },
  });
  await seed.workers(type, [{ id: "w1", config: { slots: 2 } }]);
  await page.goto(`/workers/${enc(type)}/w1`);
  const slots = page.getByRole("region", { name: "Config", exact: true }).getByLabel("Slots", { exact: true });
  const plain = await slots.evaluate((el) => getComputedStyle(el).borderTopColor);
  await slots.fill("99");
  await expect(slots).toHaveAttribute("aria-invalid", "true");
  await expect.poll(() => slots.evaluate((el) => getComputedStyle(el).borderTopColor)).not.toBe(plain);
});

test("stats charts carry plain names (the raw key beside them) at both sizes, axe-clean", async ({ page, seed }) => {
  const type = seed.name("scraper");
  const history: Array<[number, Record<string, unknown>]> = Array.from({ length: 10 }, (_, i) => [
    (9 - i) * 30,
    { latency_p95_ms: 100 + i, slots_target: 3, pages_fetched: i * 10 },
  ]);
  await seed.workers(type, [{ id: "w1", stats: history.at(-1)![1], history }]);
  await page.goto(`/workers/${enc(type)}/w1`);
  await atEveryLook(page, "the worker page's charts", "ux-charts", async () => {
    const charts = page.getByRole("region", { name: "Stats history" });
    await expect(charts.getByRole("img", { name: "Task time, slowest 5% (ms) over time, 10 points, latest 109" })).toBeVisible();
    await expect(charts.getByRole("img", { name: /^Slots wanted over time/ })).toBeVisible();
    await expect(charts.getByRole("img", { name: /^Pages fetched over time/ })).toBeVisible();
    // the exact key stays visible beside the plain name
    const figure = charts.locator("figure").filter({ hasText: "Task time, slowest 5% (ms)" });
    await expect(figure.locator("figcaption")).toContainText("latency_p95_ms");
    await expect(figure.locator("figcaption")).toContainText("One run in twenty takes longer than this");
    // the latest stats too: plain label, raw key under it
    const latest = page.getByRole("region", { name: "Latest stats" });
    await expect(latest.getByRole("term").filter({ hasText: "Slots wanted" })).toContainText("slots_target");
    // not hovering, the legend shows the newest point, not dashes
    await expect(figure.locator(".u-legend")).toContainText("109");
  });
});
