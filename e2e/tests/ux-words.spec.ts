// Issue 19, point 5: words for people. Plain labels lead, with a line that explains them, and
// the raw key stays visible beside them; the audit trail reads as sentences with the raw
// request one click away.
import { Seeder, atEveryLook, changeConfig, enc, expect, test } from "../fixtures";

// Four looks (sizes × schemes) each with axe and a full-page picture: minutes on a loaded machine.
test.describe.configure({ timeout: 240_000 });

test("the audit trail reads as sentences, the raw request one click away, at both sizes", async ({ page, seed, backend }) => {
  const type = await seed.configurable("scraper", [{ id: "w1", config: { slots: 2, mode: "fast" } }]);
  const queue = seed.name("jobs");
  await backend.queueDead(queue, Seeder.task("a".repeat(32), {}, { attempts: 3, last_error: "x" }));
  // Changes made through the console's API (what the audit trail records), not seeded entries.
  await changeConfig(page.request, type, { worker: "w1", gen: 1 }, { mode: "thorough" });
  const requeue = await page.request.post(`/api/v1/queues/${enc(queue)}/dead/requeue`, { data: { all: true } });
  expect(requeue.status()).toBe(200);

  await page.goto(`/audit?target=${enc(type)}`);
  const entry = page.getByTestId("audit-entry").first();
  await expect(entry.getByTestId("audit-sentence")).toHaveText(`anonymous changed the config of w1 (${type}): Mode fast → thorough (sign-in switched off)`);
  // the raw request: one click
  await expect(entry.getByText("worker.config.patch")).toBeHidden();
  await entry.getByText("Raw request, config before / after").click();
  await expect(entry.getByText("worker.config.patch")).toBeVisible();
  await expect(entry).toContainText(`PATCH /api/v1/workers/${enc(type)}/w1/config → 200`);

  await page.goto(`/audit?target=${enc(queue)}`);
  await expect(page.getByTestId("audit-sentence").first()).toHaveText(`anonymous requeued 1 dead letter of ${queue} (sign-in switched off)`);
  await atEveryLook(page, "the audit trail", "ux-audit");
});

test("queue depths and the sweep lead with plain words and keep the raw names", async ({ page, seed, backend }) => {
  const type = await seed.configurable("scraper", [{ id: "w1", config: { slots: 2 } }]);
  await backend.queuePushMany(type, [{ body: Seeder.task("b".repeat(32), {}) }]);

  await page.goto(`/queues/${enc(type)}`);
  await atEveryLook(page, "the queue page", "ux-words-queue", async () => {
    await expect(page.getByRole("definition").first()).toBeVisible();
    await expect(page.getByRole("term").filter({ hasText: /^Stuck$/ })).toBeVisible();
    await expect(page.getByRole("term").filter({ hasText: /^Retry due$/ })).toBeVisible();
    const legend = page.getByTestId("depth-legend");
    await expect(legend).toContainText("Stuck (overdue): held longer than allowed");
    await expect(legend).toContainText("Retry due (due): failed tasks whose retry time has come");
    await expect(page.getByRole("button", { name: "Requeue overdue tasks" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Sweep now" })).toHaveCount(0);
  });
});

test("the worker page says Config version and plain stats names, the raw keys beside them", async ({ page, seed }) => {
  const type = await seed.configurable("scraper", [{ id: "w1", config: { slots: 2 }, stats: { slots_target: 2, latency_p95_ms: 120 } }]);
  await page.goto(`/workers/${enc(type)}/w1`);
  await atEveryLook(page, "the worker page", "ux-words-worker", async () => {
    const version = page
      .getByRole("region", { name: "Summary" })
      .locator("div")
      .filter({ has: page.getByRole("term").filter({ hasText: /^Config version$/ }) });
    await expect(version).toContainText("Goes up by one on every save.");
    await expect(version).toContainText("config_gen");
    await expect(page.getByRole("term").filter({ hasText: /^Config gen$/ })).toHaveCount(0);
    await expect(page.getByRole("region", { name: "Latest stats" }).getByRole("term").filter({ hasText: "Task time, slowest 5% (ms)" })).toContainText("latency_p95_ms");
  });
});

test("the automation page's catalog line says what it means", async ({ page, seed }) => {
  const type = await seed.configurable("scraper", [{ id: "w1", config: { slots: 2 } }]);
  await page.goto(`/automations/${enc(type)}`);
  await atEveryLook(page, "the automation page", "ux-words-automation", async ({ size }) => {
    await expect(page.getByRole("main").locator("header p").first()).toContainText("described by the master (its catalog entry, fleet:catalog)");
    await expect(page.getByRole("columnheader", { name: "Config version" })).toHaveCount(size.label === "desktop" ? 1 : 0);
  });
});
