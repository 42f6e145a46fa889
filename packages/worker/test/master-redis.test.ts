// The TypeScript master on real Redis (its own database): one leader among several copies through the
// Fleet lock, hand-over when the leader dies, the catalog replaced when a master takes the
// lead, expired reservations swept; and `pnpm master` as a process that stops on SIGTERM.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Backend } from "@fleet/backend";
import { createRedisBackend } from "@fleet/backend/redis";
import { defineAutomation, encodeTaskBody, runtimeConfigShape, startMaster, type Master } from "../src/index";
import { testRedisUrl } from "@fleet/backend/testing/redis-dbs";
import { uniqueName, waitUntil } from "./helpers";

const here = path.dirname(fileURLToPath(import.meta.url));
const url = testRedisUrl("packages/worker/test/master-redis.test.ts");

const automation = (type: string) => defineAutomation({ type, kind: "batch", config: z.object(runtimeConfigShape), run: async () => undefined });

describe("master on real Redis", () => {
  let backend: Backend;
  const masters: Master[] = [];
  beforeAll(() => {
    backend = createRedisBackend(url);
  });
  afterEach(async () => {
    await Promise.all(masters.splice(0).map((m) => m.stop()));
  });
  afterAll(async () => {
    await backend.close();
  });

  it("of three copies exactly one leads; when it dies another takes over and replaces the catalog", async () => {
    const lockName = uniqueName("master");
    const logs: string[] = [];
    const start = (types: string[]) => startMaster({ backend, automations: types.map(automation), lockName, holdSeconds: 1, sweepIntervalMs: 200, log: (l) => logs.push(l) });
    await backend.catalogSet("left-over", Buffer.from('{"config": null}'));
    const a = await start(["alpha"]);
    const b = await start(["beta"]);
    const c = await start(["beta"]);
    masters.push(a, b, c);
    expect([a, b, c].map((m) => m.isLeader)).toEqual([true, false, false]);
    expect([...(await backend.catalogAll()).keys()]).toEqual(["alpha"]);
    await waitUntil(() => a.sweeps >= 2, 20_000, "the leader to sweep");
    expect(b.sweeps + c.sweeps).toBe(0);

    // the leader dies without releasing: within its hold another copy leads, and only one
    await a.kill();
    await waitUntil(() => b.isLeader || c.isLeader, 20_000, "a follower to take the lead");
    const next = b.isLeader ? b : c;
    // three sweeps (more than two renewals of its 1 s hold) later, still one leader
    const swept = next.sweeps;
    await waitUntil(() => next.sweeps >= swept + 3, 20_000, "the new leader to sweep three times");
    expect([b.isLeader, c.isLeader].filter(Boolean)).toHaveLength(1);
    expect([...(await backend.catalogAll()).keys()]).toEqual(["beta"]);

    // a clean stop hands over at once (the lock is released)
    const leader = b.isLeader ? b : c;
    const other = leader === b ? c : b;
    await leader.stop();
    await other.waitForLead(20_000);
    expect(other.terms).toBe(1);
  });

  it("the leader re-queues expired reservations; a follower never sweeps", async () => {
    const lockName = uniqueName("master");
    const q = uniqueName("mq");
    const { id, body } = encodeTaskBody({ n: 1 });
    await backend.queuePush(q, body);
    expect(await backend.queueReserve(q, 0, 1)).not.toBeNull();
    const leader = await startMaster({ backend, automations: [], catalog: "none", lockName, holdSeconds: 5, sweepIntervalMs: 100 });
    const follower = await startMaster({ backend, automations: [], catalog: "none", lockName, holdSeconds: 5, sweepIntervalMs: 100 });
    masters.push(leader, follower);
    expect(await follower.sweep()).toBeNull();
    await waitUntil(async () => (await backend.queueDepths([q]))[0]?.pending.total === 1, 20_000, "the expired reservation to be re-queued");
    const [d] = await backend.queueDepths([q]);
    expect(d).toMatchObject({ processing: 0 });
    expect(JSON.parse(String((await backend.queuePeek(q, 1))[0])).id).toBe(id);
    expect(follower.sweeps).toBe(0);
  });

  it("`pnpm master` leads, publishes the demo catalog, and releases the lock on SIGTERM", async () => {
    const lockName = uniqueName("master-cli");
    // as `pnpm master` runs it: node with tsx's loader, one process. The tsx launcher relays a
    // signal and SIGKILLs its child when the child does not confirm within 30 ms (exit 143 on a
    // loaded machine), so the lock would not be released.
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(here, "..", "src", "master-cli.ts"), "--backend", url, "--demo-catalog", "--lock", lockName, "--hold-seconds", "30"],
      {
        cwd: path.join(here, ".."),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    try {
      await waitUntil(() => out.includes("catalog replaced"), 30_000, "the master to lead");
      expect([...(await backend.catalogAll()).keys()].sort()).toEqual(["cf-cookies", "enricher", "scraper"]);
      expect(await backend.lockAcquire(lockName, 1, 0)).toBeNull();
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(await backend.lockAcquire(lockName, 1, 0)).not.toBeNull();
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 60_000);

  it("`pnpm master` refuses a memory:// backend and bad numbers, with exit code 2", async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "..", "src", "master-cli.ts"), ...args], {
          cwd: path.join(here, ".."),
          stdio: ["ignore", "pipe", "pipe"],
        });
        let err = "";
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.on("exit", (code) => resolve({ code, err }));
      });
    const mem = await run(["--backend", "memory://x"]);
    expect(mem.code).toBe(2);
    expect(mem.err).toMatch(/needs a shared Redis/);
    const bad = await run(["--backend", url, "--sweep-interval-ms", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--sweep-interval-ms must be a number/);
  }, 60_000);
});
