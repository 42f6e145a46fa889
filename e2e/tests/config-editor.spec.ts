// The config editor as a non-engineer uses it (form, live validation, review, save,
// conflicts), the fleet-wide rollout and task submission from the automation page.
// Each test seeds its own automation type through the backend (never the UI).
import type { Backend } from "@fleet/backend";
import type { Page } from "@playwright/test";

// Every key named with the test's prefix (its automation type, queue, catalog entry) is
// purged by the prefix fixture after the test.
import { enc, expect, screenshotPath, test, waitForLive } from "../fixtures";

const CONFIG_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  title: "Scraper",
  properties: {
    slots: { type: "integer", minimum: 0, maximum: 64, default: 1, title: "Slots", description: "Concurrent slots this worker runs." },
    mode: { type: "string", enum: ["fast", "thorough", "stealth"], default: "fast", title: "Mode" },
    headless: { type: "boolean", default: true, title: "Headless browser", description: "Run the browser without a window." },
    user_agent: { type: "string", maxLength: 20, default: "fleet", title: "User agent" },
  },
};

const TASK_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["url"],
  properties: {
    url: { type: "string", format: "uri", title: "URL", description: "Page to fetch." },
    depth: { type: "integer", minimum: 0, maximum: 5, default: 0, title: "Link depth" },
  },
};

// A loaded 2-core machine can take a while for the first paint of a page's data.
test.describe.configure({ timeout: 180_000 });

async function seed(backend: Backend, type: string, workers: Record<string, Record<string, unknown>>, schema: Record<string, unknown> | null = CONFIG_SCHEMA): Promise<void> {
  // null: no catalog entry at all (any JSON object is a valid config).
  if (schema !== null) await backend.catalogSet(type, JSON.stringify({ config: schema, output: null, task_payload: TASK_SCHEMA }));
  const now = Date.now() / 1000;
  for (const [id, config] of Object.entries(workers)) {
    await backend.workerRegister(type, id, { hostname: `${id}.e2e.internal` });
    await backend.workerSetConfig(type, id, config);
    await backend.workerSetState(type, id, "RUNNING", null, now);
  }
}

async function openEditor(page: Page, type: string, id: string) {
  await page.goto(`/workers/${enc(type)}/${enc(id)}`);
  const editor = page.getByRole("region", { name: "Config", exact: true });
  await expect(editor.getByLabel("Slots", { exact: true })).toBeVisible({ timeout: 60_000 });
  return editor;
}

test("a field changed in the form is reviewed, saved as a merge patch, and the new generation shown", async ({ page, backend, prefix }) => {
  const type = `${prefix}scraper`;
  await seed(backend, type, { w1: { slots: 2, mode: "fast" } });
  const editor = await openEditor(page, type, "w1");
  await expect(editor.getByTestId("config-generation")).toHaveText("Generation 1");

  await editor.getByLabel("Slots", { exact: true }).fill("5");
  await editor.getByLabel("Mode", { exact: true }).selectOption("stealth");
  await editor.getByRole("button", { name: "Review and save…" }).click();

  const review = page.getByRole("dialog", { name: "Review 2 changes" });
  await expect(review).toBeVisible();
  const rows = review.getByTestId("config-change");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0).getByRole("rowheader")).toContainText("Slots");
  await expect(rows.nth(0).getByRole("cell").nth(0)).toHaveText("2");
  await expect(rows.nth(0).getByRole("cell").nth(1)).toHaveText("5");
  await expect(rows.nth(1).getByRole("cell").nth(0)).toHaveText('"fast"');
  await expect(rows.nth(1).getByRole("cell").nth(1)).toHaveText('"stealth"');
  await page.screenshot({ path: screenshotPath("config-editor-review") });

  await review.getByRole("button", { name: "Save changes" }).click();
  await expect(review).toBeHidden();
  await expect(editor.getByText("Saved: generation 1 → 2.")).toBeVisible();
  await expect(editor.getByTestId("config-generation")).toHaveText("Generation 2");
  // Only what changed was written: the schema's defaults shown in the form stay unpinned.
  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { slots: 5, mode: "stealth" }, gen: 2 });
});

test("invalid values are explained beside the field, in both modes, and nothing is saved", async ({ page, backend, prefix }) => {
  const type = `${prefix}scraper`;
  await seed(backend, type, { w1: { slots: 2 } });
  const editor = await openEditor(page, type, "w1");
  const save = editor.getByRole("button", { name: "Review and save…" });

  const slots = editor.getByLabel("Slots", { exact: true });
  await slots.fill("100");
  await expect(slots).toHaveAttribute("aria-invalid", "true");
  await expect(slots).toHaveAccessibleDescription(/Must be at most 64\./);
  await expect(save).toBeDisabled();

  await slots.fill("3");
  await expect(slots).toHaveAttribute("aria-invalid", "false");
  await expect(save).toBeEnabled();

  const agent = editor.getByLabel("User agent", { exact: true });
  await agent.fill("x".repeat(30));
  await expect(agent).toHaveAccessibleDescription(/Must be at most 20 characters long\./);
  await expect(save).toBeDisabled();
  await page.screenshot({ path: screenshotPath("config-editor-invalid") });

  // The JSON mode checks the same schema.
  await editor.getByRole("button", { name: "JSON", exact: true }).click();
  const json = editor.getByLabel("Config (JSON)");
  await expect(json).toHaveAttribute("aria-invalid", "true");
  await expect(editor.getByRole("alert").filter({ hasText: "Must be at most 20 characters long." })).toBeVisible();
  await json.fill('{"slots": -1}');
  await expect(editor.getByRole("alert").filter({ hasText: "Must be at least 0." })).toBeVisible();
  await json.fill("{ not json");
  await expect(editor.getByText(/This is not valid JSON/)).toBeVisible();
  await expect(editor.getByRole("button", { name: "Form", exact: true })).toBeDisabled();
  await json.fill("[1, 2]");
  await expect(editor.getByText(/The config must be a JSON object/)).toBeVisible();
  await expect(save).toBeDisabled();

  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { slots: 2 }, gen: 1 });
});

test("the JSON mode saves too: a removed key is sent as null and falls back to its default", async ({ page, backend, prefix }) => {
  const type = `${prefix}scraper`;
  await seed(backend, type, { w1: { slots: 2, mode: "thorough", user_agent: "custom" } });
  const editor = await openEditor(page, type, "w1");
  await editor.getByRole("button", { name: "JSON", exact: true }).click();
  await editor.getByLabel("Config (JSON)").fill('{"slots": 3, "mode": "thorough", "headless": false}');
  await editor.getByRole("button", { name: "Review and save…" }).click();

  const review = page.getByRole("dialog", { name: "Review 3 changes" });
  await expect(review).toBeVisible();
  const agentRow = review.getByTestId("config-change").filter({ hasText: "User agent" });
  await expect(agentRow).toContainText('"custom"');
  await expect(agentRow).toContainText('removed (falls back to default "fleet")');
  await expect(review.getByTestId("config-change").filter({ hasText: "Headless browser" })).toContainText("true (default)");
  await review.getByRole("button", { name: "Save changes" }).click();

  await expect(editor.getByTestId("config-generation")).toHaveText("Generation 2");
  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { slots: 3, mode: "thorough", headless: false }, gen: 2 });
});

test("the server's 422 details are shown beside the field and nothing is saved", async ({ page, backend, prefix }) => {
  const type = `${prefix}scraper`;
  await seed(backend, type, { w1: { slots: 2 } });
  // The catalog tightens after the page loaded its schema: only the server knows. The page
  // could learn of it (its live stream's catch-up refetches what it shows: on a loaded machine
  // after the change, and the click then waited on a disabled button), so every read of the
  // automation the page makes is answered as before the change, from before the page loads.
  const loaded = await page.request.get(`/api/v1/automations/${enc(type)}`);
  expect(loaded.status()).toBe(200);
  const schemaBefore = await loaded.text();
  let served = 0;
  await page.route(
    (url) => url.pathname === `/api/v1/automations/${enc(type)}`,
    (route) => {
      if (route.request().method() !== "GET") return route.fallback();
      served += 1;
      return route.fulfill({ status: 200, contentType: "application/json", body: schemaBefore });
    },
  );
  const editor = await openEditor(page, type, "w1");
  const stricter = structuredClone(CONFIG_SCHEMA);
  stricter.properties.slots.maximum = 4;
  await backend.catalogSet(type, JSON.stringify({ config: stricter, output: null, task_payload: TASK_SCHEMA }));
  // what the loaded machine did: the page reads the automation again after the change (here
  // a change of the worker, which the live stream brings, refetches what the page shows), and
  // is answered as before it
  const servedBefore = served;
  await backend.workerSetState(type, "w1", "IDLE", null, Date.now() / 1000);
  await expect.poll(() => served, { timeout: 45_000 }).toBeGreaterThan(servedBefore);

  const slots = editor.getByLabel("Slots", { exact: true });
  await slots.fill("5");
  await editor.getByRole("button", { name: "Review and save…" }).click();
  await page.getByRole("dialog", { name: "Review 1 change" }).getByRole("button", { name: "Save changes" }).click();

  await expect(slots).toHaveAccessibleDescription(/Must be at most 4\./);
  await expect(editor.getByRole("alert").filter({ hasText: "The console refused this config" })).toBeVisible();
  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { slots: 2 }, gen: 1 });
});

test("a type without a catalog schema is edited as JSON only, and the config must be an object", async ({ page, backend, prefix }) => {
  const type = `${prefix}free`;
  await seed(backend, type, { w1: { anything: [1, 2] } }, null);
  await page.goto(`/workers/${enc(type)}/w1`);
  const editor = page.getByRole("region", { name: "Config", exact: true });
  const json = editor.getByLabel("Config (JSON)");
  await expect(json).toBeVisible({ timeout: 60_000 });
  await expect(editor.getByText(/declares no config schema/)).toBeVisible();
  await expect(editor.getByRole("button", { name: "Form", exact: true })).toHaveCount(0);

  await json.fill('"just text"');
  await expect(editor.getByText(/The config must be a JSON object/)).toBeVisible();
  await expect(editor.getByRole("button", { name: "Review and save…" })).toBeDisabled();

  await json.fill('{"anything": [1, 2], "extra": {"deep": true}}');
  await editor.getByRole("button", { name: "Review and save…" }).click();
  const review = page.getByRole("dialog", { name: "Review 1 change" });
  await expect(review.getByTestId("config-change")).toContainText("extra");
  await review.getByRole("button", { name: "Save changes" }).click();
  await expect(editor.getByTestId("config-generation")).toHaveText("Generation 2");
  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { anything: [1, 2], extra: { deep: true } }, gen: 2 });
});

async function editThenSomeoneElseSaves(page: Page, backend: Backend, type: string) {
  await seed(backend, type, { w1: { slots: 2, mode: "fast" } });
  const editor = await openEditor(page, type, "w1");
  await waitForLive(page);
  await editor.getByLabel("Slots", { exact: true }).fill("7");
  // Someone else saves generation 2 while the form has unsaved changes.
  await backend.workerSetConfig(type, "w1", { slots: 2, mode: "thorough" }, { expectedGen: 1 });
  await expect(editor.getByTestId("config-changed-elsewhere")).toContainText("now generation 2");
  // The form was not clobbered.
  await expect(editor.getByLabel("Slots", { exact: true })).toHaveValue("7");

  await editor.getByRole("button", { name: "Review and save…" }).click();
  await page.getByRole("dialog", { name: "Review 1 change" }).getByRole("button", { name: "Save changes" }).click();
  const conflict = page.getByRole("dialog", { name: "Someone else saved first" });
  await expect(conflict).toBeVisible();
  await expect(conflict).toContainText("generation 2");
  const theirs = conflict.getByTestId("config-change").filter({ hasText: "Mode" });
  await expect(theirs).toContainText('"fast"');
  await expect(theirs).toContainText('"thorough"');
  return { editor, conflict };
}

test("a concurrent save brings up the conflict dialog; 'Reload theirs' drops my change", async ({ page, backend, prefix }) => {
  const type = `${prefix}scraper`;
  const { editor, conflict } = await editThenSomeoneElseSaves(page, backend, type);
  await page.screenshot({ path: screenshotPath("config-editor-conflict") });
  await conflict.getByRole("button", { name: "Reload theirs" }).click();

  await expect(conflict).toBeHidden();
  await expect(editor.getByTestId("config-generation")).toHaveText("Generation 2");
  await expect(editor.getByLabel("Mode", { exact: true }).locator("option:checked")).toHaveText("thorough");
  await expect(editor.getByLabel("Slots", { exact: true })).toHaveValue("2");
  await expect(editor.getByRole("button", { name: "Review and save…" })).toBeDisabled();
  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { slots: 2, mode: "thorough" }, gen: 2 });
});

test("a concurrent save brings up the conflict dialog; 'Apply my change on top' re-reviews and saves on their version", async ({ page, backend, prefix }) => {
  const type = `${prefix}scraper`;
  const { editor, conflict } = await editThenSomeoneElseSaves(page, backend, type);
  await conflict.getByRole("button", { name: "Apply my change on top" }).click();

  const review = page.getByRole("dialog", { name: "Review 1 change" });
  await expect(review).toBeVisible();
  await expect(review).toContainText("from generation 2");
  const row = review.getByTestId("config-change");
  await expect(row).toHaveCount(1);
  await expect(row.getByRole("cell").nth(0)).toHaveText("2");
  await expect(row.getByRole("cell").nth(1)).toHaveText("7");
  await review.getByRole("button", { name: "Save changes" }).click();

  await expect(editor.getByText("Saved: generation 2 → 3.")).toBeVisible();
  await expect(editor.getByLabel("Mode", { exact: true }).locator("option:checked")).toHaveText("thorough");
  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { slots: 7, mode: "thorough" }, gen: 3 });
});

test("a fleet-wide rollout reaches every worker of the type, keeping their other settings", async ({ page, backend, prefix }) => {
  const type = `${prefix}scraper`;
  await seed(backend, type, { a: { slots: 1 }, b: { slots: 2, mode: "thorough" }, c: { slots: 3, headless: false } });
  await page.goto(`/automations/${enc(type)}`);
  const rollout = page.getByRole("region", { name: "Apply to every worker of this automation" });
  const mode = rollout.getByRole("group", { name: "Mode" });
  await mode.getByRole("radio", { name: "Set to" }).check();
  await mode.getByLabel("Mode: new value").selectOption("stealth");
  await expect(rollout.getByText("3 workers of 3 would change.")).toBeVisible();
  await rollout.getByRole("button", { name: "Review the change to 3 workers…" }).click();

  const review = page.getByRole("dialog", { name: `Apply to 3 workers of ${type}?` });
  await expect(review).toBeVisible();
  await expect(review.getByTestId("config-change")).toHaveCount(3);
  await review.getByRole("button", { name: "Apply to 3 workers" }).click();

  await expect(rollout.getByTestId("rollout-result")).toContainText("Applied to 3 workers");
  expect(await backend.workerGetConfig(type, "a")).toEqual({ config: { slots: 1, mode: "stealth" }, gen: 2 });
  expect(await backend.workerGetConfig(type, "b")).toEqual({ config: { slots: 2, mode: "stealth" }, gen: 2 });
  expect(await backend.workerGetConfig(type, "c")).toEqual({ config: { slots: 3, headless: false, mode: "stealth" }, gen: 2 });
});

test("a task submitted from the generated form shows its id and raises the queue's depth, live", async ({ page, backend, prefix }) => {
  const type = `${prefix}scraper`;
  await seed(backend, type, { w1: { slots: 1 } });
  await page.goto(`/automations/${enc(type)}`);
  await expect(page.getByTestId("queue-pending")).toHaveText("0");
  await waitForLive(page);

  const form = page.getByRole("region", { name: "Submit a task" });
  const url = form.getByLabel("URL", { exact: true });
  await url.fill("not a url");
  await expect(url).toHaveAccessibleDescription(/Must be a web address/);
  await expect(form.getByRole("button", { name: "Submit task" })).toBeDisabled();
  await url.fill("https://shop.example/item/1");
  await form.getByLabel("Priority").selectOption("high");
  await form.getByRole("button", { name: "Submit task" }).click();

  await expect(form.getByTestId("task-id")).toHaveText(/^[0-9a-f]{32}$/);
  await expect(page.getByTestId("queue-pending")).toHaveText("1");
  await expect(form.getByTestId("queue-pending-now")).toHaveText("1");
  const detail = await backend.queueDetail(type, 10);
  expect(detail.depths.pending).toMatchObject({ high: 1, total: 1 });
  expect(detail.pending[0]!.priority).toBe("high");
  expect(JSON.parse(detail.pending[0]!.body.toString("utf8"))).toMatchObject({ payload: { url: "https://shop.example/item/1", depth: 0 } });
});
