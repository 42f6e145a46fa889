// Dead letters as an operator handles them: pick two to retry, then clear the rest,
// each step confirmed by a dialog that says how many.
import { Seeder, enc, expect, screenshotPath, test } from "../fixtures";

test("dead letters: requeue two of five, then delete the rest, with the confirmations", async ({ page, seed, backend }) => {
  const queue = seed.name("scraper");
  const ids = ["t1", "t2", "t3", "t4", "t5"].map((t) => `${t}${"0".repeat(30)}`);
  for (const [i, id] of ids.entries()) {
    await backend.queueDead(queue, Seeder.task(id, { url: `https://shop.example/${i + 1}` }, { attempts: 3, last_error: `HTTP 50${i}` }));
  }

  await page.goto(`/queues/${enc(queue)}`);
  const dead = page.getByRole("region", { name: "Dead letters", exact: true });
  await expect(dead.getByRole("checkbox", { name: /^Select dead letter / })).toHaveCount(5);
  await expect(dead).toContainText("HTTP 502");
  // The count shows beside the heading, outside its accessible name ("Dead letters", not "Dead letters5").
  await expect(dead.getByRole("heading", { name: "Dead letters", exact: true })).toBeVisible();
  await expect(dead.getByTestId("dead-count")).toHaveText("5");

  await dead.getByRole("checkbox", { name: `Select dead letter ${ids[1]}` }).check();
  await dead.getByRole("checkbox", { name: `Select dead letter ${ids[3]}` }).check();
  await dead.getByRole("button", { name: "Requeue selected (2)" }).click();
  const requeue = page.getByRole("dialog", { name: "Requeue 2 dead letters?" });
  await expect(requeue).toBeVisible();
  await page.screenshot({ path: screenshotPath("flow-dead-letters-confirm") });
  await requeue.getByRole("button", { name: "Requeue 2 dead letters" }).click();
  await expect(requeue).toBeHidden();
  await expect(dead.getByRole("status")).toContainText("Requeued 2 dead letters");
  await expect(dead.getByRole("checkbox", { name: /^Select dead letter / })).toHaveCount(3);

  const depths = page.locator("dl[aria-label='Depths']");
  const normal = depths
    .locator("div")
    .filter({ has: page.getByRole("term").filter({ hasText: /^Normal$/ }) })
    .getByRole("definition");
  await expect(normal).toHaveText("2");
  expect(await backend.dlqLength(queue)).toBe(3);
  const requeued = (await backend.queuePeek(queue, 10)).map((b) => (JSON.parse(b.toString("utf8")) as { id: string }).id).sort();
  expect(requeued).toEqual([ids[1], ids[3]]);

  // The rest: every remaining one selected at once, then deleted.
  await dead.getByRole("checkbox", { name: "Select every dead letter on this page" }).check();
  await dead.getByRole("button", { name: "Delete selected (3)" }).click();
  const del = page.getByRole("dialog", { name: "Delete 3 dead letters?" });
  await expect(del).toBeVisible();
  await del.getByRole("button", { name: "Delete 3 dead letters" }).click();
  await expect(del).toBeHidden();
  await expect(dead.getByRole("status")).toContainText("Deleted 3 dead letters");
  await expect(dead).toContainText("No dead letters.");
  expect(await backend.dlqLength(queue)).toBe(0);
  // The two requeued tasks are still pending.
  expect(await backend.queueSize(queue)).toBe(2);
});
