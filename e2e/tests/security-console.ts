// A `next start` of the production build with an environment of the test's choosing
// (authentication configured, or deliberately not), on a free port. Used by auth.spec.ts
// and the security-*.spec.ts files; the main web server of playwright.config.ts runs with
// FLEET_INSECURE_NO_AUTH=1 and cannot show sign-in.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, scryptSync, randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const WEB_DIR = process.env.E2E_WEB_DIR
  ? resolve(fileURLToPath(new URL("../", import.meta.url)), process.env.E2E_WEB_DIR)
  : fileURLToPath(new URL("../../apps/web/", import.meta.url));
const NEXT_BIN = join(WEB_DIR, "node_modules/next/dist/bin/next");

/** Variables the test runner may carry that would change what is being tested. */
const SCRUBBED = ["FLEET_INSECURE_NO_AUTH", "FLEET_ALLOWED_HOSTS", "FLEET_INSECURE_HTTP_COOKIES", "FLEET_AUTH_USERS", "FLEET_AUTH_TOKENS", "FLEET_AUTH_SECRET", "FLEET_AUTH_PROXY_USER_HEADER", "FLEET_AUTH_PROXY_ROLE_HEADER", "FLEET_AUTH_TRUSTED_PROXIES"];

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => ok(port));
    });
  });
}

/** The format `pnpm hash-password` prints (cheap cost: tests only). */
export function passwordHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 });
  return `scrypt$1024$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export const sha256Hex = (s: string) => createHash("sha256").update(s).digest("hex");

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const k of SCRUBBED) delete out[k];
  return { ...out, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production", ...env };
}

function launch(port: number, host: string | null, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const args = [NEXT_BIN, "start", "-p", String(port), ...(host === null ? [] : ["-H", host])];
  // own process group: stopping it stops anything next start forks
  const child = spawn(process.execPath, args, { cwd: WEB_DIR, detached: true, stdio: ["ignore", "pipe", "pipe"], env: childEnv(env) });
  let seen = "";
  child.stdout?.on("data", (c: Buffer) => (seen += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (seen += c.toString("utf8")));
  return { child, output: () => seen };
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

export interface RunningConsole {
  baseURL: string;
  output: () => string;
  close: () => Promise<void>;
}

/** Starts a console and waits until it answers (Next prints "Ready" before its start-up checks run). */
export async function startConsole(env: Record<string, string>, host: string | null = "127.0.0.1"): Promise<RunningConsole> {
  const port = await freePort();
  const { child, output } = launch(port, host, env);
  const baseURL = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${output().slice(-2000)}`);
    try {
      const res = await fetch(`${baseURL}/api/v1/auth/session`);
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`next start did not answer within 60 s:\n${output().slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { baseURL, output, close: () => stop(child) };
}

/** Starts a console expected to refuse: its exit code and output, or null when it kept running. */
export async function startExpectingExit(env: Record<string, string>, host: string | null, ms = 45_000): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const { child, output } = launch(port, host, env);
  const code = await new Promise<number | null | "running">((done) => {
    const timer = setTimeout(() => done("running"), ms);
    child.once("exit", (c) => {
      clearTimeout(timer);
      done(c);
    });
  });
  if (code === "running") {
    await stop(child);
    return { code: null, output: output() };
  }
  return { code, output: output() };
}
