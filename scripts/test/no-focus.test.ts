// `.only` is refused locally too, by every test runner of the workspace: vitest allows a focused
// test unless `allowOnly: false` (its default follows CI), Playwright unless `forbidOnly: true`.
// A package added without the setting would let a stray `.only` silently skip the rest of its
// tests on a developer's machine; this walks every package that owes a report and reads its
// config as the runner does.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { describe, expect, it } from "vitest";

import { expectedReports } from "../sum-test-reports.mjs";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const packages = (expectedReports(REPO, {}) as Array<{ pkg: string; kind: string }>).filter((r) => r.kind !== "gates");

const configOf = (dir: string, base: string) => ["ts", "mts", "js", "mjs"].map((ext) => path.join(dir, `${base}.config.${ext}`)).find((f) => existsSync(f));

describe("focused tests are refused in every package", () => {
  it("finds the packages (the vitest ones and the Playwright one)", () => {
    expect(packages.filter((p) => p.kind === "vitest").map((p) => p.pkg)).toEqual(expect.arrayContaining(["apps/web", "packages/backend", "packages/schema", "scripts"]));
    expect(packages.filter((p) => p.kind === "playwright").map((p) => p.pkg)).toEqual(["e2e"]);
  });

  for (const { pkg, kind } of packages) {
    it(`${pkg}: ${kind === "vitest" ? "vitest.config allowOnly: false" : "playwright.config forbidOnly: true"}`, async () => {
      const dir = path.join(REPO, pkg);
      const file = configOf(dir, kind);
      expect(file, `${pkg} has a ${kind}.config (without one, ${kind}'s defaults allow .only locally)`).toBeDefined();
      const saved = process.env.E2E_REDIS_URL;
      // the Playwright config refuses to load without the browser tests' Redis; it is only read here
      process.env.E2E_REDIS_URL ??= "redis://127.0.0.1:1/3";
      try {
        const config = ((await import(pathToFileURL(file!).href)) as { default: { test?: { allowOnly?: unknown }; forbidOnly?: unknown } }).default;
        if (kind === "vitest") expect(config.test?.allowOnly, `${pkg}/vitest.config test.allowOnly`).toBe(false);
        else expect(config.forbidOnly, `${pkg}/playwright.config forbidOnly`).toBe(true);
      } finally {
        if (saved === undefined) delete process.env.E2E_REDIS_URL;
        else process.env.E2E_REDIS_URL = saved;
      }
    });
  }
});
