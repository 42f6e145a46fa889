// Issue 19, point 7: dead letters for the engineer on call. Each row has its own Requeue and
// Delete; a row says how the task died (error, attempts, and when and on which worker when the
// body says so); the "Delete all N" dialog follows the live count; one page-size control.
import { Seeder, atEveryLook, enc, expect, expectAxeClean, screenshotPath, test, waitForLive } from "../fixtures";

// Four looks (sizes × schemes) each with axe and a full-page picture: minutes on a loaded machine.
test.describe.configure({ timeout: 240_000 });

const id = (n: number) => `t${n}`.padEnd(32, "0");

test("per-row requeue and delete, the failure facts the body holds, and a live count in Delete all", async ({ page, seed, backend }) => {
  const queue = seed.name("scraper");
  const now = Date.now() / 1000;
  await backend.queueDead(queue, Seeder.task(id(1), { url: "https://shop.example/1" }, { attempts: 3, last_error: "HTTP 503", failed_at: now - 120, last_worker: "scrape-eu-01" }));
  await backend.queueDead(queue, Seeder.task(id(2), { url: "https://shop.example/2" }, { attempts: 5, last_error: "TimeoutError: navigation timeout of 8000 ms exceeded" }));
  await backend.queueDead(queue, Seeder.task(id(3), { url: "https://shop.example/3" }, { attempts: 1, last_error: "parse error" }));
  await backend.queueDead(queue, Seeder.task(id(4), { url: "https://shop.example/4" }));

  await page.goto(`/queues/${enc(queue)}`);
  await waitForLive(page);
  const dead = page.getByRole("region", { name: "Dead letters", exact: true });
  await expect(dead.getByTestId("dead-failure")).toHaveCount(4);

  // What the bodies say, and only that.
  const row1 = dead.getByTestId("dead-failure").filter({ hasText: "HTTP 503" });
  await expect(row1).toContainText("after 3 attempts");
  // seeded as failed 2 minutes ago; a slow page load may make it more (the text keeps counting)
  await expect(row1).toContainText(/failed [2-4] min ago/);
  await expect(row1).toContainText("last run on scrape-eu-01");
  const row2 = dead.getByTestId("dead-failure").filter({ hasText: "TimeoutError" });
  await expect(row2).toContainText("after 5 attempts");
  await expect(row2).not.toContainText("failed");
  await expect(row2).not.toContainText("last run on");
  await expect(dead.getByTestId("dead-failure").filter({ hasText: "No error recorded" })).toHaveCount(1);

  // One page-size control on the page: the header's.
  await expect(page.getByRole("combobox")).toHaveCount(1);
  await expect(page.getByRole("combobox", { name: "Items per list" })).toBeVisible();

  await atEveryLook(page, "dead letters", "ux-dead-letters", async () => {
    await expect(dead.getByRole("button", { name: `Requeue dead letter ${id(2)}` })).toBeVisible();
  });

  // Requeue one row.
  await dead.getByRole("button", { name: `Requeue dead letter ${id(2)}` }).click();
  const requeue = page.getByRole("dialog", { name: `Requeue dead letter ${id(2)}?` });
  await requeue.getByRole("button", { name: "Requeue 1 dead letter" }).click();
  await expect(requeue).toBeHidden();
  await expect(dead.getByTestId("dead-failure")).toHaveCount(3);
  expect(await backend.dlqLength(queue)).toBe(3);
  expect((await backend.queuePeek(queue, 10)).map((b) => (JSON.parse(b.toString("utf8")) as { id: string }).id)).toEqual([id(2)]);

  // Delete one row.
  await dead.getByRole("button", { name: `Delete dead letter ${id(3)}` }).click();
  const del = page.getByRole("dialog", { name: `Delete dead letter ${id(3)}?` });
  await expectAxeClean(page, "the one-row delete dialog");
  await del.getByRole("button", { name: "Delete 1 dead letter" }).click();
  await expect(del).toBeHidden();
  await expect(dead.getByTestId("dead-failure")).toHaveCount(2);
  expect(await backend.dlqLength(queue)).toBe(2);

  // Delete all: the dialog's count follows the list while it is open.
  await dead.getByRole("button", { name: "Delete all 2" }).click();
  await expect(page.getByRole("dialog", { name: "Delete all 2 dead letters?" })).toBeVisible();
  await backend.queueDead(queue, Seeder.task(id(5), {}, { attempts: 3, last_error: "late" }));
  await backend.queueDead(queue, Seeder.task(id(6), {}, { attempts: 3, last_error: "later" }));
  const all = page.getByRole("dialog", { name: "Delete all 4 dead letters?" });
  await expect(all).toBeVisible();
  await expect(all.getByRole("button", { name: "Delete 4 dead letters" })).toBeVisible();
  await page.screenshot({ path: screenshotPath("ux-dead-letters-delete-all-live") });
  await all.getByRole("button", { name: "Delete 4 dead letters" }).click();
  await expect(all).toBeHidden();
  await expect(dead).toContainText("No dead letters.");
  expect(await backend.dlqLength(queue)).toBe(0);
});

test("the dead-letter list pages by the page's one Items per list control", async ({ page, seed, backend }) => {
  const queue = seed.name("jobs");
  for (let n = 1; n <= 55; n++) await backend.queueDead(queue, Seeder.task(id(n), { n }, { attempts: 2, last_error: `e${n}` }));
  await page.goto(`/queues/${enc(queue)}`);
  const dead = page.getByRole("region", { name: "Dead letters", exact: true });
  await expect(dead).toContainText("Showing 1–55 of 55");
  await page.getByRole("combobox", { name: "Items per list" }).selectOption("50");
  await expect(dead).toContainText("Showing 1–50 of 55");
  await expect(dead.getByTestId("dead-failure")).toHaveCount(50);
  await dead.getByRole("link", { name: "Next →" }).click();
  await expect(dead).toContainText("Showing 51–55 of 55");
  await expect(dead.getByTestId("dead-failure")).toHaveCount(5);
  await expect(page.getByRole("combobox")).toHaveCount(1);
  // either end in one click: « First and Last », each disabled where it would not move
  await expect(dead.getByRole("link", { name: "Last page of dead letters" })).toBeDisabled();
  await dead.getByRole("link", { name: "First page of dead letters" }).click();
  await expect(dead).toContainText("Showing 1–50 of 55");
  await expect(dead.getByRole("link", { name: "First page of dead letters" })).toBeDisabled();
  await dead.getByRole("link", { name: "Last page of dead letters" }).click();
  await expect(dead).toContainText("Showing 51–55 of 55");
  await expect(page).toHaveURL(/dead_offset=50/);
});
