// scripts/sum-test-reports.mjs against fixture workspaces: which reports it demands, and
// that the closing line counts every reason for a red run as failed.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { PY_REFERENCE_SKIP as HELPER_PY_REFERENCE_SKIP, pyReferenceSuite } from "@fleet/backend/testing/py-reference";
import { afterEach, describe, expect, it } from "vitest";

import { GATES, PY_REFERENCE_SKIP, expectedReports, sumReports } from "../sum-test-reports.mjs";

const SCRIPTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const REPO = path.resolve(SCRIPTS, "..");
const SUMMER = path.join(SCRIPTS, "sum-test-reports.mjs");
const RUN_GATES = path.join(SCRIPTS, "run-gates.mjs");

// What a clone without ../shared/spec titles a skipped Python-reference suite.
const PY_TITLE = pyReferenceSuite({}, "/nonexistent/repo").title("Python writes, TypeScript reads");

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A workspace like the real one: two vitest packages, one without tests, a Playwright one. */
function workspace(): string {
  const root = mkdtempSync(path.join(tmpdir(), "sum-reports-"));
  dirs.push(root);
  write(path.join(root, "pnpm-workspace.yaml"), "packages:\n  - apps/*\n  - packages/*\n  - e2e # browser tests\nengineStrict: true\n");
  for (const pkg of ["apps/web", "packages/backend", "packages/docs", "e2e"]) write(path.join(root, pkg, "package.json"), "{}");
  write(path.join(root, "apps/web/src/a.test.ts"), "");
  write(path.join(root, "packages/backend/test/b.test.ts"), "");
  write(path.join(root, "packages/docs/src/index.ts"), ""); // no tests: owes no report
  write(path.join(root, "packages/docs/node_modules/x/y.test.js"), ""); // a dependency's tests do not count
  write(path.join(root, "e2e/playwright.config.ts"), "");
  write(path.join(root, "e2e/tests/home.spec.ts"), "");
  return root;
}

type Status = "passed" | "failed" | "skipped" | "todo";
interface T {
  title: string;
  status: Status;
  suite?: string;
}

/** A vitest JSON report (the fields vitest 4 writes and the summer reads) of one file. */
function vitest(tests: T[], file: { status?: "passed" | "failed"; message?: string } = {}) {
  const n = (s: Status) => tests.filter((t) => t.status === s).length;
  const failed = n("failed") > 0 || file.status === "failed";
  return {
    numTotalTests: tests.length,
    numPassedTests: n("passed"),
    numFailedTests: n("failed"),
    numPendingTests: n("skipped"),
    numTodoTests: n("todo"),
    success: !failed,
    testResults: [
      {
        name: "/repo/pkg/a.test.ts",
        status: failed ? "failed" : "passed",
        message: file.message ?? "",
        assertionResults: tests.map((t) => ({
          ancestorTitles: t.suite ? [t.suite] : [],
          title: t.title,
          fullName: t.suite ? `${t.suite} ${t.title}` : t.title,
          status: t.status,
          failureMessages: t.status === "failed" ? ["AssertionError"] : [],
        })),
      },
    ],
  };
}

/** A Playwright JSON report: `unexpected` failed tests, `skipped` titles, global errors. */
function playwright(opts: { passed?: number; failed?: number; skipped?: string[]; errors?: string[] } = {}) {
  const { passed = 0, failed = 0, skipped = [], errors = [] } = opts;
  const spec = (title: string, status: string, result: string) => ({ title, tests: [{ status, results: [{ status: result }] }] });
  return {
    stats: { expected: passed, unexpected: failed, flaky: 0, skipped: skipped.length },
    errors: errors.map((message) => ({ message })),
    suites: [
      {
        title: "home.spec.ts",
        specs: [
          ...Array.from({ length: passed }, (_, i) => spec(`ok ${i}`, "expected", "passed")),
          ...Array.from({ length: failed }, (_, i) => spec(`bad ${i}`, "unexpected", "failed")),
          ...skipped.map((t) => spec(t, "skipped", "skipped")),
        ],
        suites: [],
      },
    ],
  };
}

const pass = (k: number): T[] => Array.from({ length: k }, (_, i) => ({ title: `t${i}`, status: "passed" as const }));

function green(root: string): void {
  write(path.join(root, "apps/web/test-results/vitest.json"), JSON.stringify(vitest(pass(3))));
  write(path.join(root, "packages/backend/test-results/vitest.json"), JSON.stringify(vitest(pass(2))));
  write(path.join(root, "e2e/test-results/results.json"), JSON.stringify(playwright({ passed: 4 })));
}

const sum = (root: string, env: NodeJS.ProcessEnv = {}) => sumReports(root, env);

describe("the reports a run must leave", () => {
  it("are derived from the workspace: one per package with test files, Playwright's for the package with its config", () => {
    const root = workspace();
    expect(expectedReports(root, {}).map((r: { pkg: string; kind: string; file: string }) => [r.pkg, r.kind, path.relative(root, r.file)])).toEqual([
      ["apps/web", "vitest", "apps/web/test-results/vitest.json"],
      ["packages/backend", "vitest", "packages/backend/test-results/vitest.json"],
      ["e2e", "playwright", "e2e/test-results/results.json"],
    ]);
  });

  it("follow E2E_OUTPUT_DIR as the Playwright config does (absolute, or relative to the e2e package)", () => {
    const root = workspace();
    const e2e = (env: NodeJS.ProcessEnv) => expectedReports(root, env).find((r: { kind: string }) => r.kind === "playwright")!.file;
    expect(e2e({ E2E_OUTPUT_DIR: "/tmp/me-e2e" })).toBe("/tmp/me-e2e/results.json");
    expect(e2e({ E2E_OUTPUT_DIR: "out" })).toBe(path.join(root, "e2e/out/results.json"));
    expect(e2e({ E2E_OUTPUT_DIR: "" })).toBe(path.join(root, "e2e/test-results/results.json"));
  });

  it("in this repository: every package with tests, this one included, and the gates", () => {
    expect(expectedReports(REPO, {}).map((r: { pkg: string }) => r.pkg)).toEqual(
      expect.arrayContaining([".", "apps/web", "packages/backend", "packages/schema", "packages/worker", "e2e", "scripts"]),
    );
    expect(GATES).toEqual(["lint", "format:check", "typecheck"]);
    const scripts = (JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    for (const gate of GATES) expect(scripts[gate], `root package.json script ${gate}`).toBeTypeOf("string");
  });
});

describe("the gates (lint, format check, typecheck)", () => {
  /** The fixture workspace with root scripts: the gates it defines. */
  function withGates(scripts: Record<string, string>): string {
    const root = workspace();
    write(path.join(root, "package.json"), JSON.stringify({ name: "fixture", private: true, scripts }));
    green(root);
    return root;
  }
  const gatesReport = (root: string, gates: unknown[]) => write(path.join(root, "test-results/gates.json"), JSON.stringify({ gates }));

  it("are owed a report when the root package.json defines them, and count one test each", () => {
    const root = withGates({ lint: "x", typecheck: "y" });
    expect(expectedReports(root, {})[0]).toEqual({ pkg: ".", kind: "gates", file: path.join(root, "test-results/gates.json") });
    gatesReport(root, [
      { name: "lint", status: "passed", exitCode: 0 },
      { name: "typecheck", status: "passed", exitCode: 0 },
    ]);
    expect(sum(root).line).toBe("tests: 11 passed, 0 failed, 0 skipped");
  });

  it("count a failed gate, a defined gate missing from the report, and a missing report as failed", () => {
    const root = withGates({ lint: "x", "format:check": "y", typecheck: "z" });
    gatesReport(root, [
      { name: "lint", status: "failed", exitCode: 1 },
      { name: "typecheck", status: "passed", exitCode: 0 },
    ]);
    const r = sum(root);
    expect(r.line).toBe("tests: 10 passed, 2 failed, 0 skipped");
    expect(r.ok).toBe(false);
    expect(r.details.join("\n")).toMatch(/gate lint failed/);
    expect(r.details.join("\n")).toMatch(/gate format:check did not run/);
    rmSync(path.join(root, "test-results/gates.json"));
    expect(sum(root).line).toBe("tests: 9 passed, 1 failed, 0 skipped");
  });

  it("run-gates.mjs runs every defined gate even after a failure, writes the report and exits 1", () => {
    const root = withGates({ lint: 'node -e "process.exit(3)"', typecheck: 'node -e ""' });
    const res = spawnSync(process.execPath, [RUN_GATES, root], { encoding: "utf8", env: { PATH: process.env.PATH }, timeout: 60_000 });
    expect(res.status, res.stderr).toBe(1);
    const report = JSON.parse(readFileSync(path.join(root, "test-results/gates.json"), "utf8")) as { gates: Array<{ name: string; status: string; exitCode: number }> };
    expect(report.gates.map((g) => [g.name, g.status, g.exitCode])).toEqual([
      ["lint", "failed", 3],
      ["typecheck", "passed", 0],
    ]);
    expect(sum(root).line).toBe("tests: 10 passed, 1 failed, 0 skipped");
  }, 60_000);
});

describe("the closing line", () => {
  it("sums a green run exactly", () => {
    const root = workspace();
    green(root);
    const r = sum(root);
    expect(r.line).toBe("tests: 9 passed, 0 failed, 0 skipped");
    expect(r.ok).toBe(true);
  });

  it("counts a missing report as 1 failed and names it", () => {
    const root = workspace();
    green(root);
    rmSync(path.join(root, "packages/backend/test-results/vitest.json"));
    const r = sum(root);
    expect(r.line).toBe("tests: 7 passed, 1 failed, 0 skipped");
    expect(r.ok).toBe(false);
    expect(r.details.join("\n")).toMatch(/packages\/backend\/test-results\/vitest\.json .*missing.*counted as 1 failed/);
  });

  it("counts every missing report: a run where no tier ran reads 3 failed, not 0", () => {
    const r = sum(workspace());
    expect(r.line).toBe("tests: 0 passed, 3 failed, 0 skipped");
    expect(r.ok).toBe(false);
  });

  it("counts an empty, an unparsable and a foreign report as 1 failed each", () => {
    const root = workspace();
    green(root);
    write(path.join(root, "apps/web/test-results/vitest.json"), "");
    write(path.join(root, "packages/backend/test-results/vitest.json"), '{"numTotalTests": 2, "testRes');
    write(path.join(root, "e2e/test-results/results.json"), '{"hello": 1}');
    const r = sum(root);
    expect(r.line).toBe("tests: 0 passed, 3 failed, 0 skipped");
    const text = r.details.join("\n");
    expect(text).toMatch(/apps\/web.*empty file/);
    expect(text).toMatch(/packages\/backend.*unreadable/);
    expect(text).toMatch(/e2e.*not a Playwright JSON report/);
  });

  it("counts a run of no test as 1 failed (vitest and Playwright)", () => {
    const root = workspace();
    green(root);
    write(path.join(root, "apps/web/test-results/vitest.json"), JSON.stringify({ ...vitest([]), testResults: [] }));
    write(path.join(root, "e2e/test-results/results.json"), JSON.stringify(playwright()));
    const r = sum(root);
    expect(r.line).toBe("tests: 2 passed, 2 failed, 0 skipped");
    expect(r.details.filter((d: string) => d.includes("ran no test"))).toHaveLength(2);
  });

  it("counts failed tests, and a file that failed outside any test as 1", () => {
    const root = workspace();
    green(root);
    write(path.join(root, "apps/web/test-results/vitest.json"), JSON.stringify(vitest([...pass(2), { title: "x", status: "failed" }, { title: "y", status: "failed" }])));
    write(path.join(root, "packages/backend/test-results/vitest.json"), JSON.stringify(vitest([], { status: "failed", message: "Cannot find module ./gone" })));
    const r = sum(root);
    expect(r.line).toBe("tests: 6 passed, 3 failed, 0 skipped");
    expect(r.details.join("\n")).toContain("Cannot find module ./gone");
  });

  it("counts the tests of a file whose beforeAll failed (vitest reports them skipped) as failed", () => {
    const root = workspace();
    green(root);
    const tests: T[] = [
      { title: "a", status: "skipped" },
      { title: "b", status: "skipped" },
    ];
    write(path.join(root, "apps/web/test-results/vitest.json"), JSON.stringify(vitest(tests, { status: "failed", message: "hook boom" })));
    expect(sum(root).line).toBe("tests: 6 passed, 2 failed, 0 skipped");
  });

  it("counts a skipped or todo test as failed", () => {
    const root = workspace();
    green(root);
    write(path.join(root, "apps/web/test-results/vitest.json"), JSON.stringify(vitest([...pass(1), { title: "later", status: "skipped" }, { title: "some day", status: "todo" }])));
    const r = sum(root);
    expect(r.line).toBe("tests: 7 passed, 2 failed, 0 skipped");
    expect(r.ok).toBe(false);
    expect(r.details.join("\n")).toMatch(/later .*skipped .*no test may be skipped.*counted as failed/);
  });

  it("allows the one skip: a Python-reference suite in a clone without the reference", () => {
    const root = workspace();
    green(root);
    const tests: T[] = [...pass(1), { suite: PY_TITLE, title: "reads workers", status: "skipped" }, { suite: PY_TITLE, title: "reads queues", status: "skipped" }];
    write(path.join(root, "packages/backend/test-results/vitest.json"), JSON.stringify(vitest(tests)));
    const r = sum(root);
    expect(r.line).toBe("tests: 8 passed, 0 failed, 2 skipped");
    expect(r.ok).toBe(true);
    expect(r.details.join("\n")).toContain("2 skipped: needs the upstream Python reference backend.py");
  });

  it("refuses even that skip with FLEET_REQUIRE_PY_REFERENCE=1 (CI)", () => {
    const root = workspace();
    green(root);
    write(path.join(root, "packages/backend/test-results/vitest.json"), JSON.stringify(vitest([...pass(1), { suite: PY_TITLE, title: "reads workers", status: "skipped" }])));
    const r = sum(root, { FLEET_REQUIRE_PY_REFERENCE: "1" });
    expect(r.line).toBe("tests: 8 passed, 1 failed, 0 skipped");
    expect(r.details.join("\n")).toContain("FLEET_REQUIRE_PY_REFERENCE=1");
  });

  it("does not take a mere mention of Python for the allowed skip", () => {
    const root = workspace();
    green(root);
    write(path.join(root, "packages/backend/test-results/vitest.json"), JSON.stringify(vitest([{ suite: "Python writes, TypeScript reads", title: "x", status: "skipped" }])));
    expect(sum(root).line).toBe("tests: 7 passed, 1 failed, 0 skipped");
  });

  it("counts Playwright's skipped tests and errors outside any test as failed", () => {
    const root = workspace();
    green(root);
    write(path.join(root, "e2e/test-results/results.json"), JSON.stringify(playwright({ passed: 2, failed: 1, skipped: ["flaky one"], errors: ["webServer did not start"] })));
    const r = sum(root);
    expect(r.line).toBe("tests: 7 passed, 3 failed, 0 skipped");
    const text = r.details.join("\n");
    expect(text).toContain("flaky one skipped");
    expect(text).toContain("webServer did not start");
  });

  it("reads the Playwright report where E2E_OUTPUT_DIR sent it, and misses it when it is elsewhere", () => {
    const root = workspace();
    green(root);
    const out = path.join(root, "elsewhere");
    rmSync(path.join(root, "e2e/test-results/results.json"));
    write(path.join(out, "results.json"), JSON.stringify(playwright({ passed: 4 })));
    expect(sum(root, { E2E_OUTPUT_DIR: out }).line).toBe("tests: 9 passed, 0 failed, 0 skipped");
    const r = sum(root);
    expect(r.line).toBe("tests: 5 passed, 1 failed, 0 skipped");
    expect(r.details.join("\n")).toMatch(/e2e\/test-results\/results\.json .*missing/);
  });

  it("counts failed tiers as failures when no report shows one", () => {
    const root = workspace();
    green(root);
    expect(sum(root, { FAILED_TIERS: "1" }).line).toBe("tests: 9 passed, 1 failed, 0 skipped");
    write(path.join(root, "apps/web/test-results/vitest.json"), JSON.stringify(vitest([{ title: "x", status: "failed" }])));
    expect(sum(root, { FAILED_TIERS: "1" }).line).toBe("tests: 6 passed, 1 failed, 0 skipped");
  });

  it("uses the skip reason the Python-reference helper writes", () => {
    expect(PY_REFERENCE_SKIP).toBe(HELPER_PY_REFERENCE_SKIP);
    expect(PY_TITLE).toContain(PY_REFERENCE_SKIP);
  });
});

describe("the command", () => {
  const run = (root: string, env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [SUMMER, root], { encoding: "utf8", env: { PATH: process.env.PATH, ...env } });

  it("prints only the line on stdout, the reasons on stderr, and exits 1 when red", () => {
    const root = workspace();
    green(root);
    rmSync(path.join(root, "apps/web/test-results/vitest.json"));
    const res = run(root);
    expect(res.stdout).toBe("tests: 6 passed, 1 failed, 0 skipped\n");
    expect(res.stderr).toContain("apps/web/test-results/vitest.json (apps/web, vitest): missing");
    expect(res.status).toBe(1);
  });

  it("exits 0 when green", () => {
    const root = workspace();
    green(root);
    const res = run(root);
    expect(res.stdout).toBe("tests: 9 passed, 0 failed, 0 skipped\n");
    expect(res.status).toBe(0);
  });

  it("--expected lists the report files test-all.sh clears before the tiers", () => {
    const root = workspace();
    const res = spawnSync(process.execPath, [SUMMER, "--expected", root], { encoding: "utf8", env: { PATH: process.env.PATH, E2E_OUTPUT_DIR: "/tmp/x" } });
    expect(res.status).toBe(0);
    expect(res.stdout.trim().split("\n")).toEqual([
      path.join(root, "apps/web/test-results/vitest.json"),
      path.join(root, "packages/backend/test-results/vitest.json"),
      "/tmp/x/results.json",
    ]);
  });
});

describe("against a report vitest itself wrote", () => {
  it("counts passes, the allowed skip, a stray skip, a failed hook and a file that does not load", () => {
    const root = workspace();
    green(root);
    // a package of the fixture workspace with real test files, run by this repository's vitest
    const pkg = path.join(root, "apps/web");
    mkdirSync(path.join(pkg, "node_modules"), { recursive: true });
    symlinkSync(path.join(SCRIPTS, "node_modules", "vitest"), path.join(pkg, "node_modules", "vitest"));
    write(path.join(pkg, "vitest.config.mjs"), "export default { test: { include: ['src/**/*.test.mjs'] } };\n");
    write(
      path.join(pkg, "src/a.test.mjs"),
      `import { beforeAll, describe, it } from "vitest";
       it("passes", () => {});
       describe.skipIf(true)(${JSON.stringify(PY_TITLE)}, () => { it("needs python", () => {}); });
       it.skip("stray skip", () => {});
       describe("hooked", () => { beforeAll(() => { throw new Error("hook boom"); }); it("never runs", () => {}); });
      `,
    );
    write(path.join(pkg, "src/b.test.mjs"), `throw new Error("does not load");\n`);
    const res = spawnSync(process.execPath, [path.join(pkg, "node_modules/vitest/vitest.mjs"), "run", "--reporter=json", "--outputFile.json=test-results/vitest.json"], {
      cwd: pkg,
      encoding: "utf8",
      env: { PATH: process.env.PATH, CI: "1" },
      timeout: 60_000,
    });
    expect(res.status, res.stderr).toBe(1);
    const r = sum(root);
    // apps/web: 1 passed, 1 allowed skip, stray skip + never runs + b.test.mjs failed
    expect(r.line).toBe("tests: 7 passed, 3 failed, 1 skipped");
    expect(r.details.join("\n")).toContain("does not load");
  }, 60_000);
});
