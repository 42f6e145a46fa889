// Every page, seeded with a small fleet of its own: it loads (200), passes axe with no
// serious or critical violation at desktop and phone sizes, and is photographed at both
// (e2e/screenshots/page-<name>-desktop.png and -phone.png, for people to look at).
import type { Locator, Page } from "@playwright/test";

import type { Backend } from "@fleet/backend";

import { Seeder, enc, expect, expectAxeClean, screenshotPath, test, waitForLive, waitUntilLoaded } from "../fixtures";

const VIEWPORTS = [
  { label: "desktop", width: 1440, height: 900 },
  { label: "phone", width: 390, height: 844 },
] as const;

const CONFIG_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  title: "Scraper",
  properties: {
    slots: { type: "integer", minimum: 1, maximum: 32, default: 2, title: "Slots", description: "Pages fetched at once." },
    mode: { type: "string", enum: ["fast", "thorough", "stealth"], default: "fast", title: "Mode" },
    headless: { type: "boolean", default: true, title: "Headless browser" },
  },
};
const TASK_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["url"],
  properties: { url: { type: "string", format: "uri", title: "URL" }, depth: { type: "integer", minimum: 0, maximum: 3, default: 0, title: "Link depth" } },
};
const OUTPUT_SCHEMA = { type: "object", properties: { url: { type: "string" }, price: { type: "number" } } };

interface Showcase {
  type: string;
  pool: string;
  lock: string;
  counter: string;
  kvNs: string;
}

/** A small, realistic fleet named with this test's prefix. */
async function seedShowcase(seed: Seeder, backend: Backend): Promise<Showcase> {
  const type = seed.name("scraper");
  const pool = seed.name("proxies");
  const now = Date.now() / 1000;
  const history: Array<[number, Record<string, unknown>]> = Array.from({ length: 30 }, (_, i) => [
    (29 - i) * 30,
    { pages: 100 + i * 7, cpu_pct: 20 + ((i * 13) % 50), errors: i % 5 === 0 ? 1 : 0 },
  ]);
  await seed.automation(type, { config: CONFIG_SCHEMA, task_payload: TASK_SCHEMA, output: OUTPUT_SCHEMA });
  await seed.workers(type, [
    { id: "w-running", state: "RUNNING", config: { slots: 4, mode: "fast" }, stats: { pages: 303, cpu_pct: 41, errors: 0 }, history },
    { id: "w-idle", state: "IDLE", config: { slots: 2 }, stats: { pages: 12, cpu_pct: 3, errors: 0 } },
    { id: "w-error", state: "ERROR", config: { slots: 2 }, lastError: "Timeout after 30 s fetching https://shop.example/item/7" },
    { id: "w-offline", state: "RUNNING", seenAgo: 7200, config: { slots: 1 } },
  ]);

  const task = (n: number) => Seeder.task(`${String(n).padStart(4, "0")}${"a".repeat(28)}`, { url: `https://shop.example/item/${n}`, depth: n % 3 });
  await backend.queuePushMany(type, [
    { body: task(1), priority: "high" },
    { body: task(2) },
    { body: task(3) },
    { body: task(4), priority: "low" },
    { body: task(5) },
    { body: task(6) },
  ]);
  // One in flight, one nacked into a scheduled retry (high goes first, then normal).
  await backend.queueReserve(type, 1, 300);
  const retry = await backend.queueReserve(type, 1, 300);
  if (retry) await backend.queueNack(type, `0002${"a".repeat(28)}`, retry, { delaySeconds: 600 });
  await backend.queueDead(type, Seeder.task(`0007${"a".repeat(28)}`, { url: "https://shop.example/item/7" }, { attempts: 3, last_error: "HTTP 503" }));
  await backend.queueDead(type, Seeder.task(`0008${"a".repeat(28)}`, { url: "https://shop.example/item/8" }, { attempts: 3, last_error: "parse error" }));

  await backend.poolPut(pool, "proxy-eu-1", "http://10.0.0.1:8080", { region: "eu", provider: "acme" });
  await backend.poolPut(pool, "proxy-us-1", "http://10.0.1.1:8080", { region: "us", provider: "acme" }, 3600);
  await backend.poolPut(pool, "proxy-ap-1", "http://10.0.2.1:8080", { region: "ap", provider: "other" }, 900);
  await backend.poolClaimAny(pool, { region: "eu" }, 240);

  for (let i = 0; i < 5; i++) {
    await backend.streamPush(type, JSON.stringify({ url: `https://shop.example/item/${i}`, price: 10 + i }), {
      score: now - (5 - i) * 20,
      maxLen: 1000,
      ttlSeconds: 3600,
    });
  }

  const lock = seed.name("nightly-report");
  const counter = seed.name("pages-fetched");
  const kvNs = seed.name("settings");
  await backend.lockAcquire(lock, 300, 0);
  await backend.counterSet(counter, 1234);
  await backend.kvSet(kvNs, "feature-flags", JSON.stringify({ beta: true }), 3600);
  return { type, pool, lock, counter, kvNs };
}

interface PageCase {
  name: string;
  path: (s: Showcase) => string;
  /** Something on the page that proves the seeded data is shown. */
  ready: (page: Page, s: Showcase) => Locator;
  /** Runs after load (e.g. publish bus messages the page only sees live). */
  after?: (page: Page, s: Showcase, backend: Backend) => Promise<void>;
}

const PAGES: PageCase[] = [
  { name: "overview", path: () => "/", ready: (p, s) => p.getByRole("main").getByText(s.type).first() },
  { name: "workers", path: () => "/workers", ready: (p) => p.getByRole("main").getByText("w-offline").first() },
  {
    name: "worker",
    path: (s) => `/workers/${enc(s.type)}/w-running`,
    ready: (p) => p.getByRole("region", { name: "Stats history" }).getByRole("img").first(),
  },
  { name: "automations", path: () => "/automations", ready: (p, s) => p.getByRole("main").getByText(s.type).first() },
  {
    name: "automation",
    path: (s) => `/automations/${enc(s.type)}`,
    ready: (p) => p.getByRole("main").getByText("w-offline").first(),
  },
  { name: "queues", path: () => "/queues", ready: (p, s) => p.getByRole("main").getByText(s.type).first() },
  { name: "queue", path: (s) => `/queues/${enc(s.type)}`, ready: (p) => p.getByRole("main").getByText("HTTP 503").first() },
  { name: "errors", path: () => "/errors", ready: (p) => p.getByTestId("error-group").first() },
  { name: "pools", path: () => "/pools", ready: (p, s) => p.getByRole("main").getByText(s.pool).first() },
  { name: "pool", path: (s) => `/pools/${enc(s.pool)}`, ready: (p) => p.getByRole("main").getByText("proxy-ap-1").first() },
  { name: "streams", path: () => "/streams", ready: (p, s) => p.getByRole("main").getByText(s.type).first() },
  { name: "stream", path: (s) => `/streams/${enc(s.type)}`, ready: (p) => p.getByRole("main").getByText("shop.example/item/4").first() },
  { name: "state", path: () => "/state", ready: (p, s) => p.getByRole("main").getByText(s.lock).first() },
  // the rules are the console's one document (watch.spec.ts edits them); whatever it holds, the page shows it
  { name: "alerts", path: () => "/alerts", ready: (p) => p.getByRole("heading", { name: /^Rules/ }).first() },
  {
    name: "events",
    path: () => "/events",
    ready: (p) => p.getByTestId("bus-event").first(),
    after: async (page, s, backend) => {
      await waitForLive(page);
      await backend.eventPublish(`${s.type}.emit`, JSON.stringify({ score: Date.now() / 1000, url: "https://shop.example/item/4" }));
      await backend.eventPublish("fleet.admin", JSON.stringify({ action: "dlq.requeue", queue: s.type, requeued: 2 }));
    },
  },
];

for (const c of PAGES) {
  test(`page ${c.name}: loads, no serious accessibility violations, screenshots at 1440x900 and 390x844`, async ({ page, seed, backend }) => {
    const s = await seedShowcase(seed, backend);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    for (const vp of VIEWPORTS) {
      await page.setViewportSize({ width: vp.width, height: vp.height });
      const health = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/health");
      const res = await page.goto(c.path(s));
      expect(res?.status(), `${c.name} answers 200`).toBe(200);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      if (c.after) await c.after(page, s, backend);
      await expect(c.ready(page, s)).toBeVisible();
      await waitUntilLoaded(page);
      // The banner's absence means something only once the shell's /api/v1/health answered.
      expect((await health).status(), `${c.name}: /api/v1/health`).toBe(200);
      await expect(page.getByTestId("backend-unavailable")).toHaveCount(0);
      await page.screenshot({ path: screenshotPath(`page-${c.name}-${vp.label}`), fullPage: true });
      await expectAxeClean(page, `${c.name} at ${vp.width}x${vp.height}`);
    }
    expect(errors, "uncaught page errors").toEqual([]);
  });
}
