// A kv namespace larger than one page: the keys panel shows the first page, says how
// many there are, and "More keys" reads the next one with the cursor the server gave.
import { expect, test } from "../fixtures";
import { RedisBackend } from "@fleet/backend/redis";

test("a namespace of 620 keys: the first 500, then More keys loads the rest", async ({ page, seed, backend }) => {
  const ns = seed.name("many");
  // seeded in one pipeline: 620 keys of another program, as far as the console knows
  if (!(backend instanceof RedisBackend)) throw new Error("the e2e backend is Redis");
  await backend.health();
  const p = backend.client.pipeline();
  for (let i = 0; i < 620; i++) p.set(`fleet:kv:${ns}:key-${String(i).padStart(4, "0")}`, `"v${i}"`);
  await p.exec();

  await page.goto(`/state?ns=${encodeURIComponent(ns)}#kv`);
  const keys = page.getByRole("list", { name: "Keys" });
  await expect(keys.getByRole("link", { name: "key-0000" })).toBeVisible();
  await expect(keys.getByRole("listitem")).toHaveCount(500);
  await expect(page.getByText("500 of about 620 loaded")).toBeVisible();
  await page.getByRole("button", { name: "More keys" }).click();
  await expect(keys.getByRole("listitem")).toHaveCount(620);
  await expect(keys.getByRole("link", { name: "key-0619" })).toBeVisible();
  await expect(page.getByRole("button", { name: "More keys" })).toHaveCount(0);
});
