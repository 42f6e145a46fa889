// A console of its own for tests that must break Redis: a private redis-server on a free
// port and a second `next start` (the same production build) pointed at it, so stopping
// that Redis never disturbs the shared one the other tests and the main web server use.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import type { Backend } from "@fleet/backend";
import { backendFromUrl } from "@fleet/backend/url";

const WEB_DIR = process.env.E2E_WEB_DIR
  ? resolve(fileURLToPath(new URL("../../", import.meta.url)), process.env.E2E_WEB_DIR)
  : fileURLToPath(new URL("../../../apps/web/", import.meta.url));
const NEXT_BIN = join(WEB_DIR, "node_modules/next/dist/bin/next");

function freePort(): Promise<number> {
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

/** Resolves when `pattern` shows in the child's output; rejects when it exits first or after `ms`. */
function waitForOutput(child: ChildProcess, pattern: RegExp, ms: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => done(new Error(`${what} did not start within ${ms} ms:\n${seen.slice(-2000)}`)), ms);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (pattern.test(seen)) done();
    };
    const onExit = (code: number | null) => done(new Error(`${what} exited (${code}) before it was ready:\n${seen.slice(-2000)}`));
    function done(err?: Error) {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      if (err) reject(err);
      else resolve();
    }
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", onExit);
  });
}

function stop(child: ChildProcess | null, group = false): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  return new Promise((resolve) => {
    const kill = setTimeout(() => {
      try {
        process.kill(group ? -pid : pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }, 5000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    try {
      process.kill(group ? -pid : pid, "SIGTERM");
    } catch {
      clearTimeout(kill);
      resolve();
    }
  });
}

export class OwnConsole {
  private redis: ChildProcess | null = null;
  private web: ChildProcess | null = null;
  private readonly dir = mkdtempSync(join(tmpdir(), "fleet-e2e-own-redis-"));
  /** Seeds the private Redis. */
  readonly backend: Backend;

  private constructor(
    readonly redisPort: number,
    readonly webPort: number,
  ) {
    this.backend = backendFromUrl(this.redisUrl);
  }

  get redisUrl(): string {
    return `redis://127.0.0.1:${this.redisPort}/0`;
  }

  get baseURL(): string {
    return `http://127.0.0.1:${this.webPort}`;
  }

  static async start(): Promise<OwnConsole> {
    const c = new OwnConsole(await freePort(), await freePort());
    try {
      await c.startRedis();
      await c.startWeb();
    } catch (err) {
      await c.close();
      throw err;
    }
    return c;
  }

  /** (Re)starts the private redis-server on its port, empty (no persistence). */
  async startRedis(): Promise<void> {
    if (this.redis && this.redis.exitCode === null && this.redis.signalCode === null) return;
    const child = spawn(
      "redis-server",
      ["--port", String(this.redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", this.dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    this.redis = child;
    await waitForOutput(child, /Ready to accept connections/, 10_000, "redis-server");
  }

  /** Stops the private redis-server (SIGTERM) and waits until it has exited. */
  async stopRedis(): Promise<void> {
    await stop(this.redis);
    this.redis = null;
  }

  private async startWeb(): Promise<void> {
    // Own process group, so stopping it also stops anything next start forks.
    const child = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(this.webPort), "-H", "127.0.0.1"], {
      cwd: WEB_DIR,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        FLEET_BACKEND_URL: this.redisUrl,
        FLEET_INSECURE_NO_AUTH: "1",
        NEXT_TELEMETRY_DISABLED: "1",
        NODE_ENV: "production",
        PORT: String(this.webPort),
      },
    });
    this.web = child;
    await waitForOutput(child, /Ready in|started server on/i, 60_000, "next start");
  }

  async close(): Promise<void> {
    await this.backend.close().catch(() => undefined);
    await stop(this.web, true);
    this.web = null;
    await this.stopRedis();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
