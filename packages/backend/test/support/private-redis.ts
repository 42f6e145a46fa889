// A redis-server of a test's own, on a free loopback port, in a temp dir, without persistence:
// the one launcher of private Redis servers for every package's tests and the browser tests.
// For tests whose keys are fixed names (the console's own fleet:console:* keys, a named lock),
// tests that must stop Redis (the outage tests), or that need a server set up differently (a
// cluster node, more options through `args`). Stopped by its child process, never by name.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

export interface PrivateRedis {
  port: number;
  /** Its temp dir (removed by stop()). */
  dir: string;
  url(db?: number): string;
  /** Stops the server (SIGTERM) and waits until it exited; its port and dir stay for resume(). */
  pause(): Promise<void>;
  /** Starts it again, empty, on the same port (after pause()). */
  resume(): Promise<void>;
  /** Stops it for good and removes its dir. */
  stop(): Promise<void>;
}

export interface PrivateRedisOptions {
  /** Default redis-server. */
  binary?: string;
  /** More arguments after the port, bind, no-persistence and dir ones; a function gets the dir. */
  args?: string[] | ((dir: string) => string[]);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Whether the server answering on `port` is the process `pid`: INFO's process_id, so that a
 * server someone else started on the port meanwhile (another test run's freePort() picked it
 * too) is never taken for ours. A NOAUTH refusal is answered with `password` (--requirepass).
 */
async function answersAs(port: number, pid: number | undefined, password: string | undefined): Promise<boolean> {
  const r = new Redis({ port, host: "127.0.0.1", password, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 300 });
  r.on("error", () => undefined);
  try {
    await r.connect();
    const info = await r.info("server");
    return pid !== undefined && new RegExp(`^process_id:${pid}\\r?$`, "m").test(info);
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

interface Running {
  child: ChildProcess;
  exited: () => boolean;
}

/** Spawns the server on `port`; null when it did not answer as itself within 20 s (the port was taken, say). */
async function launch(binary: string, port: number, dir: string, extra: string[]): Promise<Running | null> {
  const child: ChildProcess = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, ...extra], {
    stdio: "ignore",
  });
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  child.once("error", () => {
    exited = true;
  });
  const password = extra[extra.indexOf("--requirepass") + 1];
  const ours = () => answersAs(port, child.pid, extra.includes("--requirepass") ? password : undefined);
  // generous: a loaded machine starts a redis-server in seconds, not milliseconds
  const deadline = Date.now() + 20_000;
  while (!exited && Date.now() < deadline && !(await ours())) await new Promise((r) => setTimeout(r, 25));
  if (!exited && (await ours())) return { child, exited: () => exited };
  child.kill("SIGKILL");
  return null;
}

async function halt(r: Running | null): Promise<void> {
  if (!r || r.exited()) return;
  const gone = new Promise<void>((resolve) => r.child.once("exit", () => resolve()));
  r.child.kill("SIGTERM");
  await gone;
}

export async function startPrivateRedis(opts: PrivateRedisOptions | string = {}): Promise<PrivateRedis> {
  const { binary = "redis-server", args = [] } = typeof opts === "string" ? { binary: opts } : opts;
  const dir = mkdtempSync(join(tmpdir(), "fleet-private-redis-"));
  const extra = typeof args === "function" ? args(dir) : args;
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    let running = await launch(binary, port, dir, extra);
    if (running) {
      return {
        port,
        dir,
        url: (db = 0) => `redis://127.0.0.1:${port}/${db}`,
        pause: async () => {
          await halt(running);
          running = null;
        },
        resume: async () => {
          if (running && !running.exited()) return;
          running = await launch(binary, port, dir, extra);
          if (!running) throw new Error(`${binary} did not start again on port ${port}`);
        },
        stop: async () => {
          await halt(running);
          running = null;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    // the port was taken between freePort() and the bind: try another
    if (attempt >= 4) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`could not start ${binary} on a free port`);
    }
  }
}
