// Search inside a queue (issue 14): from the queue page to the search page, a filter by fields
// and error group, the query kept in the address, a filter that does not parse explained in
// place, results rendered as text; axe-clean.
import { Seeder, enc, expect, expectAxeClean, screenshotPath, test } from "../fixtures";

test("search: filter a queue's tasks by fields and error group, the query in the URL, a bad filter explained", async ({ page, seed, backend }) => {
  const queue = seed.name("orders");
  await backend.queueDead(queue, Seeder.task("d1", { customer: "c17" }, { attempts: 3, last_error: "Timeout after 30s" }));
  await backend.queueDead(queue, Seeder.task("d2", { customer: "c17" }, { attempts: 3, last_error: "Timeout after 12s" }));
  await backend.queueDead(queue, Seeder.task("d3", { customer: "c18" }, { attempts: 3, last_error: "Timeout after 5s" }));
  await backend.queueDead(queue, Seeder.task("d4", { customer: "c17" }, { attempts: 1, last_error: "<img src=x onerror=alert(1)> HTTP 503" }));
  await backend.queuePush(queue, Seeder.task("p1", { customer: "c17" }));

  await page.goto(`/queues/${enc(queue)}`);
  await page.getByRole("link", { name: "Search tasks" }).click();
  await expect(page).toHaveURL(new RegExp(`/queues/${enc(queue)}/search$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Search ${queue}`);

  const form = page.getByRole("search", { name: "Search tasks" });
  await form.getByLabel("Filter").fill('payload.customer = "c17" and error_group = "Timeout after <n>s"');
  await form.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/where=payload\.customer/);
  await expect(page.getByTestId("search-summary")).toContainText("2 matches in 5 tasks");
  const results = page.getByRole("list", { name: "Matching tasks" });
  await expect(results.getByTestId("search-match")).toHaveCount(2);
  await expect(results).toContainText("dead letter #1");
  await expect(results).toContainText("Timeout after 12s");
  await page.screenshot({ path: screenshotPath("flow-search-results") });
  await expectAxeClean(page, "the search page with results");

  // the address alone brings the same search back
  const url = page.url();
  await page.goto("/queues");
  await page.goto(url);
  await expect(page.getByTestId("search-summary")).toContainText("2 matches in 5 tasks");
  await expect(page.getByRole("search").getByLabel("Filter")).toHaveValue('payload.customer = "c17" and error_group = "Timeout after <n>s"');

  // text search in one list; markup in a body is text, never HTML
  await form.getByLabel("Filter").fill("");
  await form.getByLabel("Text in the body").fill("ONERROR");
  await form.getByRole("checkbox", { name: "Pending" }).uncheck();
  await form.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/in=processing%2Cscheduled%2Cdead|in=processing,scheduled,dead/);
  await expect(page.getByTestId("search-summary")).toContainText("1 match in 4 tasks");
  await expect(results).toContainText("<img src=x onerror=alert(1)> HTTP 503");
  expect(await page.locator("img").count()).toBe(0);

  // a filter that does not parse: where and what was expected, nothing else
  await form.getByLabel("Text in the body").fill("");
  await form.getByLabel("Filter").fill("attempts >=");
  await form.getByRole("button", { name: "Search" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "The filter is not valid" });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText("at position 12: expected a value after >=");
  await expectAxeClean(page, "the search page with a filter error");
});

test("search → preview → redrive: every matching dead letter requeued once, counted, audited", async ({ page, seed, backend }) => {
  const queue = seed.name("redrive");
  for (let i = 0; i < 6; i++) {
    await backend.queueDead(queue, Seeder.task(`t${i}`, { customer: i % 2 === 0 ? "c17" : "c18" }, { attempts: 3, last_error: `Timeout after ${10 + i}s` }));
  }
  await backend.queueDead(queue, Seeder.task("other", { customer: "c17" }, { attempts: 3, last_error: "HTTP 503" }));
  const where = 'payload.customer = "c17" and error_group = "Timeout after <n>s"';
  await page.goto(`/queues/${enc(queue)}/search?where=${enc(where)}&in=dead`);
  await expect(page.getByTestId("search-summary")).toContainText("3 matches in 7 tasks");

  const act = page.getByRole("region", { name: "Act on the matches" });
  await act.getByLabel("Action").selectOption("requeue-dead");
  await act.getByRole("button", { name: "Preview" }).click();
  const preview = act.getByTestId("bulk-preview");
  await expect(preview).toContainText("3 dead letters match this search");
  await expect(preview.getByRole("list", { name: "First matches" }).getByRole("listitem")).toHaveCount(3);
  await act.getByRole("button", { name: "Requeue 3 dead letters…" }).click();
  const dialog = page.getByRole("dialog", { name: "Requeue 3 dead letters?" });
  await expect(dialog).toBeVisible();
  await expectAxeClean(page, "the redrive confirmation");
  await dialog.getByRole("button", { name: "Requeue 3 dead letters" }).click();
  await expect(act.getByTestId("bulk-job")).toContainText("Done: requeued 3 dead letters of 3 previewed");
  await page.screenshot({ path: screenshotPath("flow-search-redrive-done") });
  await expectAxeClean(page, "the search page after a redrive");

  expect(await backend.dlqLength(queue)).toBe(4);
  const pending = (await backend.queuePeek(queue, 10)).map((b) => JSON.parse(b.toString("utf8")) as { id: string; attempts: number });
  expect(pending.map((t) => [t.id, t.attempts])).toEqual([
    ["t0", 0],
    ["t2", 0],
    ["t4", 0],
  ]);
  const audit = async () =>
    (await backend.auditRange(0, 200)).items.map((x) => JSON.parse(x.toString("utf8")) as { action: string; target: string; details?: Record<string, unknown> });
  expect((await audit()).find((e) => e.action === "queue.bulk" && e.target === `queue:${queue}`)?.details).toMatchObject({ bulk_action: "requeue-dead", where, expected: 3 });
  await expect.poll(async () => (await audit()).find((e) => e.action === "queue.bulk.done" && e.target === `queue:${queue}`)?.details).toMatchObject({ done: 3, missing: 0 });
});
