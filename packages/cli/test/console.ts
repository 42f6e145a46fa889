// A real console for the CLI's tests: `next start` of apps/web's production build (its dist dir
// from NEXT_DIST_DIR, default .next), with API tokens of each role, on a free port, over a real
// Redis (REDIS_TEST_URL, the database of CLI_TEST_DB). No build: the suite fails, saying
// how to make one (CI builds before it tests: scripts/test-all.sh).
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { testRedisDb, testRedisUrl } from "@fleet/backend/testing/redis-dbs";
import type { Role } from "@fleet/schema";

export const WEB_DIR = fileURLToPath(new URL("../../../apps/web/", import.meta.url));
export const CLI_BIN = fileURLToPath(new URL("../bin/fleet.mjs", import.meta.url));
const NEXT_BIN = path.join(WEB_DIR, "node_modules/next/dist/bin/next");

/**
 * The CLI suite's Redis database (its own, @fleet/backend/testing/redis-dbs). The suite never
 * flushes it: every name carries a random prefix, purged when the suite ends.
 */
export const CLI_TEST_DB = testRedisDb("packages/cli/test/console.ts");

export function redisUrl(): string {
  return testRedisUrl("packages/cli/test/console.ts");
}

/** The build `next start` serves, or a failure that says how to make it. */
export function requireBuild(): string {
  const dist = process.env.NEXT_DIST_DIR || ".next";
  const buildId = path.join(WEB_DIR, dist, "BUILD_ID");
  if (!existsSync(buildId)) {
    throw new Error(
      `The console's production build is missing (${buildId} does not exist), and these tests run the CLI against a real ` +
        "`next start`. Build it first: `pnpm build` at the repository's root (scripts/test-all.sh and CI build before they test), " +
        `or \`cd apps/web && NEXT_DIST_DIR=${dist} npx next build\`; NEXT_DIST_DIR names the build to serve (default .next).`,
    );
  }
  return dist;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningConsole {
  url: string;
  /** A fresh random token per role: every CLI run checks that none of them is ever printed. */
  tokens: Record<Role, string>;
  output(): string;
  stop(): Promise<void>;
}

const sha256 = (t: string) => createHash("sha256").update(t).digest("hex");

/**
 * Starts `next start` and resolves once GET /api/v1/health answers (200, or any answer when
 * `healthy` is false: a console whose Redis is down answers 503).
 */
export async function startConsole(opts: { backendUrl: string; healthy?: boolean; env?: Record<string, string> }): Promise<RunningConsole> {
  const dist = requireBuild();
  const port = await freePort();
  const tokens: Record<Role, string> = {
    viewer: `fleet-cli-test-viewer-${randomBytes(12).toString("hex")}`,
    operator: `fleet-cli-test-operator-${randomBytes(12).toString("hex")}`,
    admin: `fleet-cli-test-admin-${randomBytes(12).toString("hex")}`,
  };
  // Only what the console needs: no FLEET_* of the calling shell leaks into it.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    NEXT_DIST_DIR: dist,
    FLEET_BACKEND_URL: opts.backendUrl,
    FLEET_AUTH_TOKENS: (Object.entries(tokens) as Array<[Role, string]>).map(([role, t]) => `cli-${role}:${role}:${sha256(t)}`).join(","),
    ...opts.env,
  };
  const child: ChildProcess = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: WEB_DIR,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString("utf8")));
  const url = `http://127.0.0.1:${port}`;
  const running: RunningConsole = { url, tokens, output: () => output, stop: () => stop(child) };
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`next start exited (${child.exitCode ?? child.signalCode}) before it answered:\n${output.slice(-3000)}`);
    }
    try {
      const res = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      if (res.status === 200 || opts.healthy === false) return running;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`next start did not answer GET /api/v1/health within 180 s:\n${output.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  return new Promise((resolve) => {
    const kill = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }, 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      clearTimeout(kill);
      resolve();
    }
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `fleet` (bin/fleet.mjs) as its own process, as a script would. */
export function runCli(args: string[], env: Record<string, string | undefined>, opts: { input?: string; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`fleet ${args.join(" ")} did not finish within ${opts.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
}

/** Starts `fleet` and hands back the process, for a command that runs until told (tail). */
export function spawnCli(args: string[], env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, [CLI_BIN, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}
