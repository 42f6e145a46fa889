// A redis-server of a test's own, on a free loopback port, in a temp dir, without persistence.
// For tests whose keys are fixed names (the console's own fleet:console:* keys, a named lock)
// and so cannot share a database with other test files by a random prefix. Stopped by its
// child process, never by name.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

export interface PrivateRedis {
  port: number;
  url(db?: number): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function pong(port: number): Promise<boolean> {
  const r = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 300 });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export async function startPrivateRedis(binary = "redis-server"): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), "fleet-private-redis-"));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], {
      stdio: "ignore",
    });
    let exited = false;
    child.once("exit", () => {
      exited = true;
    });
    const deadline = Date.now() + 5000;
    while (!exited && Date.now() < deadline && !(await pong(port))) await new Promise((r) => setTimeout(r, 25));
    if (!exited && (await pong(port))) {
      return {
        port,
        url: (db = 0) => `redis://127.0.0.1:${port}/${db}`,
        stop: async () => {
          if (!exited) {
            const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
            child.kill("SIGTERM");
            await gone;
          }
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill("SIGKILL");
    // the port was taken between freePort() and the bind: try another
    if (attempt >= 4) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`could not start ${binary} on a free port`);
    }
  }
}
