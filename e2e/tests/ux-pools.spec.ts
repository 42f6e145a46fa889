// Issue 19, point 8: pools show a free count and an exhausted / low state on the list and the
// pool page, "claimed until" per item; payloads (and tags) that hold secrets are masked by the
// server, revealed per item by an operator, and the reveal is in the audit trail.

import { atEveryLook, auditEntries, enc, expect, expectAxeClean, screenshotPath, test, waitUntilLoaded } from "../fixtures";

// Four looks (sizes × schemes) each with axe and a full-page picture: minutes on a loaded machine.
test.describe.configure({ timeout: 450_000 });

const COOKIE_VALUE = "cf-clearance-0123456789abcdef-SECRET";
const PAYLOAD = JSON.stringify({ site: "forum.example", cookies: [{ name: "cf_clearance", value: COOKIE_VALUE, domain: ".forum.example" }], user_agent: "Mozilla/5.0" });

test("the pools list and a pool page show free counts, exhausted and low; items say until when they are claimed", async ({ page, seed, backend }) => {
  const dry = seed.name("dry");
  const low = seed.name("low");
  const fine = seed.name("fine");
  for (let i = 0; i < 2; i++) await backend.poolPut(dry, `d${i}`, "x", {});
  for (let i = 0; i < 20; i++) await backend.poolPut(low, `l${String(i).padStart(2, "0")}`, "x", {});
  for (let i = 0; i < 3; i++) await backend.poolPut(fine, `f${i}`, "x", {});
  for (let i = 0; i < 2; i++) expect(await backend.poolClaimAny(dry, {}, 600)).not.toBeNull();
  for (let i = 0; i < 18; i++) expect(await backend.poolClaimAny(low, {}, 600)).not.toBeNull();

  await page.goto("/pools");
  const table = page.getByRole("table", { name: "Pools" });
  const free = (name: string) =>
    table
      .getByRole("row")
      .filter({ has: page.getByRole("link", { name, exact: true }) })
      .getByTestId("pool-free");
  await expect(free(dry)).toHaveText(/exhausted\s*0/);
  await expect(free(low)).toHaveText(/low\s*2/);
  await expect(free(fine)).toHaveText("3");
  await expect(free(fine).getByTestId("pool-availability")).toHaveCount(0);
  await atEveryLook(page, "the pools list", "ux-pools-list");

  await page.goto(`/pools/${enc(dry)}`);
  await expect(page.getByTestId("pool-free")).toContainText("0");
  await expect(page.getByTestId("pool-free").getByTestId("pool-availability")).toHaveText("exhausted");
  const until = page.getByRole("row").filter({ hasText: "d0" }).getByTestId("claimed-until");
  await expect(until).toHaveText(/^claimed until \d\d:\d\d:\d\d$/);
  const claim = (await backend.poolItems(dry)).find((i) => i.id === "d0")!.inUseUntil!;
  const shown = await until.textContent();
  const expected = await page.evaluate((t) => {
    const d = new Date(t * 1000);
    return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  }, claim);
  expect(shown).toBe(`claimed until ${expected}`);
  await atEveryLook(page, "an exhausted pool", "ux-pools-exhausted");

  // The one claim released: free again, no longer exhausted (live via the pools frames).
  await backend.poolRelease(dry, "d0");
  await expect(page.getByTestId("pool-free").getByTestId("pool-availability")).toHaveText("low");
});

test("secrets in a pool item are masked by the server; an operator reveals one item, and that is audited", async ({ page, seed, backend }) => {
  const pool = seed.name("cookies");
  await backend.poolPut(pool, "session-1", PAYLOAD, { site: "forum.example", token: "tag-token-SECRET" });
  await backend.poolPut(pool, "proxy-1", "http://10.0.0.9:3128", { site: "forum.example" });
  // the demo's cf-cookies shape: Cloudflare's clearance cookie as a top-level member
  await backend.poolPut(pool, "cf-1", JSON.stringify({ cf_clearance: "cf-clearance-value-SECRET", user_agent: "Mozilla/5.0" }), { site: "forum.example" });

  // Nothing the browser receives before the reveal holds the secret bytes.
  const bodies: string[] = [];
  page.on("response", async (res) => {
    if (res.url().includes("/api/v1/")) bodies.push(await res.text().catch(() => ""));
  });
  await page.goto(`/pools/${enc(pool)}`);
  const row = page.getByRole("row").filter({ hasText: "session-1" });
  await expect(row.getByTestId("secret-masked")).toBeVisible();
  await expect(row).toContainText("masked");
  await expect(page.getByRole("row").filter({ hasText: "proxy-1" }).getByTestId("secret-masked")).toHaveCount(0);
  await expect(page.getByRole("row").filter({ hasText: "cf-1" }).getByTestId("secret-masked")).toBeVisible();
  await row.getByRole("button", { name: /Show payload of item session-1/ }).click();
  await expect(page.getByText(COOKIE_VALUE)).toHaveCount(0);
  await waitUntilLoaded(page);
  expect(bodies.join("\n")).not.toContain("SECRET");
  expect(bodies.join("\n")).not.toContain(Buffer.from(COOKIE_VALUE).toString("base64").slice(0, 16));
  await atEveryLook(page, "a pool with masked secrets", "ux-pools-masked");

  await row.getByRole("button", { name: "Reveal the secrets of session-1" }).click();
  await expect(row.getByTestId("secret-revealed")).toBeVisible();
  await expect(page.getByText(COOKIE_VALUE).first()).toBeVisible();
  const entry = (await auditEntries(backend, 5)).find((e) => e.action === "pool.item.reveal");
  expect(entry).toMatchObject({ target: `pool:${pool}/session-1`, outcome: "done", details: { masked: ["$.cookies", "tags.token"] } });
  expect(JSON.stringify(entry)).not.toContain("SECRET");
  await expectAxeClean(page, "a revealed item");
  await page.screenshot({ path: screenshotPath("ux-pools-revealed"), fullPage: true });

  await row.getByRole("button", { name: "Hide the secrets of session-1" }).click();
  await expect(page.getByText(COOKIE_VALUE)).toHaveCount(0);
  await expect(row.getByTestId("secret-masked")).toBeVisible();
});
