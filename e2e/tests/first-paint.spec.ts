// Issue 11 point 7: the queue page, the queue list and the overview paint with their data in
// the HTML (the server asks the pages' first queries of their route handlers), so what they
// show needs no script to have run. Checked in a browser with JavaScript switched off: every
// number and row below comes from the server's HTML alone, and the dead-letter paging links
// still page (each a link to the page's own URL, which the server renders with its rows).
import { Seeder, enc, expect, test } from "../fixtures";

const id = (n: number) => `d${String(n).padStart(3, "0")}`.padEnd(32, "0");

test("the queue page, the queue list and the overview carry their data without any script", async ({ browser, baseURL, seed, backend }) => {
  const queue = seed.name("painted");
  for (let n = 0; n < 3; n++) await backend.queuePush(queue, Seeder.task(`p${n}`.padEnd(32, "0"), { n }));
  for (let n = 0; n < 130; n++) await backend.queueDead(queue, Seeder.task(id(n), { n }, { attempts: 2, last_error: `HTTP 5${String(n % 100).padStart(2, "0")}` }));

  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.goto(`/queues/${enc(queue)}`);
    await expect(page.getByRole("heading", { level: 1, name: queue })).toBeVisible();
    // the depths (High, Normal, ...): Normal holds the three pending tasks
    await expect(page.locator('dl[aria-label="Depths"] dd').nth(1)).toHaveText("3");
    await expect(page.getByRole("region", { name: "Pending", exact: true })).toContainText("p0");
    const dead = page.getByRole("region", { name: "Dead letters", exact: true });
    await expect(dead).toContainText("Showing 1–100 of 130");
    await expect(dead).toContainText(id(0));
    await expect(dead).toContainText("HTTP 500");
    await expect(dead).not.toContainText(id(100));

    // "Last »" is a link: without scripts it loads the last page, rendered with its rows
    await dead.getByRole("link", { name: "Last page of dead letters" }).click();
    await expect(page).toHaveURL(/[?&]dead_offset=100(&|#|$)/);
    const last = page.getByRole("region", { name: "Dead letters", exact: true });
    await expect(last).toContainText("Showing 101–130 of 130");
    await expect(last).toContainText(id(129));
    await expect(last).not.toContainText(id(0));
    await expect(last.getByRole("link", { name: "Last page of dead letters" })).toBeDisabled();
    await last.getByRole("link", { name: "First page of dead letters" }).click();
    await expect(page.getByRole("region", { name: "Dead letters", exact: true })).toContainText("Showing 1–100 of 130");

    await page.goto("/queues");
    await expect(page.getByRole("link", { name: queue, exact: true })).toBeVisible();

    await page.goto("/");
    const queues = page.getByRole("region", { name: "Queues", exact: true });
    const row = queues.getByRole("listitem").filter({ has: page.getByRole("link", { name: queue, exact: true }) });
    await expect(row).toContainText("3 pending");
    await expect(row).toContainText("130 dead letters");
  } finally {
    await context.close();
  }
});

test("a queue the page cannot read is asked for by the browser, as before: no prefetched error", async ({ page }) => {
  // a name no queue has: the server's prefetch gets a 404 and leaves it out; the page asks itself and says so
  await page.goto(`/queues/${enc("no-such-queue-anywhere")}`);
  await expect(page.getByText("There is no queue named “no-such-queue-anywhere”")).toBeVisible();
});
