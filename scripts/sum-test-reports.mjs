#!/usr/bin/env node
// Sums every vitest JSON report (apps/*, packages/*) and the Playwright JSON report (e2e)
// into one line, `tests: N passed, N failed, N skipped`, the form CI reads.
// Exits 1 when a test failed, a report does not parse, or no test ran at all.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(process.argv[2] ?? ".");
const totals = { passed: 0, failed: 0, skipped: 0 };
let broken = false;

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    console.error(`  ${path.relative(root, file)}: unreadable (${err.message})`);
    broken = true;
    return null;
  }
}

function add(file, passed, failed, skipped) {
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  console.error(`  ${path.relative(root, file)}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
}

const vitestReports = [];
for (const dir of ["apps", "packages"]) {
  const base = path.join(root, dir);
  if (!existsSync(base)) continue;
  for (const pkg of readdirSync(base).sort()) {
    const file = path.join(base, pkg, "test-results", "vitest.json");
    if (existsSync(file)) vitestReports.push(file);
  }
}

console.error("test reports:");
for (const file of vitestReports) {
  const r = readJson(file);
  if (!r) continue;
  // A test file that fails to load has no test results of its own: count it as one failure.
  const brokenFiles = (r.testResults ?? []).filter(
    (f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed"),
  ).length;
  add(
    file,
    r.numPassedTests ?? 0,
    (r.numFailedTests ?? 0) + brokenFiles,
    (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
  );
}

const playwrightReport = path.join(root, "e2e", "test-results", "results.json");
if (existsSync(playwrightReport)) {
  const r = readJson(playwrightReport);
  if (r) {
    const s = r.stats ?? {};
    // Errors outside any test (the web server did not start, a spec did not load).
    const globalErrors = (r.errors ?? []).length;
    add(playwrightReport, (s.expected ?? 0) + (s.flaky ?? 0), (s.unexpected ?? 0) + globalErrors, s.skipped ?? 0);
  }
}

if (vitestReports.length === 0 && !existsSync(playwrightReport)) console.error("  (no report found)");

const failedTiers = Number(process.env.FAILED_TIERS ?? 0);
if (failedTiers > 0 && totals.failed === 0) {
  console.error(`  ${failedTiers} tier(s) failed without a failing test in any report: counted as failures`);
  totals.failed += failedTiers;
}

console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
const ranNothing = totals.passed + totals.failed === 0;
if (ranNothing) console.error("no test ran");
process.exit(totals.failed > 0 || ranNothing || broken ? 1 : 0);
