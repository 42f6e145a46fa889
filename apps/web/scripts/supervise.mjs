#!/usr/bin/env node
// Runs the console as a child process and makes SIGTERM (and SIGINT) final within a bound:
// the signal is passed on at once, so the server stops taking requests, closes its event
// streams with a retry hint and finishes what it is writing (src/server/shutdown.ts); if it
// has not exited FLEET_SHUTDOWN_GRACE_MS later (default 9,500) it is killed. A server whose
// event loop is stuck cannot run its own handlers: only a process beside it can keep that
// promise. The container image's CMD and `pnpm start` run the server through this.
//
//   node supervise.mjs <command> [args...]
import { spawn } from "node:child_process";

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  console.error("usage: supervise.mjs <command> [args...]");
  process.exit(2);
}
const graceMs = Number(process.env.FLEET_SHUTDOWN_GRACE_MS ?? 9500);
const child = spawn(cmd, args, { stdio: "inherit" });
let killer = null;

const forward = (signal) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  if (killer === null) {
    killer = setTimeout(() => {
      console.error(`supervise: the server did not stop within ${graceMs} ms of ${signal}; killing it`);
      child.kill("SIGKILL");
    }, graceMs);
  }
};
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => forward(signal === "SIGHUP" ? "SIGTERM" : signal));

child.on("error", (err) => {
  console.error(`supervise: cannot run ${cmd}: ${err.message}`);
  process.exit(127);
});
child.on("exit", (code, signal) => {
  if (killer) clearTimeout(killer);
  // a server that stopped on our SIGTERM stopped as asked
  if (signal === "SIGTERM" || signal === "SIGINT" || code === 143 || code === 130) process.exit(0);
  process.exit(code ?? 1);
});
