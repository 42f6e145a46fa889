#!/usr/bin/env node
// The static gates of `pnpm test`: every one of GATES the root package.json defines, run as
// `pnpm run <gate>` (output passed through), each even if an earlier one failed. Writes
// test-results/gates.json, which sum-test-reports.mjs counts (a gate = one test, passed or
// failed), and exits 1 when any gate failed.
//
//   node scripts/run-gates.mjs [ROOT]
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

import { declaredGates, gatesReportFile } from "./sum-test-reports.mjs";

const root = path.resolve(process.argv[2] ?? ".");
const gates = [];
for (const name of declaredGates(root)) {
  console.log(`\n--> gate: pnpm run ${name}`);
  const started = Date.now();
  const r = spawnSync("pnpm", ["run", "--silent", name], { cwd: root, stdio: "inherit" });
  const exitCode = r.status ?? 1;
  const status = exitCode === 0 ? "passed" : "failed";
  console.log(`--> gate ${name}: ${status}${r.error ? ` (${r.error.message})` : exitCode === 0 ? "" : ` (exit ${exitCode})`}`);
  gates.push({ name, status, exitCode, durationMs: Date.now() - started });
}
const file = gatesReportFile(root);
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify({ gates }, null, 2)}\n`);
process.exitCode = gates.every((g) => g.status === "passed") ? 0 : 1;
