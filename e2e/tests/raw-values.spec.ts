// Large values: the pages show a 4 KiB preview, "Show all" fetches the whole value (its
// end, which the preview lacks, appears), and "Download" saves every byte as a file.
import { readFile, stat } from "node:fs/promises";

import type { RedisBackend } from "@fleet/backend/redis";

import { enc, expect, expectAxeClean, screenshotPath, test } from "../fixtures";

/** A JSON document of about `size` bytes whose last member is `end`. */
function bigDoc(size: number, end: string, extra: Record<string, unknown> = {}): string {
  const rows = [];
  let n = 0;
  for (let i = 0; JSON.stringify(rows).length < size - 200; i++) {
    rows.push({ i, sku: `SKU-${String(i).padStart(6, "0")}`, title: `Product number ${i} of a long catalogue page`, price: (i * 37) % 1000 });
    n = i;
  }
  return JSON.stringify({ ...extra, count: n + 1, rows, end });
}

test("a 100 KB kv value: preview, Show all shows its end, then it can be edited", async ({ page, seed, backend }) => {
  const ns = seed.name("cfg");
  const value = bigDoc(100_000, "END-OF-KV-VALUE");
  await backend.kvSet(ns, "catalogue", value, null);

  await page.goto(`/state?ns=${enc(ns)}&key=catalogue#kv`);
  const panel = page.getByRole("region", { name: "Value of catalogue" });
  await expect(panel).toContainText(/preview: first 4\.0 KiB of \d+ KiB/);
  await expect(panel).toContainText("SKU-000000");
  await expect(panel).not.toContainText("END-OF-KV-VALUE");
  await expect(panel.getByRole("button", { name: "Edit" })).toBeDisabled();
  await expectAxeClean(page, "a truncated kv value");

  await panel.getByRole("button", { name: "Show all" }).click();
  await expect(panel).toContainText("END-OF-KV-VALUE");
  await expect(panel).toContainText("whole value");
  await expect(panel).not.toContainText("preview: first");
  // whole now: the editor opens with every byte of it
  await expect(panel.getByRole("button", { name: "Edit" })).toBeEnabled();
  await page.screenshot({ path: screenshotPath("flow-raw-values-kv-full") });
  await expectAxeClean(page, "a kv value shown whole");
  await panel.getByRole("button", { name: "Edit" }).click();
  await expect(panel.getByLabel("Value (JSON)")).toHaveValue(/END-OF-KV-VALUE/);
});

test("a 100 KB dead letter: Show all fetches it by index and shows its end", async ({ page, seed, backend }) => {
  const queue = seed.name("scraper");
  await backend.queueDead(queue, JSON.stringify({ id: "small0000000000000000000000000000", payload: { url: "https://shop.example/1" } }));
  const body = JSON.stringify({ id: "big00000000000000000000000000000", attempts: 3, last_error: "HTTP 500", payload: JSON.parse(bigDoc(100_000, "END-OF-DEAD-LETTER")) });
  await backend.queueDead(queue, body);

  await page.goto(`/queues/${enc(queue)}`);
  const dead = page.getByRole("region", { name: "Dead letters", exact: true });
  // the preview is cut JSON, yet its first members still fill the row
  await expect(dead).toContainText("HTTP 500");
  await expect(dead).toContainText("after 3 attempts");
  await dead.getByRole("button", { name: "Show body of dead letter big00000000000000000000000000000" }).click();
  await expect(dead).toContainText(/preview: first 4\.0 KiB of 9\d KiB/);
  await expect(dead).not.toContainText("END-OF-DEAD-LETTER");
  await dead.getByRole("button", { name: "Show all" }).click();
  await expect(dead).toContainText("END-OF-DEAD-LETTER");
  await expect(dead).toContainText("whole value");
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(dead).toContainText("END-OF-DEAD-LETTER");
  await expectAxeClean(page, "a dead letter shown whole, phone size");
});

test("a dead letter that moved is not shown in place of another", async ({ page, seed, backend }) => {
  const queue = seed.name("mailer");
  const first = JSON.stringify({ id: "first000000000000000000000000000", payload: JSON.parse(bigDoc(20_000, "END-OF-FIRST")) });
  const second = JSON.stringify({ id: "second00000000000000000000000000", payload: JSON.parse(bigDoc(20_000, "END-OF-SECOND")) });
  await backend.queueDead(queue, first);
  await backend.queueDead(queue, second);

  // The moment this test is about: the row is still on screen, but the letter behind it was
  // replaced. The live stream notices a changed list and the page reads it again, which drops
  // the row; so from the moment of the change on, the page's LIST reads answer what the list
  // was before it. That holds for reads already on their way when the change is made (a slow
  // server answers them after it: the route handler decides when the answer comes back, not
  // when the request left), and for the server-rendered first paint (read before the change).
  // "Show all" reads the one letter at its index (`limit=1&preview_bytes=`): that read goes
  // to the server untouched, and finds another letter there.
  const listPath = `/api/v1/queues/${enc(queue)}/dead`;
  let frozen: Buffer | null = null;
  const served = { single: 0 };
  await page.route(
    (url) => url.pathname === listPath,
    async (route) => {
      const url = new URL(route.request().url());
      if (url.searchParams.has("preview_bytes")) {
        served.single++;
        return route.continue();
      }
      const response = await route.fetch();
      if (frozen === null) return route.fulfill({ response });
      return route.fulfill({ response, body: frozen });
    },
  );
  await page.goto(`/queues/${enc(queue)}`);
  const dead = page.getByRole("region", { name: "Dead letters", exact: true });
  await dead.getByRole("button", { name: "Show body of dead letter second00000000000000000000000000" }).click();
  await expect(dead).toContainText(/preview: first 4\.0 KiB of \d+ KiB/);
  const before = await page.request.get(`${listPath}?limit=100&offset=0`);
  expect(before.status()).toBe(200);
  frozen = await before.body();
  // another letter takes its place (same count)
  const other = JSON.stringify({ id: "other000000000000000000000000000", payload: JSON.parse(bigDoc(20_000, "END-OF-OTHER")) });
  await (backend as RedisBackend).client.lset(`fleet:queue:${queue}:dead`, 1, other);
  await dead.getByRole("button", { name: "Show all" }).click();
  await expect(dead.getByRole("alert")).toContainText("This dead letter has moved");
  await expect(dead).not.toContainText("END-OF-OTHER");
  // the alert came from the real read of index 1, not from a frozen list
  expect(served.single).toBeGreaterThanOrEqual(1);
});

test("a 50 KB pool payload: Show all reads the one item and shows its end", async ({ page, seed, backend }) => {
  const pool = seed.name("proxies");
  await backend.poolPut(pool, "small", "tiny", { region: "us" });
  await backend.poolPut(pool, "big-item", bigDoc(50_000, "END-OF-POOL-PAYLOAD"), { region: "eu" });

  await page.goto(`/pools/${enc(pool)}`);
  await page.getByRole("button", { name: "Show payload of item big-item" }).click();
  const view = page.getByRole("group", { name: "payload content" });
  await expect(view).toContainText("SKU-000000");
  await expect(view).not.toContainText("END-OF-POOL-PAYLOAD");
  await page.getByRole("button", { name: "Show all" }).click();
  await expect(view).toContainText("END-OF-POOL-PAYLOAD");
});

test("a pending task's 100 KB body: found again in the list and shown whole", async ({ page, seed, backend }) => {
  const queue = seed.name("enricher");
  await backend.queuePush(queue, JSON.stringify({ id: "t1", payload: { n: 1 } }));
  await backend.queuePush(queue, JSON.stringify({ id: "bigtask", payload: JSON.parse(bigDoc(100_000, "END-OF-TASK")) }));

  await page.goto(`/queues/${enc(queue)}`);
  const pending = page.getByRole("region", { name: "Pending", exact: true });
  await pending.getByRole("button", { name: "Show body of task bigtask" }).click();
  await expect(pending).not.toContainText("END-OF-TASK");
  // the first task is taken meanwhile: the big one moves up a place
  await backend.queueReserve(queue, 0, 300);
  await pending.getByRole("button", { name: "Show all" }).click();
  await expect(pending).toContainText("END-OF-TASK");
});

test("Download saves every byte of a truncated value", async ({ page, seed, backend }) => {
  const ns = seed.name("blobs");
  const value = bigDoc(100_000, "END-OF-DOWNLOAD");
  await backend.kvSet(ns, "export", value, null);

  await page.goto(`/state?ns=${enc(ns)}&key=export#kv`);
  const panel = page.getByRole("region", { name: "Value of export" });
  await expect(panel).toContainText(/preview: first 4\.0 KiB of \d+ KiB/);
  const [download] = await Promise.all([page.waitForEvent("download"), panel.getByRole("button", { name: "Download value" }).click()]);
  expect(download.suggestedFilename()).toBe(`kv-${ns}-export.json`);
  const file = await download.path();
  expect((await stat(file)).size).toBe(Buffer.byteLength(value));
  expect(await readFile(file, "utf8")).toBe(value);
});
