// An automation's page: the fleet-wide rollout and task submission, with what they change
// shown live elsewhere (the workers list, another tab's queue page).
import type { Locator, Page } from "@playwright/test";

import { enc, expect, screenshotPath, test } from "../fixtures";

const CONFIG_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    slots: { type: "integer", minimum: 0, maximum: 64, default: 1, title: "Slots" },
    mode: { type: "string", enum: ["fast", "thorough", "stealth"], default: "fast", title: "Mode" },
  },
};

const TASK_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["url"],
  properties: {
    url: { type: "string", format: "uri", title: "URL" },
    depth: { type: "integer", minimum: 0, maximum: 5, default: 0, title: "Link depth" },
  },
};

/** The number under a label in a `<dl>` of stat tiles. */
function stat(page: Page, list: Locator, label: string): Locator {
  return list
    .locator("div")
    .filter({ has: page.getByRole("term").filter({ hasText: new RegExp(`^${label}$`) }) })
    .getByRole("definition")
    .first();
}

test("a fleet-wide rollout reaches every worker of the type, offline and failing ones included", async ({ page, seed, backend }) => {
  const type = seed.name("scraper");
  await seed.automation(type, { config: CONFIG_SCHEMA, task_payload: TASK_SCHEMA });
  await seed.workers(type, [
    { id: "a", state: "RUNNING", config: { slots: 1 } },
    { id: "b", state: "ERROR", lastError: "timeout", config: { slots: 2, mode: "thorough" } },
    { id: "c", state: "IDLE", seenAgo: 3600, config: { slots: 3 } },
  ]);

  await page.goto(`/automations/${enc(type)}`);
  const workers = page.getByRole("table", { name: "Workers of this automation" });
  await expect(workers.getByRole("row")).toHaveCount(4);
  const rollout = page.getByRole("region", { name: "Apply to every worker of this automation" });
  const mode = rollout.getByRole("group", { name: "Mode" });
  await mode.getByRole("radio", { name: "Set to" }).check();
  await mode.getByLabel("Mode: new value").selectOption("stealth");
  await expect(rollout.getByText("3 workers of 3 would change.")).toBeVisible();
  await rollout.getByRole("button", { name: "Review the change to 3 workers…" }).click();

  const review = page.getByRole("dialog", { name: `Apply to 3 workers of ${type}?` });
  await expect(review).toBeVisible();
  await review.getByRole("button", { name: "Apply to 3 workers" }).click();
  await expect(review).toBeHidden();
  await expect(rollout.getByTestId("rollout-result")).toContainText("Applied to 3 workers");
  for (const id of ["a", "b", "c"]) await expect(rollout.getByTestId("rollout-result")).toContainText(`${id} → generation 2`);

  // Redis holds each worker's own config with the rolled-out setting merged in.
  expect(await backend.workerGetConfig(type, "a")).toEqual({ config: { slots: 1, mode: "stealth" }, gen: 2 });
  expect(await backend.workerGetConfig(type, "b")).toEqual({ config: { slots: 2, mode: "stealth" }, gen: 2 });
  expect(await backend.workerGetConfig(type, "c")).toEqual({ config: { slots: 3, mode: "stealth" }, gen: 2 });
  // And the page's list of workers shows the new generation of each.
  for (const id of ["a", "b", "c"]) {
    const row = workers.getByRole("row").filter({ has: page.getByRole("link", { name: id, exact: true }) });
    await expect(row.getByRole("cell").last()).toHaveText("2");
  }
  await page.screenshot({ path: screenshotPath("flow-rollout"), fullPage: true });
});

test("a task submitted from the form raises the queue's depth on another open page, live", async ({ page, context, seed, backend }) => {
  const type = seed.name("enricher");
  await seed.automation(type, { config: CONFIG_SCHEMA, task_payload: TASK_SCHEMA });
  await seed.workers(type, [{ id: "w1" }]);

  // The queue's page, open in another tab before anything is submitted.
  const queuePage = await context.newPage();
  await queuePage.goto(`/queues/${enc(type)}`);
  const queueDepths = queuePage.locator("dl[aria-label='Depths']");
  await expect(stat(queuePage, queueDepths, "High")).toHaveText("0");
  await expect(stat(queuePage, queueDepths, "Normal")).toHaveText("0");
  await queuePage.evaluate(() => ((window as unknown as { __e2eNoReload: boolean }).__e2eNoReload = true));

  await page.goto(`/automations/${enc(type)}`);
  const form = page.getByRole("region", { name: "Submit a task" });
  await form.getByRole("textbox", { name: "URL", exact: true }).fill("https://shop.example/item/42");
  await form.getByLabel("Priority").selectOption("high");
  await form.getByRole("button", { name: "Submit task" }).click();
  const taskId = form.getByTestId("task-id");
  await expect(taskId).toHaveText(/^[0-9a-f]{32}$/);
  const id = (await taskId.textContent()) ?? "";

  await expect(stat(queuePage, queueDepths, "High")).toHaveText("1");
  await expect(stat(queuePage, queueDepths, "Normal")).toHaveText("0");
  const pending = queuePage.getByRole("region", { name: "Pending", exact: true });
  await expect(pending).toContainText(id.slice(0, 8));
  await expect(pending).toContainText("https://shop.example/item/42");
  expect(await queuePage.evaluate(() => (window as unknown as { __e2eNoReload?: boolean }).__e2eNoReload)).toBe(true);

  const detail = await backend.queueDetail(type, 10);
  expect(detail.depths.pending).toMatchObject({ high: 1, total: 1 });
  expect(JSON.parse(detail.pending[0]!.body.toString("utf8"))).toEqual({ id, payload: { url: "https://shop.example/item/42", depth: 0 } });
  await queuePage.screenshot({ path: screenshotPath("flow-task-submitted-queue"), fullPage: true });
});
