// The table of test Redis databases (test/support/redis-dbs.ts) against the repository: one
// database per suite, every entry a real file that asks for its own, and no suite choosing a
// database outside the table.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

import { TEST_REDIS_DATABASES, TEST_REDIS_DBS, testRedisUrl } from "./support/redis-dbs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const SKIP = new Set(["node_modules", "test-results", "playwright-report", "dist", "coverage", "screenshots", ".git", ".turbo"]);
const entries = Object.entries(TEST_REDIS_DBS) as Array<[string, number]>;

/** Every TypeScript/JavaScript source of the workspace, relative to the root. */
function sources(dir = ROOT, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name) || e.name.startsWith(".next")) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) sources(full, out);
    else if (/\.(ts|tsx|mts|mjs)$/.test(e.name)) out.push(path.relative(ROOT, full).split(path.sep).join("/"));
  }
  return out;
}
const files = sources();
const text = new Map(files.map((f) => [f, readFileSync(path.join(ROOT, f), "utf8")]));
const TABLE = "packages/backend/test/support/redis-dbs.ts";

describe("the table of test Redis databases", () => {
  it("gives every suite a database of its own", () => {
    const owners = new Map<number, string[]>();
    for (const [suite, db] of entries) owners.set(db, [...(owners.get(db) ?? []), suite]);
    const shared = [...owners].filter(([, suites]) => suites.length > 1).map(([db, suites]) => `database ${db}: ${suites.join(", ")}`);
    expect(shared, "two suites share a database").toEqual([]);
  });

  it("fits the databases the test server is started with", () => {
    for (const [suite, db] of entries) {
      expect(Number.isInteger(db) && db >= 0 && db < TEST_REDIS_DATABASES, `${suite}: database ${db}`).toBe(true);
    }
    const testAll = readFileSync(path.join(ROOT, "scripts/test-all.sh"), "utf8");
    expect(testAll).toContain(`--databases ${TEST_REDIS_DATABASES} `);
    expect(testAll).toMatch(new RegExp(`E2E_REDIS_URL="redis://127\\.0\\.0\\.1:\\$REDIS_PORT/${TEST_REDIS_DBS["e2e/fixtures.ts"]}"`));
  });

  it("names files that exist, each asking for its own database", () => {
    for (const [suite] of entries) {
      expect(text.has(suite), `${suite} is in the table but does not exist`).toBe(true);
      if (suite === "e2e/fixtures.ts") continue; // E2E_REDIS_URL, from scripts/test-all.sh (checked above)
      expect(text.get(suite), `${suite} never calls testRedisDb/testRedisUrl("${suite}")`).toMatch(new RegExp(`testRedis(Db|Url)\\("${suite.replaceAll(".", "\\.")}"`));
    }
  });

  it("is the only place a suite gets its database from", () => {
    const foreign: string[] = [];
    const own: string[] = [];
    for (const [file, src] of text) {
      if (file === TABLE || file === "packages/backend/test/redis-dbs.test.ts") continue;
      // a suite asks for its own entry, by its own path
      for (const m of src.matchAll(/testRedis(?:Db|Url)\("([^"]+)"/g)) if (m[1] !== file) own.push(`${file} asks for ${m[1]}'s database`);
      // ...and never writes a database number itself
      if (!/REDIS_TEST_URL|BENCH_REDIS_URL|redisTestUrl|describeRoutes/.test(src)) continue;
      for (const m of src.matchAll(/const (?:BENCH_)?DB = \d+|redisTestUrl\(\d+|describeRoutes\(\d+|pathname = ["'`]\/\d+|\.select\(\d+\)/g)) foreign.push(`${file}: ${m[0]}`);
    }
    expect(own).toEqual([]);
    expect(foreign, "a database chosen outside packages/backend/test/support/redis-dbs.ts").toEqual([]);
  });

  it("points REDIS_TEST_URL at a suite's database, and fails without one", () => {
    expect(testRedisUrl("packages/backend/test/contract-redis.test.ts", "redis://:pw@127.0.0.1:6390/0")).toBe(
      `redis://:pw@127.0.0.1:6390/${TEST_REDIS_DBS["packages/backend/test/contract-redis.test.ts"]}`,
    );
    expect(() => testRedisUrl("packages/backend/test/contract-redis.test.ts", "")).toThrow(/REDIS_TEST_URL is not set.*--databases 32/);
  });
});
