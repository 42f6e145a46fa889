// Hardening as a browser sees it: a stream envelope holding markup is shown as text, pages
// carry a nonce-based Content-Security-Policy that stops injected inline script, nothing
// may frame the console, and API answers are inert data.
import { enc, expect, test } from "../fixtures";

const ENVELOPE = `</script><img src=x onerror=window.__xssStream=1><script>window.__xssStream2=1</script>`;

test("a stream envelope holding markup is shown as text and runs nothing", async ({ page, seed, backend }) => {
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const stream = seed.name("out");
  await backend.streamPush(stream, JSON.stringify({ html: ENVELOPE }), { score: Date.now() / 1000, maxLen: 10, ttlSeconds: 600 });
  await backend.streamPush(stream, ENVELOPE, { score: Date.now() / 1000 + 1, maxLen: 10, ttlSeconds: 600 });
  await page.goto(`/streams/${enc(stream)}`);
  const table = page.getByRole("table", { name: /^Entries of stream/ });
  await expect(table.getByText(ENVELOPE, { exact: true })).toBeVisible();
  await expect(table.getByText(JSON.stringify({ html: ENVELOPE }), { exact: true })).toBeVisible();
  await table
    .getByRole("button", { name: /^Show message/ })
    .first()
    .click();
  await expect(page.locator("img[src='x']")).toHaveCount(0);
  const flags = await page.evaluate(() => [(window as unknown as Record<string, unknown>).__xssStream, (window as unknown as Record<string, unknown>).__xssStream2]);
  expect(flags).toEqual([undefined, undefined]);
  expect(dialogs).toEqual([]);
});

test("pages carry a nonce CSP; every script has the nonce and an injected inline script does not run", async ({ page }) => {
  const res = await page.goto("/");
  const csp = res!.headers()["content-security-policy"] ?? "";
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce, csp).toBeTruthy();
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  expect(res!.headers()["x-content-type-options"]).toBe("nosniff");
  expect(res!.headers()["referrer-policy"]).toBe("no-referrer");
  expect(res!.headers()["x-frame-options"]).toBe("DENY");

  // the app works under the policy: the page hydrated (its own scripts ran)
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  const scripts = await page.locator("script").evaluateAll((els) => els.map((e) => (e as HTMLScriptElement).nonce));
  expect(scripts.length).toBeGreaterThan(0);
  for (const n of scripts) expect(n).toBe(nonce);

  // markup that slipped into the DOM (the XSS a CSP exists for): its inline handler is blocked
  const violated = await page.evaluate(
    () =>
      new Promise<boolean>((resolve) => {
        document.addEventListener("securitypolicyviolation", () => resolve(true), { once: true });
        const div = document.createElement("div");
        div.innerHTML = `<img src="/no-such-image.png" onerror="window.__injected = 1">`;
        document.body.appendChild(div);
        // only a failing run waits this out
        setTimeout(() => resolve(false), 15_000);
      }),
  );
  expect(violated).toBe(true);
  expect(await page.evaluate(() => (window as unknown as Record<string, unknown>).__injected)).toBeUndefined();

  // a second load gets a fresh nonce
  const again = await page.goto("/");
  expect(again!.headers()["content-security-policy"]).not.toContain(nonce!);
});

test("API answers are inert data: JSON, nosniff, a CSP that allows nothing", async ({ page }) => {
  const res = await page.request.get("/api/v1/queues");
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toBe("application/json; charset=utf-8");
  expect(res.headers()["x-content-type-options"]).toBe("nosniff");
  expect(res.headers()["content-security-policy"]).toContain("default-src 'none'");
  expect(res.headers()["cache-control"]).toContain("no-store");
});
