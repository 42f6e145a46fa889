// The one launcher of consoles of a test's own: a `next start` of the production build (the
// dist dir of NEXT_DIST_DIR, as the main web server of playwright.config.ts) with an environment
// of the test's choosing (authentication configured or deliberately not, a private Redis), on a
// free port. The main web server runs with FLEET_INSECURE_NO_AUTH=1 on the shared Redis and can
// neither show sign-in nor lose its Redis; the auth, security, replica, outage and image tests
// start theirs here. spawnServer() is the process part alone, for a server that is not
// `next start` (the image's standalone server.js).
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes, scryptSync } from "node:crypto";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { freePort } from "@fleet/backend/testing/private-redis";

export { freePort };

const WEB_DIR = process.env.E2E_WEB_DIR
  ? resolve(fileURLToPath(new URL("../../", import.meta.url)), process.env.E2E_WEB_DIR)
  : fileURLToPath(new URL("../../../apps/web/", import.meta.url));
const NEXT_BIN = join(WEB_DIR, "node_modules/next/dist/bin/next");

/** Variables the test runner may carry that would change what is being tested. */
const SCRUBBED = [
  "FLEET_INSECURE_NO_AUTH",
  "FLEET_ALLOWED_HOSTS",
  "FLEET_INSECURE_HTTP_COOKIES",
  "FLEET_AUTH_USERS",
  "FLEET_AUTH_TOKENS",
  "FLEET_AUTH_SECRET",
  "FLEET_AUTH_PROXY_USER_HEADER",
  "FLEET_AUTH_PROXY_ROLE_HEADER",
  "FLEET_AUTH_TRUSTED_PROXIES",
];

/** The format `pnpm hash-password` prints (cheap cost: tests only). */
export function passwordHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 });
  return `scrypt$1024$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export const sha256Hex = (s: string) => createHash("sha256").update(s).digest("hex");

export interface ServerProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
  /** Its exit code once it exited. */
  exited: Promise<number | null>;
  /** SIGTERM to its process group, SIGKILL after 5 s; resolves once it exited. */
  stop: () => Promise<void>;
}

/**
 * Spawns a server in a process group of its own (stopping it stops anything it forks). `env` is
 * its whole environment when `inheritEnv` is false, else added to the runner's.
 */
export function spawnServer(opts: { command: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv; inheritEnv?: boolean }): ServerProcess {
  const env = opts.inheritEnv === false ? opts.env : { ...process.env, ...opts.env };
  const child = spawn(opts.command === "node" ? process.execPath : opts.command, opts.args, { cwd: opts.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env });
  let seen = "";
  child.stdout?.on("data", (c: Buffer) => (seen += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (seen += c.toString("utf8")));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, output: () => seen, exited, stop: () => stop(child) };
}

/**
 * Kills the process group a spawnServer process leads, at once (SIGKILL): the process and every
 * child it started. Killing only the leader orphans its children (the image's supervisor's
 * server lived on, its stdout gone, spinning a core for the rest of the run). Resolves once
 * no process of the group is left.
 */
export async function killGroup(run: ServerProcess): Promise<void> {
  const pid = run.child.pid;
  if (pid === undefined) return;
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    /* gone */
  }
  for (let i = 0; i < 200 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
  if (alive()) throw new Error(`process group ${pid} still has processes 10 s after SIGKILL`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  return new Promise((done) => {
    const kill = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }, 5000);
    child.once("exit", () => {
      clearTimeout(kill);
      done();
    });
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      clearTimeout(kill);
      done();
    }
  });
}

function nextStart(port: number, host: string | null, env: Record<string, string>): ServerProcess {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const k of SCRUBBED) delete inherited[k];
  return spawnServer({
    command: process.execPath,
    args: [NEXT_BIN, "start", "-p", String(port), ...(host === null ? [] : ["-H", host])],
    cwd: WEB_DIR,
    // FLEET_OFFLINE_AFTER_SECONDS as the main server's (playwright.config.ts): a worker seeded live stays live on a loaded machine
    env: { ...inherited, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production", FLEET_OFFLINE_AFTER_SECONDS: "300", ...env },
    inheritEnv: false,
  });
}

export interface RunningConsole {
  baseURL: string;
  port: number;
  output: () => string;
  close: () => Promise<void>;
  /** The `next start` process itself (its pipes, its exit). */
  server: ServerProcess;
}

/**
 * Starts a console and waits until it answers GET /api/v1/auth/session with 200 (Next prints
 * "Ready" before its start-up checks run), or fails with its output.
 */
export async function startConsole(env: Record<string, string>, host: string | null = "127.0.0.1"): Promise<RunningConsole> {
  const port = await freePort();
  const server = nextStart(port, host, env);
  const baseURL = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`next start exited (${server.child.exitCode}):\n${server.output().slice(-2000)}`);
    try {
      const res = await fetch(`${baseURL}/api/v1/auth/session`);
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`next start did not answer within 180 s:\n${server.output().slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { baseURL, port, output: server.output, close: server.stop, server };
}

/** Starts a console expected to refuse: its exit code and output, or null when it kept running. */
export async function startExpectingExit(env: Record<string, string>, host: string | null, ms = 45_000): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const server = nextStart(port, host, env);
  const code = await Promise.race([server.exited, new Promise<"running">((r) => setTimeout(() => r("running"), ms).unref())]);
  if (code === "running") {
    await server.stop();
    return { code: null, output: server.output() };
  }
  return { code, output: server.output() };
}
