// Issue 19.8: a pool page never reads the whole pool. It shows the first page of items and
// "More items" reads the next with the cursor the server gave: a small pool by its sorted ids,
// a pool of over 5,000 items by HSCAN, a page at a time, each item once.
import { RedisBackend } from "@fleet/backend/redis";

import { enc, expect, test } from "../fixtures";

// a page of 200 rows renders slowly on a loaded two-core machine
test.describe.configure({ timeout: 180_000 });

const id = (i: number) => `item-${String(i).padStart(5, "0")}`;

/** `n` items in pipelined batches, as another program writes them. */
async function plantPool(backend: unknown, name: string, n: number): Promise<void> {
  if (!(backend instanceof RedisBackend)) throw new Error("the e2e backend is Redis");
  await backend.health();
  for (let i = 0; i < n; i += 1000) {
    const p = backend.client.pipeline();
    for (let j = i; j < Math.min(n, i + 1000); j++) p.hset(`fleet:pool:${name}`, id(j), JSON.stringify({ p: Buffer.from(`p${j}`).toString("base64"), t: { n: j }, x: null }));
    await p.exec();
  }
}

test("a pool of 450 items: the first 200, then More items loads the rest in order", async ({ page, seed, backend }) => {
  const name = seed.name("paged");
  await plantPool(backend, name, 450);
  await page.goto(`/pools/${enc(name)}`);
  const rows = page.getByRole("table", { name: `Items of pool ${name}` }).getByRole("row");
  await expect(rows.filter({ hasText: id(0) })).toHaveCount(1, { timeout: 60_000 });
  await expect(rows).toHaveCount(201); // the header row and 200 items
  await expect(page.getByText("200 of 450 loaded").first()).toBeVisible();
  await page.getByRole("button", { name: "More items" }).click();
  await expect(rows).toHaveCount(401);
  await page.getByRole("button", { name: "More items" }).click();
  await expect(rows).toHaveCount(451, { timeout: 60_000 });
  await expect(rows.last()).toContainText(id(449));
  await expect(page.getByRole("button", { name: "More items" })).toHaveCount(0);
  await expect(page.getByTestId("pool-loaded")).toHaveText("450 items");
});

test("a pool of 5,300 items is read a page at a time by cursor: More items adds pages, each item once", async ({ page, seed, backend }) => {
  const name = seed.name("big");
  const n = 5300;
  await plantPool(backend, name, n);
  await page.goto(`/pools/${enc(name)}`);
  const table = page.getByRole("table", { name: `Items of pool ${name}` });
  const rows = table.getByRole("row");
  const more = page.getByRole("button", { name: "More items" });
  await expect(more).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText(`of ${n.toLocaleString("en-US")} loaded`).first()).toBeVisible();
  let shown = (await rows.count()) - 1;
  expect(shown).toBeGreaterThan(0);
  expect(shown).toBeLessThan(1000);
  for (let click = 0; click < 3; click++) {
    const before = shown;
    await more.click();
    await expect.poll(async () => (await rows.count()) - 1, { timeout: 60_000 }).toBeGreaterThan(before);
    shown = (await rows.count()) - 1;
  }
  // HSCAN pages: every item shown once, none twice
  const ids = await table.locator("tbody tr code").allTextContents();
  expect(ids.length).toBe(shown);
  expect(new Set(ids).size).toBe(shown);
  await expect(page.getByTestId("pool-loaded")).toContainText(`${shown.toLocaleString("en-US")} of ${n.toLocaleString("en-US")} loaded`);
});
