// Keys of another Redis type than Fleet writes there (issue 18.6): the pages of such a queue,
// pool and stream show the corrupt marker and what they can still read; the lists show the
// marker beside the name, with their healthy neighbours as usual. Never an error page. The
// wrong-typed keys are planted with the raw client of the `backend` fixture.
import type { RedisBackend } from "@fleet/backend/redis";
import type { Page } from "@playwright/test";

import { enc, expect, screenshotPath, Seeder, test } from "../fixtures";

/** The page shows no error box (ErrorState) and no Next error page. */
async function expectNoError(page: Page): Promise<void> {
  await expect(page.getByTestId("error-state")).toHaveCount(0);
  await expect(page.getByText("Application error")).toHaveCount(0);
}

/** The fixture's raw client, connected (it connects lazily). */
async function rawClient(backend: RedisBackend) {
  await backend.health();
  return backend.client;
}

test("a queue whose normal list is a string: its page marks it corrupt and shows the other parts; the list marks it", async ({ page, seed, backend }) => {
  const raw = await rawClient(backend as RedisBackend);
  const bad = seed.name("jobs");
  const fine = seed.name("fine");
  await backend.queuePush(bad, Seeder.task("high-1", { n: 1 }), { priority: "high" });
  await backend.queueDead(bad, Seeder.task("dead-1", { n: 2 }));
  await raw.set(`fleet:queue:${bad}`, "not a list");
  await backend.queuePush(fine, Seeder.task("fine-1", {}));

  await page.goto(`/queues/${enc(bad)}`);
  await expect(page.getByRole("heading", { level: 1, name: bad })).toBeVisible();
  const note = page.getByTestId("wrong-type-note");
  await expect(note).toContainText("corrupt: normal");
  await expect(note).toContainText("another type than Fleet writes there");
  // what can be read is shown: the high-priority task and the dead letter
  await expect(page.getByText("high-1").first()).toBeVisible();
  await expect(page.locator("#dead")).toContainText("dead-1");
  await expectNoError(page);
  await page.screenshot({ path: screenshotPath("flow-wrong-type-queue"), fullPage: true });

  await page.goto("/queues");
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: bad, exact: true }) });
  await expect(row).toContainText("corrupt: normal");
  const fineRow = page.getByRole("row").filter({ has: page.getByRole("link", { name: fine, exact: true }) });
  await expect(fineRow).toBeVisible();
  await expect(fineRow).not.toContainText("corrupt");
  await expectNoError(page);
});

test("a pool whose hash is a list: its page and the list mark it corrupt", async ({ page, seed, backend }) => {
  const raw = await rawClient(backend as RedisBackend);
  const bad = seed.name("proxies");
  const fine = seed.name("fine-pool");
  await raw.rpush(`fleet:pool:${bad}`, "not a hash");
  await backend.poolPut(fine, "a", "payload", { region: "eu" });

  await page.goto(`/pools/${enc(bad)}`);
  await expect(page.getByRole("heading", { level: 1, name: bad })).toBeVisible();
  await expect(page.getByTestId("wrong-type-note")).toContainText("corrupt: items");
  await expectNoError(page);
  await page.screenshot({ path: screenshotPath("flow-wrong-type-pool"), fullPage: true });

  await page.goto("/pools");
  await expect(page.getByRole("row").filter({ has: page.getByRole("link", { name: bad, exact: true }) })).toContainText("corrupt: items");
  await expect(page.getByRole("row").filter({ has: page.getByRole("link", { name: fine, exact: true }) })).not.toContainText("corrupt");
  await expectNoError(page);
});

test("a stream whose zset is a string: its page and the list mark it corrupt", async ({ page, seed, backend }) => {
  const raw = await rawClient(backend as RedisBackend);
  const bad = seed.name("emits");
  const fine = seed.name("fine-stream");
  await raw.set(`stream:${bad}`, "not a zset");
  await backend.streamPush(fine, JSON.stringify({ ok: true }), { score: Date.now() / 1000, maxLen: 10, ttlSeconds: 3600 });

  await page.goto(`/streams/${enc(bad)}`);
  await expect(page.getByRole("heading", { level: 1, name: bad })).toBeVisible();
  await expect(page.getByTestId("wrong-type-note")).toContainText("corrupt: entries");
  await expectNoError(page);
  await page.screenshot({ path: screenshotPath("flow-wrong-type-stream"), fullPage: true });

  await page.goto("/streams");
  await expect(page.getByRole("row").filter({ has: page.getByRole("link", { name: bad, exact: true }) })).toContainText("corrupt: entries");
  await expect(page.getByRole("row").filter({ has: page.getByRole("link", { name: fine, exact: true }) })).not.toContainText("corrupt");
  await expectNoError(page);
});
