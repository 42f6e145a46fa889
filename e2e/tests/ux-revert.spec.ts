// Issue 19, point 5 (the rest): a config entry of the audit trail has "Revert to before", which
// opens the usual review with the values before that change. One worker's entry: the worker
// page's config review (diff against what is stored now, save with If-Match on the generation
// loaded). A fleet-wide entry (a rollout): the automation page's rollout review, per worker,
// each written at the generation the review showed, so a worker that moved meanwhile is never
// overwritten. The revert is audited as one.
import { atEveryLook, auditEntries, changeConfig, CONFIG_SCHEMA, enc, expect, expectAxeClean, screenshotPath, SIZES, test, waitForLive } from "../fixtures";

// Four looks (sizes × schemes) of two pages each: axe takes a while on a loaded machine.
test.describe.configure({ timeout: 360_000 });

test("Revert to before opens the config review with the earlier values; saving it is checked against the generation and audited", async ({ page, seed, backend }) => {
  const type = await seed.configurable("scraper", [{ id: "w1", config: { slots: 2, mode: "fast" } }]);
  await changeConfig(page.request, type, { worker: "w1", gen: 1 }, { mode: "thorough", slots: 5 });

  await page.goto(`/audit?target=${enc(type)}`);
  const entry = page.getByTestId("audit-entry").first();
  await expect(entry.getByTestId("audit-sentence")).toContainText("changed the config of w1");
  await atEveryLook(page, "the audit trail with a revert action", "ux-revert-audit", async () => {
    await expect(entry.getByRole("button", { name: "Revert w1 to its config before this change" })).toBeVisible();
  });

  await entry.getByRole("button", { name: "Revert w1 to its config before this change" }).click();
  // the values travel in sessionStorage, not the URL: only the worker and the config anchor stay
  await expect(page).toHaveURL(new RegExp(`/workers/${enc(type)}/w1#config$`));
  const review = page.getByRole("dialog", { name: "Review 2 changes" });
  await expect(review).toBeVisible();
  const changes = review.getByTestId("config-change");
  await expect(changes).toHaveCount(2);
  await expect(review).toContainText("thorough");
  await expect(review).toContainText("fast");
  await expect(page.getByRole("status").filter({ hasText: "Reverting to the config as it was before anonymous's change" })).toBeVisible();
  await expectAxeClean(page, "the revert review");
  await review.screenshot({ path: screenshotPath("ux-revert-review") });
  await page.setViewportSize(SIZES[1]);
  await expectAxeClean(page, "the revert review on a phone");
  await page.screenshot({ path: screenshotPath("ux-revert-review-phone") });
  await page.setViewportSize(SIZES[0]);

  await review.getByRole("button", { name: "Save changes" }).click();
  await expect(review).toBeHidden();
  await expect(page.getByText("Saved: generation 2 → 3.")).toBeVisible();
  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { slots: 2, mode: "fast" }, gen: 3 });
  const revert = (await auditEntries(backend, 5)).find((e) => e.target === `worker:${type}/w1` && e.status === 200);
  expect(revert).toMatchObject({ action: expect.stringMatching(/^worker\.config\.(patch|put)$/), details: { intent: "revert" }, before: { slots: 5, mode: "thorough" } });
  await page.goto(`/audit?target=${enc(type)}`);
  await expect(page.getByTestId("audit-sentence").first()).toContainText("reverted the config of w1");

  // Reverting the first change now: the review compares with what is stored now, which is
  // already those values, so there is nothing to save.
  await page.getByTestId("audit-entry").nth(1).getByRole("button", { name: "Revert w1 to its config before this change" }).click();
  await expect(page.getByRole("status").filter({ hasText: "already as it was before" })).toBeVisible();
  await expect(page.getByRole("dialog")).toHaveCount(0);
});

test("Revert to before of a rollout: the rollout's review per worker, each written at the generation it showed; a worker that moved meanwhile stops the write", async ({
  page,
  seed,
  backend,
}) => {
  const type = await seed.configurable("fleet", [
    { id: "a", config: { slots: 4, mode: "fast" } },
    { id: "b", config: { slots: 2, mode: "thorough" } },
    { id: "c", config: { slots: 2, mode: "stealth" } },
    // offline: named in the review
    { id: "d", config: { slots: 1, mode: "fast" }, seenAgo: 3600 },
  ]);
  // The rollout being reverted: every worker to stealth (c already was: left alone).
  await changeConfig(page.request, type, { fleet: true }, { mode: "stealth" });
  // Later, someone changes b again: its revert also undoes that, and the review says so.
  await changeConfig(page.request, type, { worker: "b", gen: 2 }, { slots: 3 });

  await page.goto(`/audit?target=${enc(`automation:${type}`)}`);
  const entry = page.getByTestId("audit-entry").filter({ hasText: "rolled a config change out to 3 workers" });
  await expect(entry.getByTestId("audit-sentence")).toContainText(`rolled a config change out to 3 workers of ${type}: Mode fast → stealth (first worker shown)`);
  const button = entry.getByRole("button", { name: `Revert the 3 workers of ${type} to their config before this change` });
  await atEveryLook(page, "the audit trail with a rollout's revert action", "ux-revert-rollout-audit", async () => {
    await expect(button).toBeVisible();
  });
  // (the looks above take a while: the seeded workers report again, d stays offline)
  await seed.heartbeat(type, ["a", "b", "c"]);
  await button.click();
  await expect(page).toHaveURL(new RegExp(`/automations/${enc(type)}#rollout$`));

  const review = page.getByRole("dialog", { name: `Revert 3 workers of ${type}?` });
  await expect(review).toBeVisible();
  const workers = review.getByTestId("fleet-revert-worker");
  await expect(workers.getByRole("heading", { level: 3 })).toHaveText([/^a \(generation 2 → 3\)$/, /^b \(generation 3 → 4\)$/, /^d \(generation 2 → 3, offline\)$/]);
  await expect(workers.filter({ hasText: /^b/ }).getByTestId("changed-since")).toBeVisible();
  await expect(workers.filter({ hasText: /^a/ }).getByTestId("changed-since")).toHaveCount(0);
  await expect(workers.filter({ hasText: /^b/ }).getByTestId("config-change")).toHaveCount(2);
  await expect(review.getByTestId("offline-warning")).toContainText("(d)");
  await expect(page.getByTestId("fleet-revert-notice")).toContainText("Reverting 3 workers to the config before anonymous's change of");
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expectAxeClean(page, `the rollout's revert review at ${size.label}, ${scheme}`);
      await page.screenshot({ path: screenshotPath(`ux-revert-rollout-review-${size.label}-${scheme}`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(SIZES[0]);

  // Meanwhile someone saves a: the open review follows its new generation (live), and says
  // that reverting undoes that save too.
  await changeConfig(page.request, type, { worker: "a", gen: 2 }, { slots: 6 });
  // (the live list shows it before the click; a click at the old generation is the next test)
  // (the looks above took a while: whether a still counts as online is not the point here)
  await expect(workers.getByRole("heading", { level: 3 }).first()).toHaveText(/^a \(generation 3 → 4(, offline)?\)$/);
  await expect(workers.filter({ hasText: /^a/ }).getByTestId("changed-since")).toBeVisible();
  await review.getByRole("button", { name: "Revert 3 workers" }).click();
  await expect(review).toBeHidden();
  await expect(page.getByTestId("fleet-revert-notice")).toContainText("Reverted 3 workers to the config before anonymous's change");
  expect(await backend.workerGetConfig(type, "a")).toEqual({ config: { slots: 4, mode: "fast" }, gen: 4 });
  expect(await backend.workerGetConfig(type, "b")).toEqual({ config: { slots: 2, mode: "thorough" }, gen: 4 });
  expect(await backend.workerGetConfig(type, "c")).toEqual({ config: { slots: 2, mode: "stealth" }, gen: 1 });
  expect(await backend.workerGetConfig(type, "d")).toEqual({ config: { slots: 1, mode: "fast" }, gen: 3 });

  const [last] = await auditEntries(backend, 5);
  expect(last).toMatchObject({ action: "workers.bulk.config", details: { automation_type: type, intent: "revert", written: 3 }, changes_total: 3 });
  await page.goto(`/audit?target=workers`);
  await expect(page.getByTestId("audit-sentence").first()).toContainText(`reverted 3 workers of ${type} to their config before an earlier change`);
});

test("a revert whose worker moved after the review was loaded writes nothing and shows the new state to confirm again", async ({ page, seed, backend }) => {
  const type = await seed.configurable("race", [
    { id: "a", config: { slots: 1 } },
    { id: "b", config: { slots: 1 } },
  ]);
  await changeConfig(page.request, type, { fleet: true }, { slots: 2 });
  // No live stream in this tab, and its reads of the worker list answered as first read until
  // the refusal is seen: a tab without its stream polls what it shows every 5 s, and a poll
  // between the change below and the click would put generation 3 in the review (the click
  // would then write, not be refused). The click writes at the generation the review shows.
  await page.route("**/api/v1/events**", (route) => route.abort());
  const frozen = new Map<string, { status: number; body: string }>();
  const isList = (u: URL) => u.pathname === "/api/v1/workers";
  await page.route(isList, async (route) => {
    if (route.request().method() !== "GET") return route.fallback();
    const url = route.request().url();
    let answer = frozen.get(url);
    if (answer === undefined) {
      const res = await route.fetch();
      answer = { status: res.status(), body: await res.text() };
      frozen.set(url, answer);
    }
    return route.fulfill({ status: answer.status, contentType: "application/json", body: answer.body });
  });
  await page.goto(`/audit?target=${enc(`automation:${type}`)}`);
  await page.getByRole("button", { name: `Revert the 2 workers of ${type} to their config before this change` }).click();
  const review = page.getByRole("dialog", { name: `Revert 2 workers of ${type}?` });
  await expect(review).toBeVisible();
  await expect(review.getByTestId("fleet-revert-worker").getByRole("heading", { level: 3 }).last()).toHaveText(/^b \(generation 2 → 3(, offline)?\)$/);
  await backend.workerSetConfig(type, "b", { slots: 7 }, { expectedGen: 2 });
  await review.getByRole("button", { name: "Revert 2 workers" }).click();
  await expect(review.getByRole("alert")).toContainText("Not reverted: The config of 1 worker changed since the review (b: now generation 3)");
  await page.unroute(isList);
  expect(await backend.workerGetConfig(type, "a")).toEqual({ config: { slots: 2 }, gen: 2 });
  // the review now shows b at generation 3, and confirming again reverts both
  await expect(review.getByTestId("fleet-revert-worker").getByRole("heading", { level: 3 }).last()).toHaveText(/^b \(generation 3 → 4(, offline)?\)$/);
  await review.getByRole("button", { name: "Revert 2 workers" }).click();
  await expect(review).toBeHidden();
  expect(await backend.workerGetConfig(type, "a")).toEqual({ config: { slots: 1 }, gen: 3 });
  expect(await backend.workerGetConfig(type, "b")).toEqual({ config: { slots: 1 }, gen: 4 });
});

test("Revert to before of a rollout of 1,100 workers: every change read from beside its entry, written 1,000 at a time, all back", async ({ page, seed, backend }) => {
  const ids = Array.from({ length: 1100 }, (_, i) => `w${String(i).padStart(4, "0")}`);
  const type = await seed.configurable(
    "big",
    ids.map((id, i) => ({ id, config: { slots: 1 + (i % 5), mode: "fast" } })),
  );
  await changeConfig(page.request, type, { fleet: true }, { mode: "stealth" });
  // the entry lists the first 100 and says all 1,100 are kept beside it
  const newest = (await auditEntries(backend, 1))[0]!;
  expect(newest).toMatchObject({ action: "automation.config.rollout", changes_total: 1100, changes_kept: 1100 });
  expect((newest.changes as unknown[]).length).toBe(100);

  await page.goto(`/audit?target=${enc(`automation:${type}`)}`);
  const entry = page.getByTestId("audit-entry").first();
  await entry.getByRole("button", { name: `Revert the 1100 workers of ${type} to their config before this change` }).click();
  await expect(page).toHaveURL(new RegExp(`/automations/${enc(type)}#rollout$`));
  await seed.heartbeat(type, ids);
  const review = page.getByRole("dialog", { name: `Revert 1100 workers of ${type}?` });
  await expect(review).toBeVisible({ timeout: 60_000 });
  // the review shows the first 500 in full and counts the rest
  await expect(review.getByTestId("fleet-revert-worker")).toHaveCount(500);
  await expect(review.getByTestId("fleet-revert-more")).toContainText("…and 600 more workers");
  await expect(review.getByTestId("fleet-revert-worker").first().getByRole("heading", { level: 3 })).toHaveText(/^w0000 \(generation 2 → 3/);
  await expectAxeClean(page, "the revert review of 1,100 workers", '[data-testid="fleet-revert-review"]');
  await page.screenshot({ path: screenshotPath("ux-revert-rollout-1100-review") });

  await review.getByRole("button", { name: "Revert 1100 workers" }).click();
  await expect(page.getByTestId("fleet-revert-notice")).toContainText("Reverted 1100 workers to the config before anonymous's change", { timeout: 60_000 });
  // a sentence naming the first ten, a list of the first twenty with their progress, and the count of the rest
  await expect(page.getByTestId("fleet-revert-notice")).toContainText("w0009 → generation 3 and 1090 more.");
  await expect(page.getByTestId("fleet-revert-notice")).toContainText("…and 1080 more");
  await page.getByTestId("fleet-revert-notice").screenshot({ path: screenshotPath("ux-revert-rollout-1100-done") });
  for (const [i, id] of [
    [0, "w0000"],
    [999, "w0999"],
    [1000, "w1000"],
    [1099, "w1099"],
  ] as const) {
    expect(await backend.workerGetConfig(type, id)).toEqual({ config: { slots: 1 + (i % 5), mode: "fast" }, gen: 3 });
  }
  // two requests, one audit entry each, in order
  const [second, first] = await auditEntries(backend, 2);
  expect(first).toMatchObject({ action: "workers.bulk.config", details: { automation_type: type, intent: "revert", written: 1000 } });
  expect(second).toMatchObject({ action: "workers.bulk.config", details: { automation_type: type, intent: "revert", written: 100 } });
});

test("Revert to before of a change that replaced a Python worker's NaN writes Python's NaN back, not the string it was shown as; editing another field keeps it", async ({
  page,
  seed,
  backend,
}) => {
  const schema = { ...CONFIG_SCHEMA, properties: { ...CONFIG_SCHEMA.properties, limit: { type: "number", title: "Limit" } } };
  const type = await seed.configurable("floats", [{ id: "w1", config: { slots: 2 } }], schema);
  // what a Python worker writes: json.dumps of float("nan")
  await backend.workerSetConfig(type, "w1", { slots: 2, limit: Number.NaN });
  const stored = async () => (await backend.workerGetConfig(type, "w1"))!.config;

  // editing the slots in the form leaves the NaN as the worker wrote it
  await page.goto(`/workers/${enc(type)}/w1#config`);
  await waitForLive(page);
  const slots = page.getByRole("spinbutton", { name: "Slots" });
  await slots.fill("3");
  await page.getByRole("button", { name: "Review and save…" }).click();
  const review = page.getByRole("dialog", { name: "Review 1 change" });
  await review.getByRole("button", { name: "Save changes" }).click();
  await expect(review).toBeHidden();
  await expect.poll(async () => (await stored()).slots, { timeout: 60_000 }).toBe(3);
  expect(Number.isNaN((await stored()).limit)).toBe(true);

  // someone replaces the NaN with a number; the audit trail shows that change and reverts it
  await changeConfig(page.request, type, { worker: "w1", gen: 3 }, { limit: 5 });
  await page.goto(`/audit?target=${enc(type)}`);
  const entry = page.getByTestId("audit-entry").first();
  await expect(entry.getByTestId("audit-sentence")).toContainText("changed the config of w1");
  await expect(entry).not.toContainText("corrupt");
  await entry.getByRole("button", { name: "Revert w1 to its config before this change" }).click();
  const revert = page.getByRole("dialog", { name: "Review 1 change" });
  await expect(revert).toContainText("NaN");
  await revert.getByRole("button", { name: "Save changes" }).click();
  await expect(revert).toBeHidden();
  await expect.poll(async () => (await backend.workerGetConfig(type, "w1"))!.gen, { timeout: 60_000 }).toBe(5);
  const back = await stored();
  expect(back.slots).toBe(3);
  expect(Number.isNaN(back.limit)).toBe(true);
});
