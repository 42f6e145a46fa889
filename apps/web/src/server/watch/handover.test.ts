// Exactly one watch leader among console processes, and hand-over when it dies (issue 15.1):
// two real processes (tsx children running ./test/watch-process.ts) on a redis-server of this
// test's own. The first leads and records history; the second waits as a follower and writes
// nothing; SIGKILL the leader (its lock is not released) and the follower takes over once the
// hold ran out (not before, and by the lock's expiry, not a later backstop), carrying the
// history on; SIGTERM a leader and the lock is released as it stops (its token is gone at once),
// and the next one leads. In-process: a leader whose renewal fails steps down at once.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

import type { Backend } from "@fleet/backend";
import { createRedisBackend } from "@fleet/backend/redis";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { Leadership } from "./leader";
import { WATCH_LOCK } from "./service";

// long enough that a loaded machine does not stall the leader past its renewals (hold/3 apart)
const HOLD_SECONDS = 5;
const SCRIPT = path.resolve(__dirname, "test/watch-process.ts");

interface Line {
  event: string;
  name: string;
  at: number;
  ts?: number;
}

class Child {
  readonly lines: Line[] = [];
  private readonly waiters = new Set<() => void>();
  readonly proc: ChildProcess;
  readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    url: string,
  ) {
    // node itself with tsx's loader, not the tsx launcher: a signal must reach the process
    // that holds the lock (the launcher would die alone and leave its child leading)
    this.proc = spawn(process.execPath, ["--import", "tsx", SCRIPT, url, name, String(HOLD_SECONDS), "250"], {
      cwd: path.resolve(__dirname, "../../.."),
      stdio: ["ignore", "pipe", "inherit"],
    });
    createInterface({ input: this.proc.stdout! }).on("line", (text) => {
      try {
        this.lines.push(JSON.parse(text) as Line);
      } catch {
        return;
      }
      for (const w of [...this.waiters]) w();
    });
    this.exited = new Promise((resolve) => this.proc.once("exit", () => resolve()));
  }

  count(event: string): number {
    return this.lines.filter((l) => l.event === event).length;
  }

  /** Resolves with the first line of `event` after `skip` of them; rejects after `ms`. */
  waitFor(event: string, ms: number, skip = 0): Promise<Line> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.filter((l) => l.event === event)[skip];
        if (found) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${this.name}: no '${event}' (#${skip + 1}) within ${ms} ms; saw ${this.lines.map((l) => l.event).join(",")}`));
      }, ms);
      this.waiters.add(check);
      check();
    });
  }
}

let server: PrivateRedis;
let backend: Backend;
let raw: Redis;
const children: Child[] = [];

beforeAll(async () => {
  server = await startPrivateRedis();
  backend = createRedisBackend(server.url());
  raw = new Redis(server.url());
});

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) {
      c.proc.kill("SIGKILL");
      await c.exited;
    }
  }
});

afterAll(async () => {
  await backend?.close();
  raw?.disconnect();
  await server?.stop();
});

function start(name: string): Child {
  const c = new Child(name, server.url());
  children.push(c);
  return c;
}

describe("watch leader hand-over (two processes, one Redis)", () => {
  it("one leader writes; a SIGKILLed leader is replaced once its hold ran out; a SIGTERMed one releases the lock as it stops", async () => {
    await backend.queuePush("jobs", "a");
    const a = start("a");
    await a.waitFor("lead", 60_000);
    await a.waitFor("tick", 20_000);

    const b = start("b");
    await b.waitFor("ready", 60_000);
    // b tries for the lead every hold/3: give it several tries while a keeps ticking
    const aTicks = a.count("tick");
    await a.waitFor("tick", 20_000, aTicks + 8);
    expect(b.count("lead")).toBe(0);
    expect(b.count("tick")).toBe(0);
    expect(await backend.lockList()).toEqual([expect.objectContaining({ name: WATCH_LOCK })]);

    // a crash: the lock is not released, it expires after its hold
    const killedAt = Date.now();
    a.proc.kill("SIGKILL");
    await a.exited;
    const led = await b.waitFor("lead", 30_000);
    const took = led.at - killedAt;
    // by the lock's expiry and b's next try (hold + hold/3), with generous room for a loaded machine
    expect(took).toBeLessThanOrEqual(((HOLD_SECONDS * 4) / 3) * 1000 + 10_000);
    // and not before the lock expired: no two leaders at once
    expect(took).toBeGreaterThanOrEqual(HOLD_SECONDS * 1000 - 1000);
    const firstTick = await b.waitFor("tick", 20_000);
    // b carries the history on: its points land in the same ring, and the latest hash is its
    const latest = JSON.parse((await backend.historyLatest()).get("jobs")!.toString()) as { ts: number };
    expect(latest.ts).toBeGreaterThanOrEqual(firstTick.ts!);
    expect((await backend.historyRead([{ series: "jobs", tier: "10s", offset: 0, length: 1 }]))[0]!.length).toBe(1);

    // a clean stop releases the lock: once b says it stopped, its token is no longer the lock's
    // (gone, or c's already), which an unreleased lock would be until its hold ran out; c leads
    const c = start("c");
    await c.waitFor("ready", 60_000);
    await b.waitFor("tick", 20_000, b.count("tick") + 2);
    expect(c.count("lead")).toBe(0);
    const bToken = await raw.get(`fleet:lock:${WATCH_LOCK}`);
    expect(bToken).toBeTruthy();
    b.proc.kill("SIGTERM");
    await b.waitFor("stopped", 20_000);
    expect(await raw.get(`fleet:lock:${WATCH_LOCK}`)).not.toBe(bToken);
    await c.waitFor("lead", 20_000);
    expect(b.lines.filter((l) => l.event === "stepdown")).toHaveLength(1);
  }, 300_000);
});

describe("Leadership in one process", () => {
  it("a leader whose renewal fails (the lock taken over) steps down at once; the other leads", async () => {
    const lock = `test-lead-${Math.random().toString(36).slice(2)}`;
    const events: string[] = [];
    const mk = (who: string) =>
      new Leadership({
        getBackend: async () => backend,
        lockName: lock,
        holdSeconds: 30,
        onLead: () => events.push(`${who} leads`),
        onStepDown: (why) => events.push(`${who} steps down: ${why}`),
      });
    const x = mk("x");
    const y = mk("y");
    await x.electNow();
    await y.electNow();
    expect([x.isLeader, y.isLeader]).toEqual([true, false]);
    // someone force-releases the lock (the console's DELETE /locks/{name}) and y takes it
    await backend.lockForceRelease(lock);
    await y.electNow();
    expect(y.isLeader).toBe(true);
    // x learns it at its next renewal and stops leading; it never leads beside y
    expect(await x.confirm()).toBe(false);
    expect(x.isLeader).toBe(false);
    expect(events).toEqual(["x leads", "y leads", "x steps down: the lock was lost"]);
    await x.stop();
    await y.stop();
    expect((await backend.lockList()).filter((l) => l.name === lock)).toEqual([]);
  });

  it("Redis unreachable during a renewal: the leader steps down rather than guess", async () => {
    const lock = `test-lead-${Math.random().toString(36).slice(2)}`;
    const broken = createRedisBackend("redis://127.0.0.1:1/0", { connectTimeoutMs: 200 });
    let useBroken = false;
    const l = new Leadership({ getBackend: async () => (useBroken ? broken : backend), lockName: lock, holdSeconds: 30 });
    await l.electNow();
    expect(l.isLeader).toBe(true);
    useBroken = true;
    expect(await l.confirm()).toBe(false);
    useBroken = false;
    await l.stop();
    await broken.close();
    // the lock it held still expires by itself (it was never released: it could not be)
    expect((await backend.lockList()).map((x) => x.name)).toContain(lock);
    await backend.lockForceRelease(lock);
  });
});
