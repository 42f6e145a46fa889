// Test fixtures: a backend on the same Redis the console under test reads, a unique name
// prefix per test, and seeding helpers, so tests seed their own data through the backend
// (never the UI) and never see each other's. Everything named with the test's prefix is
// removed from Redis when the test ends, so a test can run alone, in any order, and the
// pages of the next test show only that test's data.
import { randomBytes } from "node:crypto";

import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type APIRequestContext, type Page } from "@playwright/test";

import { isJsonObject, parseJsonBytes, type Backend, type JsonObject } from "@fleet/backend";
import { RedisBackend } from "@fleet/backend/redis";
import { backendFromUrl } from "@fleet/backend/url";

export type WorkerState = "IDLE" | "RUNNING" | "ERROR";

export interface WorkerSeed {
  id: string;
  state?: WorkerState;
  /** Seconds before now of the last heartbeat; past the console's threshold (300 s in playwright.config.ts) the worker is offline. */
  seenAgo?: number;
  lastError?: string | null;
  hardware?: JsonObject;
  config?: JsonObject;
  stats?: JsonObject;
  /** Stats history frames, oldest first: `[secondsAgo, frame]`. */
  history?: Array<[number, JsonObject]>;
}

/**
 * The config schema most UI tests seed: a number, a choice and a switch, each with a title and
 * a default (the forms, the rollout's "keep current" and the reviews name them by title).
 */
export const CONFIG_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  title: "Scraper",
  properties: {
    slots: { type: "integer", minimum: 0, maximum: 64, default: 1, title: "Slots", description: "Concurrent slots this worker runs." },
    mode: { type: "string", enum: ["fast", "thorough", "stealth"], default: "fast", title: "Mode" },
    headless: { type: "boolean", default: true, title: "Headless browser" },
  },
} satisfies JsonObject;

/** Seeding through the backend package, bound to one test's prefix. */
export class Seeder {
  constructor(
    readonly backend: Backend,
    readonly prefix: string,
  ) {}

  /** A name of this test: `<prefix><base>`. */
  name(base: string): string {
    return `${this.prefix}${base}`;
  }

  /** Catalog entry (JSON Schemas) for an automation type. */
  async automation(type: string, schemas: { config?: JsonObject | null; task_payload?: JsonObject | null; output?: JsonObject | null } = {}): Promise<void> {
    await this.backend.catalogSet(type, JSON.stringify({ config: schemas.config ?? null, output: schemas.output ?? null, task_payload: schemas.task_payload ?? null }));
  }

  /** Registers workers of a type with their state, config, stats and history, concurrently. */
  async workers(type: string, seeds: WorkerSeed[]): Promise<void> {
    const now = Date.now() / 1000;
    const b = this.backend;
    await Promise.all(
      seeds.map(async (w) => {
        await b.workerRegister(type, w.id, w.hardware ?? { hostname: `${w.id}.e2e.internal`, cpus: 4 });
        await Promise.all([
          w.config ? b.workerSetConfig(type, w.id, w.config) : Promise.resolve(),
          b.workerSetState(type, w.id, w.state ?? "RUNNING", w.lastError ?? null, now - (w.seenAgo ?? 0)),
          w.stats ? b.workerSetStats(type, w.id, w.stats) : Promise.resolve(),
          ...(w.history ?? []).map(([ago, frame]) => b.workerStatsPush(type, w.id, now - ago, { ts: now - ago, ...frame })),
        ]);
      }),
    );
  }

  /**
   * An automation `<prefix><base>` with CONFIG_SCHEMA (or `schema`) in the catalog and these
   * workers registered; answers its name.
   */
  async configurable(base: string, workers: WorkerSeed[], schema: JsonObject = CONFIG_SCHEMA): Promise<string> {
    const type = this.name(base);
    await this.automation(type, { config: schema });
    await this.workers(type, workers);
    return type;
  }

  /** A heartbeat of these workers now (RUNNING, no error): online again after a long step of a test. */
  async heartbeat(type: string, ids: string[]): Promise<void> {
    const now = Date.now() / 1000;
    await Promise.all(ids.map((id) => this.backend.workerSetState(type, id, "RUNNING", null, now)));
  }

  /** A task body as Fleet's queue holds it. */
  static task(id: string, payload: unknown, extra: JsonObject = {}): string {
    return JSON.stringify({ id, payload, ...extra });
  }
}

export interface TestFixtures {
  /** Unique per test, safe in every Fleet name (`e2e-<worker>-<random>-`). */
  prefix: string;
  /** Seeds through the backend with this test's prefix. */
  seed: Seeder;
}

export interface WorkerFixtures {
  /** Connected to E2E_REDIS_URL, the Redis behind the console's web server. */
  backend: Backend;
}

/**
 * Removes every key whose name holds `prefix`, and the prefix's entries in the two shared
 * structures (`wkrs:all`, `fleet:catalog`): SCAN pages, each deleted in one call.
 */
export async function purgePrefix(backend: Backend, prefix: string): Promise<void> {
  if (!(backend instanceof RedisBackend)) return;
  await backend.health(); // connects a lazily connected client
  const r = backend.client;
  let cursor = "0";
  do {
    const [next, found] = await r.scan(cursor, "MATCH", `*${prefix}*`, "COUNT", 1000);
    if (found.length > 0) await r.unlink(...found);
    cursor = next;
  } while (cursor !== "0");
  cursor = "0";
  do {
    const [next, members] = await r.sscan("wkrs:all", cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    if (members.length > 0) await r.srem("wkrs:all", ...members);
    cursor = next;
  } while (cursor !== "0");
  cursor = "0";
  do {
    const [next, flat] = await r.hscan("fleet:catalog", cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    const fields = flat.filter((_, i) => i % 2 === 0);
    if (fields.length > 0) await r.hdel("fleet:catalog", ...fields);
    cursor = next;
  } while (cursor !== "0");
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  backend: [
    async ({}, use) => {
      const url = process.env.E2E_REDIS_URL;
      if (!url) throw new Error("E2E_REDIS_URL is not set");
      // The tests' own client seeds and reads, it is not the console under test: a command may
      // take longer than the console's 1.5 s on a loaded machine (1,100 workers seeded at once
      // timed out there), so it waits as long as the tests' guards do.
      const backend = backendFromUrl(url, { commandTimeoutMs: 30_000, connectTimeoutMs: 10_000 });
      try {
        await use(backend);
      } finally {
        await backend.close();
      }
    },
    { scope: "worker" },
  ],
  prefix: async ({ backend }, use, testInfo) => {
    const prefix = `e2e-${testInfo.workerIndex}-${randomBytes(4).toString("hex")}-`;
    await use(prefix);
    await purgePrefix(backend, prefix);
  },
  seed: async ({ backend, prefix }, use) => {
    await use(new Seeder(backend, prefix));
  },
});

export { expect };

/** Where tests save screenshots for people to look at (gitignored). */
export function screenshotPath(name: string): string {
  return new URL(`./screenshots/${name}.png`, import.meta.url).pathname;
}

/** Path segment as the console's URLs encode it. */
export const enc = encodeURIComponent;

/**
 * The newest `n` entries of the console's audit trail, newest first, read as Python reads
 * them: the trail is shared by every test, and an entry of a change to a Python worker's
 * config holds bare `NaN` / `Infinity` tokens, which JSON.parse refuses. An entry that is no
 * JSON object at all fails the test.
 */
export async function auditEntries(backend: Backend, n: number): Promise<Array<Record<string, any>>> {
  const { items } = await backend.auditRange(0, n);
  return items.map((b) => {
    const read = parseJsonBytes(b);
    if (!read.ok || !isJsonObject(read.value)) throw new Error(`an audit entry is not a JSON object: ${b.toString("utf8").slice(0, 200)}`);
    return read.value as Record<string, any>;
  });
}

/** Waits until the tab's live event stream is connected (bus frames are not replayed). */
export async function waitForLive(page: Page): Promise<void> {
  await expect(page.getByRole("status", { name: "Live updates: live" })).toBeVisible();
}

/**
 * A config change made through the console's API, as a person's save is (so it is in the audit
 * trail): a merge patch at generation `gen`, or, with `fleet`, a rollout to every worker of the
 * type. Fails the test unless it answers 200.
 */
export async function changeConfig(
  request: APIRequestContext,
  type: string,
  target: { worker: string; gen: number } | { fleet: true },
  patch: JsonObject,
  query = "",
): Promise<void> {
  const res =
    "fleet" in target
      ? await request.patch(`/api/v1/automations/${enc(type)}/config?skip_unchanged=true${query ? `&${query}` : ""}`, { data: patch })
      : await request.patch(`/api/v1/workers/${enc(type)}/${enc(target.worker)}/config${query ? `?${query}` : ""}`, { data: patch, headers: { "If-Match": `"${target.gen}"` } });
  expect(res.status(), await res.text()).toBe(200);
}

/** The two sizes every page is checked at. */
export const SIZES = [
  { label: "desktop", width: 1440, height: 900 },
  { label: "phone", width: 390, height: 844 },
] as const;

export const SCHEMES = ["light", "dark"] as const;

/** Fails with one line per serious or critical axe violation: rule, impact, help and the elements. */
export async function expectAxeClean(page: Page, where: string, include?: string): Promise<void> {
  let builder = new AxeBuilder({ page });
  if (include) builder = builder.include(include);
  const results = await builder.analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = bad.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n` +
      v.nodes
        .slice(0, 8)
        .map((n) => `    ${n.target.join(" ")}  ${n.html.slice(0, 160)}${n.failureSummary ? `\n      ${n.failureSummary.replace(/\n/g, " ")}` : ""}`)
        .join("\n"),
  );
  expect(report, `axe: serious or critical violations on ${where}`).toEqual([]);
}

/** Every "Loading…" status gone (LoadingState, role=status). */
export async function waitUntilLoaded(page: Page): Promise<void> {
  await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);
}

/**
 * The page as it is now, at both sizes and in both colour schemes (the system preference, as
 * a person's browser says it): `check` (if any), axe, and a full-page screenshot
 * `<shot>-<size>-<scheme>` for each. Ends at desktop size, light.
 */
export async function atEveryLook(
  page: Page,
  where: string,
  shot: string,
  check?: (look: { size: (typeof SIZES)[number]; scheme: (typeof SCHEMES)[number] }) => Promise<void>,
): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      await expect(page.locator("html")).toHaveClass(scheme === "dark" ? /\bdark\b/ : /^(?!.*\bdark\b)/);
      await waitUntilLoaded(page);
      await check?.({ size, scheme });
      await expectAxeClean(page, `${where} at ${size.label}, ${scheme}`);
      await page.screenshot({ path: screenshotPath(`${shot}-${size.label}-${scheme}`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(SIZES[0]);
}
