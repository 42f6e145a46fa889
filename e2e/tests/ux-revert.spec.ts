// Issue 19, point 5 (the rest): a config entry of the audit trail has "Revert to before", which
// opens the worker's usual config review (diff against what is stored now, save with If-Match
// on the generation loaded) with the values before that change; the revert is audited as one.
import { enc, expect, screenshotPath, test } from "../fixtures";
import { SIZES, expectAxeClean, waitUntilLoaded } from "./support/ux";

test.describe.configure({ timeout: 360_000 });

const SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    slots: { type: "integer", minimum: 0, maximum: 64, default: 1, title: "Slots" },
    mode: { type: "string", enum: ["fast", "thorough"], default: "fast", title: "Mode" },
  },
};

test("Revert to before opens the config review with the earlier values; saving it is checked against the generation and audited", async ({ page, seed, backend }) => {
  const type = seed.name("scraper");
  await seed.automation(type, { config: SCHEMA });
  await seed.workers(type, [{ id: "w1", config: { slots: 2, mode: "fast" } }]);
  const patch = await page.request.patch(`/api/v1/workers/${enc(type)}/w1/config`, { data: { mode: "thorough", slots: 5 }, headers: { "If-Match": '"1"' } });
  expect(patch.status()).toBe(200);

  await page.goto(`/audit?target=${enc(type)}`);
  const entry = page.getByTestId("audit-entry").first();
  await expect(entry.getByTestId("audit-sentence")).toContainText("changed the config of w1");
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const scheme of ["light", "dark"] as const) {
      await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), scheme === "dark");
      await waitUntilLoaded(page);
      await expect(entry.getByRole("button", { name: "Revert w1 to its config before this change" })).toBeVisible();
      await expectAxeClean(page, `the audit trail with a revert action at ${size.label}, ${scheme}`);
      await page.screenshot({ path: screenshotPath(`ux-revert-audit-${size.label}-${scheme}`), fullPage: true });
    }
  }
  await page.evaluate(() => document.documentElement.classList.remove("dark"));
  await page.setViewportSize(SIZES[0]);

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
  const { items } = await backend.auditRange(0, 5);
  const revert = items.map((b) => JSON.parse(b.toString()) as Record<string, unknown>).find((e) => e.target === `worker:${type}/w1` && e.status === 200);
  expect(revert).toMatchObject({ action: expect.stringMatching(/^worker\.config\.(patch|put)$/), details: { intent: "revert" }, before: { slots: 5, mode: "thorough" } });
  await page.goto(`/audit?target=${enc(type)}`);
  await expect(page.getByTestId("audit-sentence").first()).toContainText("reverted the config of w1");

  // Reverting the first change now: the review compares with what is stored now, which is
  // already those values, so there is nothing to save.
  await page.getByTestId("audit-entry").nth(1).getByRole("button", { name: "Revert w1 to its config before this change" }).click();
  await expect(page.getByRole("status").filter({ hasText: "already as it was before" })).toBeVisible();
  await expect(page.getByRole("dialog")).toHaveCount(0);
});
