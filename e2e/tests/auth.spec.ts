// With authentication on (a console of its own, users of each role): pages ask for sign-in,
// a viewer cannot change anything (no controls, and the API says 403), an operator can
// requeue a dead letter, an admin can edit a worker's config, and both land in the audit trail;
// signing out ends the session on the server (a copied cookie is worth nothing afterwards).
import type { Page } from "@playwright/test";

import { Seeder, enc, expect, screenshotPath, test, waitForLive } from "../fixtures";

import { passwordHash, sha256Hex, startConsole, type RunningConsole } from "./support/console";

const PASSWORDS = { vera: "vera-viewer-password", otto: "otto-operator-password", ada: "ada-admin-password" } as const;
const ADMIN_TOKEN = "e2e-admin-token-0123456789";

let c: RunningConsole;

test.describe.configure({ timeout: 270_000 });

test.beforeAll(async () => {
  c = await startConsole({
    FLEET_BACKEND_URL: process.env.E2E_REDIS_URL!,
    FLEET_AUTH_USERS: [`vera:viewer:${passwordHash(PASSWORDS.vera)}`, `otto:operator:${passwordHash(PASSWORDS.otto)}`, `ada:admin:${passwordHash(PASSWORDS.ada)}`].join(","),
    FLEET_AUTH_TOKENS: `e2e:admin:${sha256Hex(ADMIN_TOKEN)}`,
    FLEET_AUTH_SECRET: "e2e-session-secret-0123456789-0123456789",
  });
});

test.afterAll(async () => {
  await c?.close();
});

async function signIn(page: Page, user: keyof typeof PASSWORDS, next = "/"): Promise<void> {
  await page.goto(`${c.baseURL}/signin?next=${enc(next)}`);
  await page.getByLabel("User name").fill(user);
  await page.getByLabel("Password").fill(PASSWORDS[user]);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("user-menu")).toContainText(`Signed in as ${user}`);
  // the menu is in the server's HTML: wait for the page's scripts too (a check of a box
  // before they run is lost to React), which only they can show as live
  await waitForLive(page);
}

async function deadLetters(seed: Seeder, backend: import("@fleet/backend").Backend, n: number): Promise<{ queue: string; ids: string[] }> {
  const queue = seed.name("scraper");
  const ids = Array.from({ length: n }, (_, i) => `d${i}${"0".repeat(30)}`);
  for (const id of ids) await backend.queueDead(queue, Seeder.task(id, { url: `https://shop.example/${id}` }, { attempts: 3 }));
  return { queue, ids };
}

test("a page without a session goes to sign-in; a wrong password says only that something is wrong", async ({ page }) => {
  await page.goto(`${c.baseURL}/queues?dead=1`);
  await expect(page).toHaveURL(`${c.baseURL}/signin?next=${enc("/queues?dead=1")}`);
  await expect(page.getByRole("heading", { name: "Sign in to Fleet Console" })).toBeVisible();
  expect((await page.request.get(`${c.baseURL}/api/v1/queues`)).status()).toBe(401);

  await page.getByLabel("User name").fill("ada");
  await page.getByLabel("Password").fill("not-her-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("The user name or password is wrong.")).toBeVisible();
  await page.getByLabel("User name").fill("nobody");
  await page.getByLabel("Password").fill(PASSWORDS.ada);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("The user name or password is wrong.")).toBeVisible();
  await page.screenshot({ path: screenshotPath("auth-sign-in-wrong") });

  await page.getByLabel("User name").fill("vera");
  await page.getByLabel("Password").fill(PASSWORDS.vera);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${c.baseURL}/queues?dead=1`);
  await expect(page.getByTestId("user-role")).toHaveText("viewer");
});

test("a viewer sees the dead letters but no control to change them, and the API refuses (403)", async ({ page, seed, backend }) => {
  const { queue } = await deadLetters(seed, backend, 2);
  await signIn(page, "vera", `/queues/${enc(queue)}`);
  await expect(page).toHaveURL(`${c.baseURL}/queues/${enc(queue)}`);
  const dead = page.getByRole("region", { name: "Dead letters", exact: true });
  await expect(dead).toContainText("shop.example");
  await expect(page.getByRole("button", { name: /requeue|delete|sweep/i })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath("auth-viewer-queue") });

  const res = await page.request.post(`${c.baseURL}/api/v1/queues/${enc(queue)}/dead/requeue`, {
    data: { all: true },
    headers: { origin: c.baseURL, "x-fleet-csrf": "1" },
  });
  expect(res.status()).toBe(403);
  expect((await res.json()).error.code).toBe("forbidden");
  expect(await backend.dlqLength(queue)).toBe(2);
  // and no audit trail for a viewer
  expect((await page.request.get(`${c.baseURL}/api/v1/audit`)).status()).toBe(403);
});

test("an operator requeues a dead letter from the page; a cross-site request with the same cookie is refused", async ({ page, seed, backend }) => {
  const { queue, ids } = await deadLetters(seed, backend, 2);
  await signIn(page, "otto", `/queues/${enc(queue)}`);
  const dead = page.getByRole("region", { name: "Dead letters", exact: true });
  await dead.getByRole("checkbox", { name: `Select dead letter ${ids[0]}` }).check();
  await dead.getByRole("button", { name: "Requeue selected (1)" }).click();
  const confirm = page.getByRole("dialog", { name: "Requeue 1 dead letter?" });
  await confirm.getByRole("button", { name: "Requeue 1 dead letter" }).click();
  await expect(dead.getByRole("status")).toContainText("Requeued 1 dead letter");
  expect(await backend.dlqLength(queue)).toBe(1);

  const forged = await page.request.post(`${c.baseURL}/api/v1/queues/${enc(queue)}/dead/requeue`, {
    data: { all: true },
    headers: { origin: "https://evil.example", "x-fleet-csrf": "1" },
  });
  expect(forged.status()).toBe(403);
  expect(await backend.dlqLength(queue)).toBe(1);

  const trail = await page.request.get(`${c.baseURL}/api/v1/audit?action=dead.requeue&target=${enc(`queue:${queue}`)}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect((await trail.json()).items).toEqual([expect.objectContaining({ actor: "otto", role: "operator", via: "session", details: expect.objectContaining({ requeued: 1 }) })]);
});

test("an admin edits a worker's config; the audit page shows it with the value before and after", async ({ page, seed, backend }) => {
  const type = seed.name("scraper");
  await seed.automation(type, {
    config: { type: "object", properties: { slots: { type: "integer", minimum: 0, maximum: 64, title: "Slots" } } },
  });
  await seed.workers(type, [{ id: "w1", config: { slots: 2 } }]);
  await signIn(page, "ada", `/workers/${enc(type)}/w1`);
  const editor = page.getByRole("region", { name: "Config", exact: true });
  const slots = editor.getByLabel("Slots", { exact: true });
  await expect(slots).toHaveValue("2", { timeout: 60_000 });
  await expect(editor.getByTestId("config-generation")).toHaveText("Generation 1");
  await slots.fill("6");
  const save = editor.getByRole("button", { name: "Review and save…" });
  await expect(save).toBeEnabled();
  await save.click();
  const review = page.getByRole("dialog", { name: "Review 1 change" });
  await review.getByRole("button", { name: "Save changes" }).click();
  await expect(editor.getByText("Saved: generation 1 → 2.")).toBeVisible();
  expect((await backend.workerGetConfig(type, "w1")).config).toEqual({ slots: 6 });

  await page.goto(`${c.baseURL}/audit?target=${enc(`worker:${type}/w1`)}`);
  const entry = page.getByTestId("audit-entry").first();
  // A sentence first, the raw request one click away (issue 19.5).
  await expect(entry.getByTestId("audit-sentence")).toHaveText(`ada changed the config of w1 (${type}): Slots 2 → 6`);
  await entry.getByText(/Raw request/).click();
  await expect(entry).toContainText("worker.config.patch");
  await expect(entry).toContainText("Before");
  await expect(entry).toContainText("After");
  await page.screenshot({ path: screenshotPath("auth-audit-config") });

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin/);
  await page.goto(`${c.baseURL}/audit`);
  await expect(page).toHaveURL(/\/signin\?next=%2Faudit/);
});

test("signing out ends the session on the server: a cookie copied before sign-out is worth nothing after it", async ({ page, browser }) => {
  await signIn(page, "vera", "/queues");
  // what a stolen cookie is: the very same value, in another browser
  const session = (await page.context().cookies()).find((k) => k.name.endsWith("fleet_session"));
  expect(session, "the session cookie").toBeDefined();
  const elsewhere = await browser.newContext();
  try {
    await elsewhere.addCookies([session!]);
    const copy = await elsewhere.newPage();
    await copy.goto(`${c.baseURL}/queues`);
    await expect(copy.getByTestId("user-menu")).toContainText("Signed in as vera");
    expect((await copy.request.get(`${c.baseURL}/api/v1/queues`)).status()).toBe(200);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin/);

    // the copy, replayed: the API refuses it and the pages send it to sign in
    const replayed = await copy.request.get(`${c.baseURL}/api/v1/queues`);
    expect(replayed.status()).toBe(401);
    expect((await replayed.json()).error.message).toContain("This session has ended");
    const write = await copy.request.put(`${c.baseURL}/api/v1/counters/${enc(`e2e-revoked-${Date.now()}`)}`, {
      data: { value: 1 },
      headers: { origin: c.baseURL, "x-fleet-csrf": "1" },
    });
    expect(write.status()).toBe(401);
    // a new tab with the copy: the open one sends itself to sign-in at its next refused read,
    // at a moment of its own, and a navigation started meanwhile would race that redirect
    await copy.close();
    const again = await elsewhere.newPage();
    await again.goto(`${c.baseURL}/queues`);
    await expect(again).toHaveURL(/\/signin\?next=%2Fqueues/);
    await expect(again.getByRole("heading", { name: "Sign in to Fleet Console" })).toBeVisible();
    await again.screenshot({ path: screenshotPath("auth-revoked-cookie") });
  } finally {
    await elsewhere.close();
  }
});
