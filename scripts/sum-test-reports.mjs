#!/usr/bin/env node
// Sums the test reports of every tier into one line, `tests: N passed, N failed, N skipped`,
// the form CI reads. The line itself never reads "0 failed" on a red run:
//
// - The reports that must exist are derived from the workspace (pnpm-workspace.yaml): every
//   package with test files owes one, `<package>/test-results/vitest.json`, or for the
//   Playwright package (a playwright.config.* beside its package.json) `results.json` in
//   `$E2E_OUTPUT_DIR` (default `test-results`, relative to that package, as its config says).
//   A package that drops its `test` script, or a tier that never ran, leaves a report missing.
// - A missing, unreadable or empty report (no test in it) counts 1 failed.
// - A test file that failed outside any test (did not load, a failing beforeAll) counts 1
//   failed unless some test of it already counts.
// - A skipped (or todo) test counts as failed, except the one allowed case: a test that needs
//   the upstream Python reference, skipped because it is absent (a bare clone). Its title
//   carries PY_REFERENCE_SKIP (packages/backend/test/py-reference.ts); with
//   FLEET_REQUIRE_PY_REFERENCE=1 (CI) even that one counts as failed.
// - The static gates (GATES: lint, format check, typecheck), when the root package.json defines
//   them: `test-results/gates.json` at the root, written by run-gates.mjs; each gate counts as one
//   test, passed or failed, and a defined gate missing from the report counts 1 failed.
// - FAILED_TIERS=N (from test-all.sh): tiers whose command failed; counted as N failed when no
//   report shows a failure (a build error, say).
//
// Every reason is printed on stderr. Exits 1 when anything counts as failed or no test ran.
//
//   node scripts/sum-test-reports.mjs [ROOT]              the line (stdout), the details (stderr)
//   node scripts/sum-test-reports.mjs --expected [ROOT]   the report files it will read, one a line
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The skip reason the Python-reference tests put in their title (py-reference.ts). */
export const PY_REFERENCE_SKIP = "needs the upstream Python reference backend.py";

/** The static checks `pnpm test` runs (scripts of the root package.json), in this order. */
export const GATES = ["lint", "format:check", "typecheck"];

/** The gates the root package.json defines. */
export function declaredGates(root) {
  let scripts = {};
  try {
    scripts = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts ?? {};
  } catch {
    // no root package.json: no gates
  }
  return GATES.filter((g) => typeof scripts[g] === "string");
}

export const gatesReportFile = (root) => path.join(root, "test-results", "gates.json");

const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;
const NOT_SOURCE = new Set(["node_modules", "test-results", "playwright-report", "dist", "coverage", "screenshots"]);

/** Workspace package directories, from pnpm-workspace.yaml's `packages:` (`dir` or `dir/*`). */
export function workspacePackages(root) {
  const yaml = readFileSync(path.join(root, "pnpm-workspace.yaml"), "utf8");
  const globs = [];
  let inPackages = false;
  for (const line of yaml.split("\n")) {
    if (/^packages:\s*$/.test(line)) {
      inPackages = true;
      continue;
    }
    if (inPackages) {
      const m = /^\s+-\s+["']?([^"'#]+?)["']?\s*(#.*)?$/.exec(line);
      if (m) globs.push(m[1]);
      else if (/^\S/.test(line)) inPackages = false;
    }
  }
  const dirs = [];
  for (const g of globs) {
    if (g.startsWith("!")) continue;
    if (g.endsWith("/*")) {
      const base = path.join(root, g.slice(0, -2));
      if (!existsSync(base)) continue;
      for (const name of readdirSync(base).sort()) dirs.push(path.join(base, name));
    } else if (!g.includes("*")) dirs.push(path.join(root, g));
    else throw new Error(`pnpm-workspace.yaml: the pattern ${g} is not understood here (only dir and dir/*)`);
  }
  return dirs.filter((d) => existsSync(path.join(d, "package.json")));
}

function hasTestFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || NOT_SOURCE.has(entry.name)) continue;
    if (entry.isDirectory()) {
      if (hasTestFiles(path.join(dir, entry.name))) return true;
    } else if (TEST_FILE.test(entry.name)) return true;
  }
  return false;
}

/** The reports a full run must leave: [{ pkg, kind: "gates" | "vitest" | "playwright", file }]. */
export function expectedReports(root, env = process.env) {
  const out = [];
  if (declaredGates(root).length > 0) out.push({ pkg: ".", kind: "gates", file: gatesReportFile(root) });
  for (const dir of workspacePackages(root)) {
    if (!hasTestFiles(dir)) continue;
    const pkg = path.relative(root, dir);
    const playwright = readdirSync(dir).some((f) => /^playwright\.config\.[cm]?[jt]s$/.test(f));
    if (playwright) {
      // as e2e/playwright.config.ts writes it
      out.push({ pkg, kind: "playwright", file: path.resolve(dir, env.E2E_OUTPUT_DIR || "test-results", "results.json") });
    } else out.push({ pkg, kind: "vitest", file: path.join(dir, "test-results", "vitest.json") });
  }
  return out;
}

const needsPyReference = (titles) => titles.some((t) => typeof t === "string" && t.includes(PY_REFERENCE_SKIP));

/** Why a skipped test counts as failed; null for the one allowed skip. */
function skipProblem(titles, requirePy) {
  if (!needsPyReference(titles)) return "no test may be skipped but the ones that need the Python reference";
  return requirePy ? "FLEET_REQUIRE_PY_REFERENCE=1 requires the Python reference" : null;
}

function readReport(file) {
  if (!existsSync(file)) return { problem: "missing (did its tier or its package's test script run?)" };
  let text;
  try {
    if (!statSync(file).isFile()) return { problem: "not a file" };
    text = readFileSync(file, "utf8");
  } catch (err) {
    return { problem: `unreadable (${err.message})` };
  }
  if (text.trim() === "") return { problem: "empty file" };
  try {
    const json = JSON.parse(text);
    if (json === null || typeof json !== "object") return { problem: "not a JSON object" };
    return { json };
  } catch (err) {
    return { problem: `unreadable (${err.message})` };
  }
}

/** Counts one vitest JSON report; `problem` when it is not a report of a run with tests. */
function countVitest(r, requirePy, say) {
  if (!Array.isArray(r.testResults)) return { problem: "not a vitest JSON report (no testResults)" };
  const c = { passed: 0, failed: 0, skipped: 0 };
  for (const file of r.testResults) {
    const name = file.name ?? "?";
    let failedHere = 0;
    for (const a of file.assertionResults ?? []) {
      const titles = [...(a.ancestorTitles ?? []), a.title, a.fullName];
      if (a.status === "passed") c.passed++;
      else if (a.status === "failed") failedHere++;
      else {
        const problem = skipProblem(titles, requirePy);
        if (problem === null) c.skipped++;
        else {
          failedHere++;
          const why = file.status === "failed" ? "did not run (its file failed)" : `${a.status} (${problem})`;
          say(`${a.fullName ?? a.title} [${path.basename(name)}] ${why}: counted as failed`);
        }
      }
    }
    if (file.status === "failed" && failedHere === 0) {
      failedHere = 1;
      say(`${name}: failed outside any test: ${String(file.message ?? "").split("\n")[0] || "(no message)"}: counted as 1 failed`);
    }
    c.failed += failedHere;
  }
  if (r.success === false && c.failed === 0) {
    c.failed = 1;
    say("the run reports failure though no test failed (an unhandled error?): counted as 1 failed");
  }
  if (c.passed + c.failed + c.skipped === 0) return { problem: "ran no test" };
  return c;
}

/** Every test of a Playwright JSON report's suite tree, with its titles and final status. */
function playwrightTests(suites, parents = []) {
  const out = [];
  for (const s of suites ?? []) {
    const titles = s.title ? [...parents, s.title] : parents;
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const results = t.results ?? [];
        out.push({ titles: [...titles, spec.title], status: t.status, final: results[results.length - 1]?.status });
      }
    }
    out.push(...playwrightTests(s.suites, titles));
  }
  return out;
}

function countPlaywright(r, requirePy, say) {
  if (!r.stats || !Array.isArray(r.suites)) return { problem: "not a Playwright JSON report (no stats or suites)" };
  const s = r.stats;
  const c = { passed: (s.expected ?? 0) + (s.flaky ?? 0), failed: s.unexpected ?? 0, skipped: 0 };
  for (const t of playwrightTests(r.suites)) {
    if (t.status !== "skipped") continue;
    const problem = skipProblem(t.titles, requirePy);
    if (problem === null) c.skipped++;
    else {
      c.failed++;
      say(`${t.titles.join(" › ")} skipped (${problem}): counted as failed`);
    }
  }
  // Errors outside any test (the web server did not start, a spec did not load).
  for (const e of r.errors ?? []) {
    c.failed++;
    say(`error outside any test: ${String(e.message ?? e).split("\n")[0]}: counted as 1 failed`);
  }
  if (c.passed + c.failed + c.skipped === 0) return { problem: "ran no test" };
  return c;
}

/** Counts the gates report: one test per gate the root package.json defines. */
function countGates(r, declared, say) {
  if (!Array.isArray(r.gates)) return { problem: "not a gates report (no gates)" };
  const c = { passed: 0, failed: 0, skipped: 0 };
  for (const name of declared) {
    const g = r.gates.find((x) => x && x.name === name);
    if (!g) {
      c.failed++;
      say(`gate ${name} did not run: counted as failed`);
    } else if (g.status === "passed") c.passed++;
    else {
      c.failed++;
      say(`gate ${name} failed (pnpm run ${name}, exit ${g.exitCode ?? "?"})`);
    }
  }
  if (c.passed + c.failed === 0) return { problem: "ran no gate" };
  return c;
}

/**
 * Sums the reports under `root`. Returns the totals, the detail lines (for stderr) and
 * whether the run is green.
 */
export function sumReports(root, env = process.env) {
  const requirePy = env.FLEET_REQUIRE_PY_REFERENCE === "1";
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const details = [];
  const reports = expectedReports(root, env);
  if (reports.length === 0) details.push("  no package with test files found: nothing to sum");
  for (const { pkg, kind, file } of reports) {
    const rel = file.startsWith(root + path.sep) ? path.relative(root, file) : file;
    const notes = [];
    const say = (line) => notes.push(`    ${line}`);
    const read = readReport(file);
    const counted = read.problem
      ? read
      : kind === "gates"
        ? countGates(read.json, declaredGates(root), say)
        : kind === "vitest"
          ? countVitest(read.json, requirePy, say)
          : countPlaywright(read.json, requirePy, say);
    if (counted.problem) {
      totals.failed += 1;
      details.push(`  ${rel} (${pkg}, ${kind}): ${counted.problem}: counted as 1 failed`);
    } else {
      totals.passed += counted.passed;
      totals.failed += counted.failed;
      totals.skipped += counted.skipped;
      details.push(`  ${rel}: ${counted.passed} passed, ${counted.failed} failed, ${counted.skipped} skipped`);
      if (counted.skipped > 0) {
        details.push(`    ${counted.skipped} skipped: ${PY_REFERENCE_SKIP} (allowed in a bare clone; CI sets FLEET_REQUIRE_PY_REFERENCE=1)`);
      }
    }
    details.push(...notes);
  }
  const failedTiers = Number(env.FAILED_TIERS ?? 0) || 0;
  if (failedTiers > 0 && totals.failed === 0) {
    details.push(`  ${failedTiers} tier(s) failed without a failing test in any report: counted as failures`);
    totals.failed += failedTiers;
  }
  const ranNothing = totals.passed + totals.failed === 0;
  if (ranNothing) details.push("  no test ran");
  const line = `tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`;
  return { totals, details, line, ok: totals.failed === 0 && !ranNothing };
}

function main(argv) {
  const args = argv.slice(2);
  const listOnly = args[0] === "--expected";
  const root = path.resolve((listOnly ? args[1] : args[0]) ?? ".");
  if (listOnly) {
    for (const r of expectedReports(root)) console.log(r.file);
    return 0;
  }
  const { details, line, ok } = sumReports(root);
  console.error("test reports:");
  for (const d of details) console.error(d);
  console.log(line);
  return ok ? 0 : 1;
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  process.exitCode = main(process.argv);
}
