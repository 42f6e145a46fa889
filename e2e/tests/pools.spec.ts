// A pool item's claim lease: the countdown ticks and releasing frees the item.
import { enc, expect, screenshotPath, test } from "../fixtures";

test("a pool item's claim countdown is shown and ticks; release frees it", async ({ page, seed, backend }) => {
  const pool = seed.name("proxies");
  await backend.poolPut(pool, "proxy-claimed", "http://10.0.0.1:8080", { region: "eu", kind: "claimed" });
  await backend.poolPut(pool, "proxy-free", "http://10.0.0.2:8080", { region: "us", kind: "free" }, 3600);
  const claimed = await backend.poolClaimAny(pool, { kind: "claimed" }, 300);
  expect(claimed?.id).toBe("proxy-claimed");

  await page.goto(`/pools/${enc(pool)}`);
  const items = page.getByRole("table", { name: `Items of pool ${pool}` });
  const claimedRow = items.getByRole("row").filter({ hasText: "proxy-claimed" });
  const freeRow = items.getByRole("row").filter({ hasText: "proxy-free" });
  const countdown = claimedRow.getByTestId("claim-countdown");
  await expect(countdown).toContainText("in use");
  // a 5-minute claim, however long the page took to load
  await expect(countdown).toContainText(/([0-4] min( \d+ s)?|\d+ s) left/);
  await expect(freeRow.getByTestId("claim-countdown")).toHaveCount(0);
  await expect(freeRow).toContainText("free");
  await expect(freeRow.getByRole("button", { name: "Release proxy-free" })).toHaveCount(0);

  // It ticks: the text a second later is not the text now.
  const before = await countdown.textContent();
  await expect(countdown).not.toHaveText(before ?? "");
  await page.screenshot({ path: screenshotPath("flow-pool-claim") });

  await claimedRow.getByRole("button", { name: "Release proxy-claimed" }).click();
  const dialog = page.getByRole("dialog", { name: "Release the claim on proxy-claimed?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Release" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Released the claim on proxy-claimed." })).toBeVisible();
  await expect(claimedRow.getByTestId("claim-countdown")).toHaveCount(0);
  await expect(claimedRow).toContainText("free");

  const after = (await backend.poolItems(pool)).find((i) => i.id === "proxy-claimed");
  expect(after?.inUseUntil).toBeNull();
  // Free again: another worker can claim it.
  expect((await backend.poolClaimAny(pool, { kind: "claimed" }, 5))?.id).toBe("proxy-claimed");
});
