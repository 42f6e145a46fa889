// Error groups (issue 14.3) and the worker list's bulk actions (issue 14.4): groups on the
// overview and on a queue's page, their links to the dead letters (the queue's search; only
// the URL is checked here) and to the workers that show them; removing offline workers, a
// page of them picked by hand and then every one matching a filter; a config change to
// selected workers, reviewed and written per worker, a conflict reviewed again. Axe-clean throughout.
import { normalizeErrorMessage } from "@fleet/schema";

import { auditEntries, enc, expect, expectAxeClean, screenshotPath, Seeder, test, waitUntilLoaded } from "../fixtures";

const TIMEOUT = "Timeout after 30s fetching https://shop.example/p/1234";
const DECLINED = "Card declined for order o-77 (code 0x1f3a)";

test("error groups: top groups on the overview and a queue, linking to the search and to the workers", async ({ page, seed, backend }) => {
  const queue = seed.name("scraper");
  for (let i = 0; i < 6; i++) {
    const error = i < 4 ? `Timeout after ${20 + i}s fetching https://shop.example/p/${i}` : `Card declined for order o-${i} (code 0x${i}f)`;
    await backend.queueDead(queue, Seeder.task(`t${i}${"0".repeat(30)}`, { url: `https://shop.example/${i}` }, { attempts: 3, last_error: error }));
  }
  await seed.workers(queue, [
    { id: "w1", state: "ERROR", lastError: "Timeout after 9s fetching https://shop.example/p/9" },
    { id: "w2", state: "ERROR", lastError: "Timeout after 3s fetching https://shop.example/p/3", seenAgo: 3600 },
    { id: "w3", state: "RUNNING" },
  ]);
  const timeout = normalizeErrorMessage(TIMEOUT);
  const declined = normalizeErrorMessage(DECLINED);
  const searchHref = (group: string) => `/queues/${enc(queue)}/search?in=dead&where=${enc(`error_group = ${JSON.stringify(group)}`)}`;

  // the overview: the fleet's top groups
  await page.goto("/");
  const top = page.getByRole("region", { name: "Top error groups" });
  const row = top.getByTestId("error-group").filter({ has: page.getByTestId("error-group-text").filter({ hasText: timeout }) });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("4 dead letters in");
  await expect(row).toContainText("2 workers");
  await expect(row.getByRole("link", { name: `4 dead letters in ${queue}` })).toHaveAttribute("href", searchHref(timeout));
  await expect(top.getByTestId("error-groups-scope")).toContainText("Of the newest 1,000 dead letters of each queue");
  await waitUntilLoaded(page);
  await expectAxeClean(page, "the overview with error groups");

  // a queue's page: its groups, with the links
  await page.goto(`/queues/${enc(queue)}`);
  const groups = page.getByRole("region", { name: "Error groups" });
  await expect(groups.getByTestId("error-group-text")).toHaveText([timeout, declined]);
  await expect(groups.getByTestId("error-groups-scope")).toContainText("Of the newest 5,000 dead letters (6 of 6 read) and 3 workers");
  const declinedRow = groups.getByTestId("error-group").nth(1);
  await expect(declinedRow.getByRole("link", { name: "2 dead letters" })).toHaveAttribute("href", searchHref(declined));
  await expect(declinedRow.getByTestId("error-group-workers-link")).toHaveCount(0);
  await waitUntilLoaded(page);
  await page.screenshot({ path: screenshotPath("flow-error-groups-queue"), fullPage: true });
  await expectAxeClean(page, "a queue's page with error groups");

  // the dead letters of a group: the queue's search, filtered to it (the URL only)
  await groups.getByTestId("error-group").first().getByRole("link", { name: "4 dead letters" }).click();
  // (the router may re-encode the query, spaces as "+": compare what it says, not its bytes)
  await expect(page).toHaveURL(
    (url) =>
      url.pathname === `/queues/${enc(queue)}/search` && url.searchParams.get("in") === "dead" && url.searchParams.get("where") === `error_group = ${JSON.stringify(timeout)}`,
  );

  // the workers of a group: the worker list filtered to it
  await page.goto(`/queues/${enc(queue)}`);
  await page.getByRole("region", { name: "Error groups" }).getByRole("link", { name: "2 workers" }).click();
  await expect(page).toHaveURL(/\/workers\?/);
  expect(new URL(page.url()).searchParams.get("error_group")).toBe(timeout);
  await expect(page.getByTestId("error-group-filter")).toContainText(timeout);
  await expect(page.getByRole("link", { name: /^w\d$/ })).toHaveText(["w1", "w2"]);
  await waitUntilLoaded(page);
  await expectAxeClean(page, "the worker list filtered to an error group");
});

test("worker list: remove offline workers in bulk, picked on the page and then all matching a filter", async ({ page, seed, backend }) => {
  const type = seed.name("crawler");
  await seed.workers(type, [
    { id: "off-1", seenAgo: 3600 },
    { id: "off-2", seenAgo: 7200, state: "ERROR", lastError: "boom" },
    { id: "off-3", seenAgo: 600 },
    { id: "on-1" },
    { id: "on-2", state: "IDLE" },
  ]);

  await page.goto(`/workers?type=${enc(type)}`);
  await expect(page.getByRole("link", { name: /^(off|on)-\d$/ })).toHaveCount(5);
  await page.getByRole("checkbox", { name: "Select the workers of this page" }).check();
  const bar = page.getByRole("region", { name: "Selected workers" });
  await expect(bar.getByTestId("bulk-count")).toHaveText("5 workers selected");
  await bar.getByRole("button", { name: "Remove 3 offline workers…" }).click();
  const dialog = page.getByRole("dialog", { name: "Remove 3 offline workers?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("2 selected workers are not offline and will be left alone.");
  await expectAxeClean(page, "the bulk removal dialog");
  await page.screenshot({ path: screenshotPath("flow-workers-bulk-remove") });
  await dialog.getByRole("button", { name: "Remove 3 workers" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Removed 3 offline workers." })).toBeVisible();
  expect((await backend.workerList(type)).map((r) => r.workerId).sort()).toEqual(["on-1", "on-2"]);
  await expect(page.getByRole("link", { name: /^(off|on)-\d$/ })).toHaveCount(2);
  const audit = (await auditEntries(backend, 1))[0]!;
  expect(audit.action).toBe("workers.bulk.remove");
  expect(audit.details).toMatchObject({ requested: 3, removed: 3, kept_online: 0, missing: 0 });

  // more than one page: "all 103 matching this filter"
  const many = seed.name("fleet");
  await seed.workers(many, [...Array.from({ length: 103 }, (_, i) => ({ id: `gone-${String(i).padStart(3, "0")}`, seenAgo: 900 })), { id: "alive", state: "RUNNING" as const }]);
  await page.goto(`/workers?type=${enc(many)}&status=offline`);
  await page.getByRole("checkbox", { name: "Select the workers of this page" }).check();
  await page.getByRole("button", { name: "Select all 103 matching this filter" }).click();
  await expect(bar.getByTestId("bulk-count")).toHaveText("103 workers selected (all matching this filter)");
  await bar.getByRole("button", { name: "Remove 103 offline workers…" }).click();
  const all = page.getByRole("dialog", { name: "Remove 103 offline workers?" });
  await all.getByRole("button", { name: "Remove 103 workers" }).click();
  await expect(all).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Removed 103 offline workers." })).toBeVisible();
  expect((await backend.workerList(many)).map((r) => r.workerId)).toEqual(["alive"]);
  await waitUntilLoaded(page);
  await expectAxeClean(page, "the worker list after a bulk removal");
});

test("worker list: a config change to selected workers, reviewed per worker, written at the versions shown; one changed meanwhile is reviewed again", async ({
  page,
  seed,
  backend,
}) => {
  const type = seed.name("tuner");
  await backend.catalogSet(
    type,
    JSON.stringify({ config: { type: "object", properties: { slots: { type: "integer", minimum: 1, maximum: 8 }, mode: { type: "string" } } }, output: null, task_payload: null }),
  );
  await seed.workers(type, [
    { id: "w-1", config: { slots: 2, mode: "fast" } },
    { id: "w-2", config: { slots: 2, mode: "fast" } },
    { id: "w-3", config: { slots: 4, mode: "fast" } },
    { id: "w-4", config: { slots: 2, mode: "fast" } },
  ]);
  const config = async (id: string) => {
    const r = await backend.workerGet(type, id);
    return { config: r?.config, gen: r?.configGen };
  };
  const gen1 = (await config("w-1")).gen!;

  await page.goto(`/workers?type=${enc(type)}`);
  await expect(page.getByRole("link", { name: /^w-\d$/ })).toHaveCount(4);
  for (const id of ["w-1", "w-2", "w-3"]) await page.getByRole("checkbox", { name: `Select ${type} worker ${id}` }).check();
  const bar = page.getByRole("region", { name: "Selected workers" });
  await expect(bar.getByTestId("bulk-count")).toHaveText("3 workers selected");
  await bar.getByRole("button", { name: "Change config…" }).click();
  const dialog = page.getByRole("dialog", { name: `Change the config of 3 workers of ${type}` });
  await dialog.getByLabel("Settings to change (a JSON merge patch applied to each worker's own config)").fill('{"slots": 4}');
  // w-3 already has 4 slots: two changes to review
  await dialog.getByRole("button", { name: "Review 2 changes…" }).click();
  const review = page.getByRole("dialog", { name: "Review: 2 workers change" });
  const diff = review.getByTestId("bulk-config-review");
  await expect(diff).toContainText("1 worker already has these settings and is left alone.");
  await expect(diff).toContainText(`w-1 (version ${gen1})`);
  await expect(diff).toContainText(`w-2 (version ${gen1})`);
  await expect(diff).not.toContainText("w-3 (version");
  await expectAxeClean(page, "the bulk config review");
  await page.screenshot({ path: screenshotPath("flow-workers-bulk-config-review") });

  // someone changes w-2 while the review is open: nothing is written, the review shows w-2 as it is now
  await backend.workerSetConfig(type, "w-2", { slots: 2, mode: "thorough" });
  const gen2 = (await config("w-2")).gen!;
  await review.getByRole("button", { name: "Apply to 2 workers" }).click();
  const alert = review.getByRole("alert");
  await expect(alert).toContainText(`The config of 1 worker changed since the review (w-2: now generation ${gen2}); nothing was written.`);
  await expect(alert).toContainText("The review below now shows their configs as they are");
  await expect(diff).toContainText(`w-2 (version ${gen2})`);
  await expect(diff).toContainText(`w-1 (version ${gen1})`);
  expect(await config("w-1")).toEqual({ config: { slots: 2, mode: "fast" }, gen: gen1 });
  await expectAxeClean(page, "the bulk config review after a conflict");

  await review.getByRole("button", { name: "Apply to 2 workers" }).click();
  await expect(review).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `Config changed on 2 workers of ${type}.` })).toBeVisible();
  expect((await config("w-1")).config).toEqual({ slots: 4, mode: "fast" });
  // w-2 keeps the change made meanwhile: the patch went onto the config the review showed
  expect((await config("w-2")).config).toEqual({ slots: 4, mode: "thorough" });
  expect(await config("w-3")).toEqual({ config: { slots: 4, mode: "fast" }, gen: gen1 });
  expect(await config("w-4")).toEqual({ config: { slots: 2, mode: "fast" }, gen: gen1 });
  const audit = (await auditEntries(backend, 20)).filter((e) => e.action === "workers.bulk.config" && e.details?.automation_type === type);
  // the refused attempt left no entry (a 4xx changes nothing), the applied one exactly one
  expect(audit.map((e) => [e.outcome, e.details?.written, e.changes_total])).toEqual([["done", 2, 2]]);
  await waitUntilLoaded(page);
  await expectAxeClean(page, "the worker list after a bulk config change");
});
