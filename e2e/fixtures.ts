// Test fixtures: a backend on the same Redis the console under test reads, a unique name
// prefix per test, and seeding helpers, so tests seed their own data through the backend
// (never the UI) and never see each other's. Everything named with the test's prefix is
// removed from Redis when the test ends, so a test can run alone, in any order, and the
// pages of the next test show only that test's data.
import { randomBytes } from "node:crypto";

import { test as base, expect, type Page } from "@playwright/test";

import type { Backend, JsonObject } from "@fleet/backend";
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
      const backend = backendFromUrl(url);
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

/** Waits until the tab's live event stream is connected (bus frames are not replayed). */
export async function waitForLive(page: Page): Promise<void> {
  await expect(page.getByRole("status", { name: "Live updates: live" })).toBeVisible();
}
