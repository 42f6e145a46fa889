// Search inside a queue (issue 14): from the queue page to the search page, a filter by fields
// and error group, the query kept in the address, a filter that does not parse explained in
// place, results rendered as text; axe-clean.
import { auditEntries, enc, expect, expectAxeClean, screenshotPath, Seeder, test, waitForLive } from "../fixtures";

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
  // one audit entry for the whole job, completed with its counts, read as one sentence
  const audit = async () => (await auditEntries(backend, 200)).filter((e) => e.action.startsWith("queue.bulk") && e.target === `queue:${queue}`);
  await expect.poll(async () => (await audit()).map((e) => [e.action, e.outcome, e.details?.state])).toEqual([["queue.bulk", "done", "done"]]);
  expect((await audit())[0]!.details).toMatchObject({ bulk_action: "requeue-dead", where, expected: 3, done: 3, missing: 0 });
  await page.goto("/audit");
  await expect(page.getByText(`requeued 3 dead letters of ${queue} matching filter ${where} (3 at the preview), at most 200 a second: finished`)).toBeVisible();
  await expectAxeClean(page, "the audit page with a bulk job");
});

test("a redrive's progress follows the event stream live, without polling the job; Stop cancels it", async ({ page, seed, backend }) => {
  // a job that runs for a minute at 1 task a second (it is stopped long before); the suite's
  // time limit, sized for a loaded machine, holds the page's steps
  const queue = seed.name("slowdrive");
  for (let i = 0; i < 60; i += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, j) => backend.queueDead(queue, Seeder.task(`t${i + j}`, { customer: "c17" }, { attempts: 3, last_error: "Timeout" }))));
  }
  const jobReads: string[] = [];
  page.on("request", (r) => {
    if (/\/api\/v1\/queues\/[^/]+\/bulk\/[^/]+$/.test(new URL(r.url()).pathname) && r.method() === "GET") jobReads.push(r.url());
  });
  await page.goto(`/queues/${enc(queue)}/search?q=c17&in=dead`);
  await expect(page.getByTestId("search-summary")).toContainText("60 matches in 60 tasks");
  await waitForLive(page);
  const act = page.getByRole("region", { name: "Act on the matches" });
  await act.getByLabel("At most, tasks per second").fill("1");
  await act.getByRole("button", { name: "Preview" }).click();
  await act.getByRole("button", { name: "Requeue 60 dead letters…" }).click();
  await page.getByRole("dialog", { name: "Requeue 60 dead letters?" }).getByRole("button", { name: "Requeue 60 dead letters" }).click();
  const job = act.getByTestId("bulk-job");
  // 1 a second: the count moves on the page, one frame of the event stream after another
  const shown = async () => Number(/Requeuing… requeued (\d+) dead letters? of 60 previewed/.exec((await job.textContent()) ?? "")?.[1] ?? -1);
  await expect.poll(shown).toBeGreaterThan(0);
  const first = await shown();
  await expect.poll(shown).toBeGreaterThan(first);
  await job.getByRole("button", { name: "Stop" }).click();
  await expect(job).toContainText(/Cancelled: requeued \d+ dead letters? of 60 previewed/);
  expect(jobReads, "the page polled the job while the stream was live").toEqual([]);
  await expectAxeClean(page, "a bulk job stopped");
  const requeued = Number(/requeued (\d+)/.exec((await job.textContent()) ?? "")![1]);
  // what it did stays done, counted exactly
  await expect.poll(async () => (await backend.queuePeek(queue, 100)).length).toBe(requeued);
  expect(await backend.dlqLength(queue)).toBe(60 - requeued);
});
