// Issue 19, points 1-4: changing config as a non-engineer. The fleet-wide rollout starts every
// setting at "keep current" and shows what the workers run; the button, the review and the
// write agree on which workers change. A dirty form asks before it is left. After a save the
// page follows the worker until it runs the new generation; offline workers are named in the
// review. The worker page jumps to its config with the heading clear of the sticky header.
import type { Locator, Page } from "@playwright/test";

import { CONFIG_SCHEMA, SIZES, atEveryLook, enc, expect, expectAxeClean, screenshotPath, test, waitForLive, waitUntilLoaded } from "../fixtures";

// Four looks (sizes × schemes) each with axe and a full-page picture: minutes on a loaded machine.
test.describe.configure({ timeout: 270_000 });

function field(rollout: Locator, path: string): Locator {
  return rollout.locator(`[data-testid="rollout-field"][data-path="${path}"]`);
}

test("rollout: settings start as keep current with the workers' values; the button, the review and the write count only the workers that change", async ({
  page,
  seed,
  backend,
}) => {
  const type = seed.name("scraper");
  await seed.automation(type, { config: CONFIG_SCHEMA });
  await seed.workers(type, [
    { id: "a", config: { slots: 4, mode: "stealth" } },
    { id: "b", config: { slots: 4, mode: "stealth" } },
    { id: "c", config: { slots: 2, mode: "stealth" } },
    { id: "d", config: { slots: 4, mode: "stealth" } },
    // offline: named in the review's warning
    { id: "e", config: { slots: 2, mode: "stealth" }, seenAgo: 3600 },
  ]);

  await page.goto(`/automations/${enc(type)}`);
  const rollout = page.getByRole("region", { name: "Apply to every worker of this automation" });
  const mode = field(rollout, "mode");
  const slots = field(rollout, "slots");
  await expect(mode.getByTestId("rollout-current")).toHaveText("stealth ×5");
  await expect(slots.getByTestId("rollout-current")).toHaveText("mixed: 4 ×3, 2 ×2");
  await expect(field(rollout, "headless").getByTestId("rollout-current")).toHaveText("not set ×5 (default true)");
  // Every setting starts as "keep current"; nothing to review yet.
  for (const f of [mode, slots, field(rollout, "headless")]) await expect(f.getByRole("radio", { name: "Keep current" })).toBeChecked();
  await expect(rollout.getByRole("button", { name: "Review rollout…" })).toBeDisabled();

  // The schema's default is a value like any other: "fast" reaches all five.
  await mode.getByRole("radio", { name: "Set to" }).check();
  const modeValue = mode.getByLabel("Mode: new value");
  await expect(modeValue.locator("option:checked")).toHaveText("stealth");
  await expect(rollout.getByTestId("rollout-summary")).toHaveText("Every worker already has this value: nothing would change.");
  await modeValue.selectOption("fast");
  await expect(rollout.getByTestId("rollout-summary")).toHaveText("5 workers of 5 would change.");
  await mode.getByRole("radio", { name: "Keep current" }).check();
  await expect(rollout.getByTestId("rollout-summary")).toHaveText("Choose “Set to” on a setting to roll it out.");

  // Slots to 4: only c and e change.
  await slots.getByRole("radio", { name: "Set to" }).check();
  const slotsValue = slots.getByLabel("Slots: new value");
  // It starts from the commonest value: the two with 2 would change.
  await expect(slotsValue).toHaveValue("4");
  await expect(rollout.getByTestId("rollout-summary")).toHaveText("2 workers of 5 would change; 3 already have this value.");
  await slotsValue.fill("2");
  await expect(rollout.getByTestId("rollout-summary")).toHaveText("3 workers of 5 would change; 2 already have this value.");
  await slotsValue.fill("4");
  await expect(rollout.getByTestId("rollout-summary")).toHaveText("2 workers of 5 would change; 3 already have this value.");

  await atEveryLook(page, "the rollout form", "ux-rollout-form");
  // (the looks take a while: the seeded workers report again, e stays offline)
  await seed.heartbeat(type, ["a", "b", "c", "d"]);

  await rollout.getByRole("button", { name: "Review the change to 2 workers…" }).click();
  const review = page.getByRole("dialog", { name: `Apply to 2 workers of ${type}?` });
  await expect(review).toBeVisible();
  await expect(review.getByRole("heading", { level: 3 })).toHaveText([/^c /, /^e /]);
  await expect(review.getByTestId("config-change")).toHaveCount(2);
  await expect(review.getByTestId("offline-warning")).toContainText("1 of these workers is offline (e)");
  await expect(review).toContainText("3 workers already have these values and are left alone.");
  await expectAxeClean(page, "the rollout review");
  await review.screenshot({ path: screenshotPath("ux-rollout-review") });
  await review.getByRole("button", { name: "Apply to 2 workers" }).click();
  await expect(review).toBeHidden();
  const result = rollout.getByTestId("rollout-result");
  await expect(result).toContainText("Applied to 2 workers: c → generation 2, e → generation 2.");

  // Written: exactly the two that changed; the others keep their generation.
  for (const id of ["c", "e"]) expect(await backend.workerGetConfig(type, id)).toEqual({ config: { slots: 4, mode: "stealth" }, gen: 2 });
  for (const id of ["a", "b", "d"]) expect(await backend.workerGetConfig(type, id)).toEqual({ config: { slots: 4, mode: "stealth" }, gen: 1 });
  // The form is back to "keep current" and shows what the workers now run.
  await expect(slots.getByRole("radio", { name: "Keep current" })).toBeChecked();
  await expect(slots.getByTestId("rollout-current")).toHaveText("4 ×5");

  // And the default value rolls out too (pinned in every config).
  await mode.getByRole("radio", { name: "Set to" }).check();
  await mode.getByLabel("Mode: new value").selectOption("fast");
  await rollout.getByRole("button", { name: "Review the change to 5 workers…" }).click();
  await page
    .getByRole("dialog", { name: `Apply to 5 workers of ${type}?` })
    .getByRole("button", { name: "Apply to 5 workers" })
    .click();
  await expect(result).toContainText("Applied to 5 workers");
  expect(await backend.workerGetConfig(type, "a")).toEqual({ config: { slots: 4, mode: "fast" }, gen: 2 });
  expect(await backend.workerGetConfig(type, "c")).toEqual({ config: { slots: 4, mode: "fast" }, gen: 3 });
});

async function openEditor(page: Page, type: string, id: string): Promise<Locator> {
  await page.goto(`/workers/${enc(type)}/${enc(id)}`);
  const editor = page.getByRole("region", { name: "Config", exact: true });
  await expect(editor.getByLabel("Slots", { exact: true })).toBeVisible();
  return editor;
}

test("a dirty config form asks before an in-app link or closing the tab leaves it; a clean one does not", async ({ page, seed }) => {
  const type = seed.name("scraper");
  await seed.automation(type, { config: CONFIG_SCHEMA });
  await seed.workers(type, [{ id: "w1", config: { slots: 3 } }]);

  // Clean: the link just goes.
  let editor = await openEditor(page, type, "w1");
  await page.getByRole("link", { name: type }).click();
  await expect(page).toHaveURL(/\/workers\?type=/);

  editor = await openEditor(page, type, "w1");
  await editor.getByLabel("Slots", { exact: true }).fill("9");
  // A jump within the page is not leaving it.
  await page.getByRole("link", { name: "Edit config" }).click();
  await expect(page).toHaveURL(/#config$/);
  await expect(page.getByRole("dialog")).toHaveCount(0);

  await page.getByRole("link", { name: type }).click();
  const ask = page.getByRole("dialog", { name: "Leave without saving?" });
  await expect(ask).toBeVisible();
  await expect(ask).toContainText(`You have unsaved changes to the config of w1.`);
  await expect(ask.getByRole("button", { name: "Stay on this page" })).toBeFocused();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expectAxeClean(page, `the leave question at ${size.label}, ${scheme}`);
      await page.screenshot({ path: screenshotPath(`ux-leave-question-${size.label}-${scheme}`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(SIZES[0]);
  await ask.getByRole("button", { name: "Stay on this page" }).click();
  await expect(ask).toBeHidden();
  expect(new URL(page.url()).pathname).toBe(`/workers/${enc(type)}/w1`);
  await expect(editor.getByLabel("Slots", { exact: true })).toHaveValue("9");

  // Closing the tab: the browser's own question; dismissed, the page and the edit stay.
  const dialog = page.waitForEvent("dialog");
  await page.close({ runBeforeUnload: true });
  const d = await dialog;
  expect(d.type()).toBe("beforeunload");
  await d.dismiss();
  await expect(editor.getByLabel("Slots", { exact: true })).toHaveValue("9");
  expect(page.isClosed()).toBe(false);

  // Leave and discard: the link is followed.
  await page.getByRole("link", { name: type }).click();
  await ask.getByRole("button", { name: "Leave and discard" }).click();
  await expect(page).toHaveURL(/\/workers\?type=/);
  await expect(page.getByRole("dialog", { name: "Leave without saving?" })).toHaveCount(0);
});

test("the rollout form asks too once a setting is set", async ({ page, seed }) => {
  const type = seed.name("scraper");
  await seed.automation(type, { config: CONFIG_SCHEMA });
  await seed.workers(type, [{ id: "w1", config: { slots: 3 } }]);
  await page.goto(`/automations/${enc(type)}`);
  const rollout = page.getByRole("region", { name: "Apply to every worker of this automation" });
  await field(rollout, "slots").getByRole("radio", { name: "Set to" }).check();
  await page.getByRole("main").getByRole("link", { name: "Automations" }).click();
  await expect(page.getByRole("dialog", { name: "Leave without saving?" })).toContainText(`the rollout to the workers of ${type}`);
});

test("after a save the page waits for the worker's reported generation and says applied ✓; offline and silent workers are told apart", async ({ page, seed, backend }) => {
  const type = seed.name("scraper");
  await seed.automation(type, { config: CONFIG_SCHEMA });
  await seed.workers(type, [
    { id: "live", config: { slots: 3 }, stats: { config_gen: 1, slots_running: 3 } },
    { id: "gone", config: { slots: 3 }, stats: { config_gen: 1 }, seenAgo: 7200 },
    { id: "quiet", config: { slots: 3 }, stats: { pages: 5 } },
  ]);

  const editor = await openEditor(page, type, "live");
  await waitForLive(page);
  await editor.getByLabel("Slots", { exact: true }).fill("5");
  await editor.getByRole("button", { name: "Review and save…" }).click();
  const review = page.getByRole("dialog", { name: "Review 1 change" });
  await expect(review.getByTestId("offline-warning")).toHaveCount(0);
  await review.getByRole("button", { name: "Save changes" }).click();
  await expect(editor.getByText("Saved: generation 1 → 2.")).toBeVisible();
  const applied = editor.getByTestId("config-applied");
  await expect(applied).toHaveAttribute("data-state", "waiting");
  await expect(applied).toHaveText("Waiting for the worker… it still runs generation 1.");
  await atEveryLook(page, "waiting for the worker", "ux-config-waiting");
  // (the looks take a while: the seeded workers report again, gone stays offline)
  await seed.heartbeat(type, ["live", "quiet"]);

  // The worker reports the new generation in its stats: the live update turns it into applied.
  await backend.workerSetStats(type, "live", { config_gen: 2, slots_running: 5 });
  await expect(applied).toHaveAttribute("data-state", "applied");
  await expect(applied).toHaveText("Applied ✓ the worker runs it");
  await editor.screenshot({ path: screenshotPath("ux-config-applied") });

  // An offline worker: warned in the review, and told after the save.
  const gone = await openEditor(page, type, "gone");
  await gone.getByLabel("Slots", { exact: true }).fill("4");
  await gone.getByRole("button", { name: "Review and save…" }).click();
  const review2 = page.getByRole("dialog", { name: "Review 1 change" });
  await expect(review2.getByTestId("offline-warning")).toHaveText("⚠ This worker is offline: the config is saved now, but it picks it up only when it comes back, if ever.");
  await expectAxeClean(page, "the review of an offline worker");
  await review2.screenshot({ path: screenshotPath("ux-config-offline-review") });
  await review2.getByRole("button", { name: "Save changes" }).click();
  await expect(gone.getByTestId("config-applied")).toHaveAttribute("data-state", "offline");

  // A worker that does not report its generation: said so, no endless spinner.
  const quiet = await openEditor(page, type, "quiet");
  await quiet.getByLabel("Slots", { exact: true }).fill("4");
  await quiet.getByRole("button", { name: "Review and save…" }).click();
  await page.getByRole("dialog", { name: "Review 1 change" }).getByRole("button", { name: "Save changes" }).click();
  await expect(quiet.getByTestId("config-applied")).toHaveAttribute("data-state", "unknown");
  await expect(quiet.getByTestId("config-applied")).toContainText("does not report which generation it runs");
});

test("the worker page's Edit config jumps to the config, its heading below the sticky header, at both sizes", async ({ page, seed }) => {
  const type = seed.name("scraper");
  const history: Array<[number, Record<string, unknown>]> = Array.from({ length: 20 }, (_, i) => [
    (19 - i) * 30,
    { slots_running: 2, slots_busy: i % 3, tasks_done: i * 4, latency_p95_ms: 100 + i, cpu_pct: 10 + i, memory_mb: 300 + i },
  ]);
  // A config taller than the window, so the jump can put its heading at the top (and a
  // missing scroll padding would hide it under the sticky header).
  const extra = Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [`option_${i}`, { type: "string", title: `Option ${i}`, description: "A setting of the demo.", default: "x" }]),
  );
  await seed.automation(type, { config: { ...CONFIG_SCHEMA, properties: { ...CONFIG_SCHEMA.properties, ...extra } } });
  await seed.workers(type, [{ id: "w1", config: { slots: 2 }, stats: history.at(-1)![1], history }]);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.goto(`/workers/${enc(type)}/w1`);
    await expect(page.getByTestId("stats-chart").first()).toBeVisible();
    await waitUntilLoaded(page);
    const heading = page.getByRole("heading", { name: "Config", exact: true, level: 2 });
    // Far below the fold before the jump.
    expect((await heading.boundingBox())!.y).toBeGreaterThan(size.height);
    await page.getByRole("link", { name: "Edit config" }).click();
    await expect(page).toHaveURL(/#config$/);
    await expect(heading).toBeInViewport();
    const header = await page.getByRole("banner").boundingBox();
    const box = await heading.boundingBox();
    expect(box!.y, "the heading starts below the sticky header").toBeGreaterThanOrEqual(header!.y + header!.height);
    expect(box!.y, "and near the top, not somewhere in the middle").toBeLessThan(header!.y + header!.height + 80);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: screenshotPath(`ux-edit-config-jump-${size.label}-${scheme}`) });
      await expectAxeClean(page, `the worker page at ${size.label}, ${scheme}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
  }
});

test("the automation page's header jumps to the rollout form, its heading below the sticky header, at both sizes", async ({ page, seed }) => {
  // A form taller than the window, so the jump can put its heading at the top.
  const extra = Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [`option_${i}`, { type: "string", title: `Option ${i}`, description: "A setting of the demo.", default: "x" }]),
  );
  const type = await seed.configurable("scraper", [{ id: "w1", config: { slots: 2 } }], { ...CONFIG_SCHEMA, properties: { ...CONFIG_SCHEMA.properties, ...extra } });
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.goto(`/automations/${enc(type)}`);
    await waitUntilLoaded(page);
    const heading = page.getByRole("heading", { name: "Apply to every worker of this automation", level: 2 });
    await expect(heading).toBeAttached();
    expect((await heading.boundingBox())!.y).toBeGreaterThan(size.height);
    await page.getByRole("link", { name: "Change config of every worker" }).click();
    await expect(page).toHaveURL(/#rollout$/);
    await expect(heading).toBeInViewport();
    const header = await page.getByRole("banner").boundingBox();
    const box = await heading.boundingBox();
    expect(box!.y, "the heading starts below the sticky header").toBeGreaterThanOrEqual(header!.y + header!.height);
    expect(box!.y, "and near the top").toBeLessThan(header!.y + header!.height + 80);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: screenshotPath(`ux-rollout-jump-${size.label}-${scheme}`) });
      await expectAxeClean(page, `the automation page at ${size.label}, ${scheme}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
  }
});
