// `pnpm screenshots [URL]`: photographs every page of a running console, at 1440x900 and
// 390x844, light and dark, full page, once its data has loaded, so people can look at them
// (issue 4: "take screenshots of every page ... and look at each one"). Not a test: it
// asserts only that no page shows an error state, and exits 1 when one does.
//
//   URL               console to photograph (default $SCREENSHOTS_URL or http://127.0.0.1:3000)
//   SCREENSHOTS_DIR   where the PNGs go (default e2e/screenshots/demo, gitignored)
//   SCREENSHOTS_USER, SCREENSHOTS_PASSWORD   sign in first (a console with FLEET_AUTH_USERS;
//                     use an admin so /audit shows); /signin is then photographed signed out
//   --only=a,b        only the pages whose name contains one of these (e.g. --only=queue,state)
//
// Detail pages are picked from the API: a running worker (one with stats history if any),
// the queue with the most dead letters, the pool with claims, the longest stream, the first
// key-value namespace and its longest-lived key.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import AxeBuilder from "@axe-core/playwright";
import { chromium, type APIRequestContext, type Browser, type BrowserContext, type Page } from "@playwright/test";

const HERE = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const only = args
  .find((a) => a.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",")
  .filter(Boolean);
const base = (args.find((a) => !a.startsWith("--")) ?? process.env.SCREENSHOTS_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
const outDir = resolve(process.env.SCREENSHOTS_DIR ?? join(HERE, "..", "screenshots", "demo"));
const user = process.env.SCREENSHOTS_USER;
const password = process.env.SCREENSHOTS_PASSWORD;

const VIEWPORTS = [
  { label: "desktop", width: 1440, height: 900, mobile: false },
  { label: "phone", width: 390, height: 844, mobile: true },
] as const;
const SCHEMES = ["light", "dark"] as const;
type Viewport = (typeof VIEWPORTS)[number];
type Scheme = (typeof SCHEMES)[number];

interface Shot {
  name: string;
  path: string;
  /** The page has no app shell (signed out): no live indicator to wait for. */
  signedOut?: boolean;
  /** Something that must show before the picture (beyond "no spinner, live connected"). */
  ready?: string;
  /** Wait for `ready` at most this long, then take the picture anyway (live-only content). */
  readyOptionalMs?: number;
  /** The page forwards elsewhere at once (/signin when nobody has to sign in): wait for that. */
  forwards?: boolean;
}

const enc = encodeURIComponent;

class PageFailure extends Error {}

async function getJson<T>(api: APIRequestContext, path: string): Promise<T> {
  const res = await api.get(`${base}/api/v1${path}`, { headers: { Accept: "application/json" } });
  if (!res.ok()) throw new Error(`GET /api/v1${path} answered ${res.status()}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

interface WorkerRow {
  automation_type: string;
  worker_id: string;
  status: string;
  last_error: string | null;
}

/** The pages, with detail pages named from what the API lists. */
async function discover(api: APIRequestContext): Promise<{ shots: Shot[]; skipped: string[] }> {
  const [workers, automations, queues, pools, streams, kv] = await Promise.all([
    getJson<{ workers: WorkerRow[] }>(api, "/workers?limit=500"),
    getJson<{ automations: Array<{ automation_type: string }> }>(api, "/automations"),
    getJson<{ queues: Array<{ name: string; dead: number; processing: number }> }>(api, "/queues"),
    getJson<{ pools: Array<{ name: string; size: number; claimed: number }> }>(api, "/pools"),
    getJson<{ streams: Array<{ name: string; length: number }> }>(api, "/streams"),
    getJson<{ namespaces: Array<{ ns: string; keys: number }> }>(api, "/kv"),
  ]);
  const skipped: string[] = [];
  const shots: Shot[] = [
    // Its "latest bus events" fill from the live stream only: give them a moment.
    { name: "overview", path: "/", ready: '[data-testid="bus-event"]', readyOptionalMs: 8000 },
    { name: "workers", path: "/workers" },
  ];

  const byStatus = (s: string) => workers.workers.find((w) => w.status === s);
  const worker = byStatus("running") ?? byStatus("idle") ?? workers.workers[0];
  if (worker) {
    shots.push({
      name: "worker",
      path: `/workers/${enc(worker.automation_type)}/${enc(worker.worker_id)}`,
      // Charts draw once the stats history is in; a worker without history shows none.
      ready: '[data-testid="stats-chart"] canvas',
      readyOptionalMs: 8000,
    });
  } else skipped.push("worker (no workers)");
  // A failing worker shows its last error; demo workers flap, so one that has an error on record will do.
  const failing = byStatus("error") ?? workers.workers.find((w) => w.last_error !== null && w !== worker);
  if (failing) shots.push({ name: "worker-error", path: `/workers/${enc(failing.automation_type)}/${enc(failing.worker_id)}` });
  else skipped.push("worker-error (no worker has an error right now)");

  shots.push({ name: "automations", path: "/automations" });
  const automation = automations.automations[0];
  if (automation) shots.push({ name: "automation", path: `/automations/${enc(automation.automation_type)}` });
  else skipped.push("automation (no automations)");

  shots.push({ name: "queues", path: "/queues" });
  const queue = [...queues.queues].sort((a, b) => b.dead - a.dead || b.processing - a.processing)[0];
  if (queue) shots.push({ name: "queue", path: `/queues/${enc(queue.name)}` });
  else skipped.push("queue (no queues)");

  shots.push({ name: "pools", path: "/pools" });
  const pool = [...pools.pools].sort((a, b) => b.claimed - a.claimed || b.size - a.size)[0];
  if (pool) shots.push({ name: "pool", path: `/pools/${enc(pool.name)}` });
  else skipped.push("pool (no pools)");

  shots.push({ name: "streams", path: "/streams" });
  const stream = [...streams.streams].sort((a, b) => b.length - a.length)[0];
  if (stream) shots.push({ name: "stream", path: `/streams/${enc(stream.name)}` });
  else skipped.push("stream (no streams)");

  shots.push({ name: "state", path: "/state" });
  const ns = kv.namespaces.find((n) => n.keys > 0);
  if (ns) {
    // The key that lives longest (no TTL first): a demo key may expire between listing and picture.
    const keys = await getJson<{ keys: Array<{ key: string; ttl_ms: number | null }> }>(api, `/kv/${enc(ns.ns)}`);
    const key = [...keys.keys].sort((a, b) => (b.ttl_ms ?? Infinity) - (a.ttl_ms ?? Infinity))[0]?.key;
    shots.push({ name: "state-kv", path: `/state?ns=${enc(ns.ns)}${key ? `&key=${enc(key)}` : ""}#kv` });
  } else skipped.push("state-kv (no key-value namespaces)");

  shots.push({ name: "events", path: "/events", ready: '[data-testid="bus-event"]', readyOptionalMs: 15_000 });
  shots.push({ name: "errors", path: "/errors" });
  shots.push({ name: "alerts", path: "/alerts" });
  shots.push({ name: "audit", path: "/audit" });
  return { shots, skipped };
}

/** Signs in through the sign-in page, as a person would (the API wants a browser's Origin). */
async function signIn(page: Page): Promise<void> {
  await page.goto(`${base}/signin`);
  await page.getByLabel("User name").fill(user ?? "");
  await page.getByLabel("Password").fill(password ?? "");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/signin"), { timeout: 15_000 });
}

async function newContext(browser: Browser, vp: Viewport, scheme: Scheme, storageState?: string): Promise<BrowserContext> {
  const ctx = await browser.newContext({
    viewport: { width: vp.width, height: vp.height },
    isMobile: vp.mobile,
    hasTouch: vp.mobile,
    deviceScaleFactor: 1,
    colorScheme: scheme,
    reducedMotion: "reduce",
    storageState,
  });
  // tsx (esbuild, keepNames) wraps named functions inside page.evaluate callbacks in
  // __name(...), which exists only in Node: give the page a no-op one.
  await ctx.addInitScript("globalThis.__name = globalThis.__name || ((f) => f);");
  return ctx;
}

/** What the page shows when it failed, or null: error boxes, the outage banner, Next's error page. */
async function errorShown(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const visible = (el: Element) => (el as HTMLElement).offsetParent !== null || getComputedStyle(el).position === "fixed";
    const banner = document.querySelector('[data-testid="backend-unavailable"]');
    if (banner && visible(banner)) return `backend unavailable banner: ${banner.textContent?.trim().slice(0, 200)}`;
    for (const el of document.querySelectorAll('main [role="alert"], [data-testid="error-state"]')) {
      if (visible(el)) return `error state: ${el.textContent?.trim().replace(/\s+/g, " ").slice(0, 300)}`;
    }
    // innerText: what is rendered. textContent would also read the inline flight data, which
    // carries Next's not-found template on every page.
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point (see above)
    const body = document.body.innerText ?? "";
    if (/Application error: a (client|server)-side exception/.test(body)) return "Next.js application error page";
    if (/This page could not be found/.test(body)) return "Next.js 404 page";
    return null;
  });
}

/** What scrolls sideways: the page itself, or a box whose content is wider than it (a table, a pre). */
async function sidewaysScroll(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const notes: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth + 1) notes.push(`the page is ${doc.scrollWidth}px wide, wider than the window`);
    for (const el of document.querySelectorAll("main *")) {
      const h = el as HTMLElement;
      const ox = getComputedStyle(h).overflowX;
      if ((ox === "auto" || ox === "scroll") && h.scrollWidth > h.clientWidth + 1 && h.offsetParent !== null) {
        const name = h.getAttribute("aria-label") ?? h.querySelector("caption")?.textContent ?? h.tagName.toLowerCase();
        notes.push(`"${name.trim().slice(0, 60)}" scrolls sideways (${h.scrollWidth}px of content in ${h.clientWidth}px)`);
      }
    }
    return notes;
  });
}

/** axe's colour-contrast rule alone (pages.spec runs all of axe, in the light scheme only). */
async function lowContrast(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withRules(["color-contrast"]).analyze();
  return results.violations.flatMap((v) => v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")} ${(n.any[0]?.message ?? "").replace(/\s+/g, " ").slice(0, 160)}`));
}

async function capture(page: Page, shot: Shot, file: string, scheme: Scheme): Promise<void> {
  const errors: string[] = [];
  const onError = (e: Error) => errors.push(e.message);
  page.on("pageerror", onError);
  try {
    const res = await page.goto(`${base}${shot.path}`, { waitUntil: "domcontentloaded" });
    const status = res?.status() ?? 0;
    if (status !== 200) throw new PageFailure(`answered HTTP ${status}`);
    if (shot.forwards) await page.waitForURL((u) => u.pathname !== shot.path, { timeout: 15_000, waitUntil: "domcontentloaded" });
    const deadline = Date.now() + 30_000;
    // Loaded: the h1 is there, no spinner or "Loading…" line, and the live stream is connected.
    await page.locator("h1").first().waitFor({ state: "visible", timeout: 30_000 });
    if (!shot.signedOut) await page.locator('[data-live-status="live"]').waitFor({ state: "visible", timeout: 30_000 });
    for (;;) {
      const err = await errorShown(page);
      if (err) throw new PageFailure(err);
      const busy = await page.evaluate(() => {
        const statuses = [...document.querySelectorAll('[role="status"]')].filter((el) => /^\s*Loading/.test(el.textContent ?? ""));
        const spinners = [...document.querySelectorAll(".animate-spin")].filter((el) => (el as HTMLElement).offsetParent !== null);
        return statuses.length + spinners.length;
      });
      if (busy === 0) break;
      if (Date.now() > deadline) throw new PageFailure("still loading after 30 s");
      await page.waitForTimeout(200);
    }
    if (shot.ready) {
      const found = await page
        .locator(shot.ready)
        .first()
        .waitFor({ state: "visible", timeout: shot.readyOptionalMs ?? 30_000 })
        .then(() => true)
        .catch(() => false);
      if (!found && !shot.readyOptionalMs) throw new PageFailure(`never showed ${shot.ready}`);
      if (!found) console.warn(`  note: ${shot.name} did not show ${shot.ready}; photographed without it`);
    }
    // From the top (a #fragment scrolled the page, and a full-page picture would show the
    // sticky header halfway down); fonts in, charts sized to their boxes, one more frame.
    await page.evaluate(async () => {
      window.scrollTo(0, 0);
      await document.fonts.ready;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    });
    await page.waitForTimeout(300);
    const err = await errorShown(page);
    if (err) throw new PageFailure(err);
    await page.screenshot({ path: file, fullPage: true, animations: "disabled", caret: "hide" });
    const where = `${shot.name} at ${page.viewportSize()?.width}px ${scheme}`;
    for (const n of await sidewaysScroll(page)) console.warn(`  note: ${where}: ${n}`);
    for (const n of await lowContrast(page)) console.warn(`  note: ${where}: low contrast: ${n}`);
    if (errors.length > 0) throw new PageFailure(`uncaught errors in the page: ${errors.join(" | ").slice(0, 400)}`);
  } finally {
    page.off("pageerror", onError);
  }
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  console.log(`photographing ${base} into ${outDir}`);
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const failures: string[] = [];
  const written: string[] = [];
  let storageState: string | undefined;
  try {
    // Sign in once (when asked to) and share the session with every context.
    if (user) {
      const ctx = await newContext(browser, VIEWPORTS[0], "light");
      await signIn(await ctx.newPage());
      // The session cookie stays out of the screenshots directory and is deleted at the end.
      storageState = join(mkdtempSync(join(tmpdir(), "fleet-screenshots-")), "session.json");
      await ctx.storageState({ path: storageState });
      await ctx.close();
    }
    const apiCtx = await browser.newContext({ storageState });
    let found: Awaited<ReturnType<typeof discover>>;
    try {
      found = await discover(apiCtx.request);
    } catch (err) {
      throw new Error(
        `cannot list the console's data at ${base} (${(err as Error).message})${user ? "" : "; a console with sign-in needs SCREENSHOTS_USER and SCREENSHOTS_PASSWORD"}`,
      );
    } finally {
      await apiCtx.close();
    }
    const shots: Shot[] = [...found.shots];
    // Signed out, /signin shows its form; without sign-in on this console it only redirects home.
    if (user) shots.push({ name: "signin", path: "/signin", signedOut: true });
    else shots.push({ name: "signin", path: "/signin", forwards: true });
    const wanted = only ? shots.filter((s) => only.some((o) => s.name.includes(o))) : shots;
    for (const s of found.skipped) console.log(`skipped ${s}`);

    // One context per viewport and scheme, run side by side; pages in order within each.
    await Promise.all(
      VIEWPORTS.flatMap((vp) =>
        SCHEMES.map(async (scheme) => {
          const signedIn = await newContext(browser, vp, scheme, storageState);
          const signedOut = await newContext(browser, vp, scheme);
          const pages = { in: await signedIn.newPage(), out: await signedOut.newPage() };
          try {
            for (const shot of wanted) {
              const file = join(outDir, `${shot.name}-${vp.label}-${scheme}.png`);
              try {
                await capture(shot.signedOut ? pages.out : pages.in, shot, file, scheme);
                written.push(file);
                console.log(`wrote ${file}`);
              } catch (err) {
                const why = err instanceof PageFailure ? err.message : (err as Error).message.split("\n")[0];
                failures.push(`${shot.name} (${shot.path}) at ${vp.width}x${vp.height} ${scheme}: ${why}`);
                console.error(`FAILED ${shot.name} at ${vp.label} ${scheme}: ${why}`);
              }
            }
          } finally {
            await signedIn.close();
            await signedOut.close();
          }
        }),
      ),
    );
  } finally {
    await browser.close();
    if (storageState) rmSync(dirname(storageState), { recursive: true, force: true });
  }
  console.log(`${written.length} screenshots in ${outDir}`);
  if (failures.length > 0) {
    console.error(`\n${failures.length} page(s) showed an error:\n  ${failures.join("\n  ")}`);
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(`screenshots: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
