// A real Redis Sentinel setup on loopback for tests: one primary, one replica, three
// sentinels (Debian's redis-server and redis-sentinel), each a child process in a temp dir. The
// two servers come from the one private-Redis launcher (./private-redis).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

import { freePort, startPrivateRedis } from "./private-redis";

export interface SentinelSetup {
  /** `redis+sentinel://127.0.0.1:s1,127.0.0.1:s2,127.0.0.1:s3/<name>/<db>` */
  url(db?: number): string;
  masterName: string;
  primaryPort: number;
  replicaPort: number;
  sentinelPorts: number[];
  /** SIGTERMs the primary (Redis 7 lets its replica catch up first) and waits for its exit. */
  stopPrimary(): Promise<void>;
  /** Resolves with the port of the primary the sentinels name now. */
  currentPrimaryPort(): Promise<number>;
  stop(): Promise<void>;
}

async function until<T>(what: string, ms: number, fn: () => Promise<T | null | false | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`sentinel setup: timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function ask<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

export async function startSentinelSetup(masterName = "fleet-test"): Promise<SentinelSetup> {
  const dir = mkdtempSync(join(tmpdir(), "fleet-sentinel-"));
  const children: ChildProcess[] = [];
  const exits = new Map<ChildProcess, Promise<void>>();
  const run = (cmd: string, args: string[]) => {
    const child = spawn(cmd, args, { stdio: "ignore" });
    children.push(child);
    exits.set(child, new Promise((r) => child.once("exit", () => r())));
    return child;
  };
  const primary = await startPrivateRedis();
  const replica = await startPrivateRedis({ args: ["--replicaof", "127.0.0.1", String(primary.port)] }).catch(async (err: unknown) => {
    await primary.stop();
    throw err;
  });
  const primaryPort = primary.port;
  const replicaPort = replica.port;
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  await until("the replica to sync", 60_000, () => ask(replicaPort, async (r) => /master_link_status:up/.test(await r.info("replication"))));
  for (const port of sentinelPorts) {
    const conf = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `dir ${dir}`,
        `sentinel monitor ${masterName} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${masterName} 1000`,
        `sentinel failover-timeout ${masterName} 5000`,
        `sentinel parallel-syncs ${masterName} 1`,
        "",
      ].join("\n"),
    );
    run("redis-sentinel", [conf]);
  }
  // every sentinel sees the replica and the two other sentinels
  for (const port of sentinelPorts) {
    await until(`sentinel ${port} to know its peers`, 60_000, () =>
      ask(port, async (r) => {
        const flat = (await r.call("SENTINEL", "MASTER", masterName)) as string[];
        const info = new Map<string, string>();
        for (let i = 0; i + 1 < flat.length; i += 2) info.set(flat[i]!, flat[i + 1]!);
        return info.get("num-other-sentinels") === "2" && info.get("num-slaves") === "1";
      }),
    );
  }
  const setup: SentinelSetup = {
    url: (db = 0) => `redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(",")}/${masterName}/${db}`,
    masterName,
    primaryPort,
    replicaPort,
    sentinelPorts,
    async stopPrimary() {
      await primary.pause();
    },
    async currentPrimaryPort() {
      return ask(sentinelPorts[0]!, async (r) => Number(((await r.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName)) as string[])[1]));
    },
    async stop() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
      await Promise.all([...exits.values()]);
      await Promise.all([replica.stop(), primary.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return setup;
}
