// Redis Sentinel, for real: one primary, one replica, three sentinels (Debian's redis-server
// and redis-sentinel). The backend follows a failover by itself: while the primary is gone
// every call fails as unavailable (the console's 503), never with a wrong answer; once the
// sentinels promoted the replica it works again without a restart, the event subscription
// resumes, and no write it acknowledged is lost. Also: the URL form, and a Redis Cluster node refused at connect.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendUnavailableError, ClusterNotSupportedError } from "../src/errors";
import { createRedisBackend } from "../src/redis";
import { parseSentinelUrl } from "../src/redis/connection";
import { backendFromUrl } from "../src/url";
import { startSentinelSetup, type SentinelSetup } from "./support/sentinel-setup";

async function waitFor<T>(what: string, ms: number, fn: () => Promise<T | null | false | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("redis+sentinel:// URLs", () => {
  it("name the sentinels, the master group and the database", () => {
    expect(parseSentinelUrl("redis+sentinel://:s3cr%40t@10.0.0.1:26379,[::1]:26380,sentinel-c/mymaster/3?sentinel_password=sp")).toEqual({
      tls: false,
      password: "s3cr@t",
      sentinelPassword: "sp",
      sentinels: [
        { host: "10.0.0.1", port: 26379 },
        { host: "::1", port: 26380 },
        { host: "sentinel-c", port: 26379 },
      ],
      name: "mymaster",
      db: 3,
    });
    expect(parseSentinelUrl("rediss+sentinel://u:p@h:1/m")).toMatchObject({ tls: true, username: "u", password: "p", db: 0, name: "m" });
  });

  it("refuse what they cannot mean, naming the URL with its password masked", () => {
    for (const [url, why] of [
      ["redis+sentinel://:pw@h:26379", /no master name/],
      ["redis+sentinel://:pw@h:26379/m/x", /database must be a number/],
      ["redis+sentinel://:pw@h:26379/m/0/extra", /\/<master-name>\[\/<db>\]/],
      ["redis+sentinel://:pw@h:99999/m", /out of range/],
      ["redis+sentinel://:pw@h:2,,h:3/m", /is not host:port/],
      ["redis+sentinel://:pw@h:2/m?db=1", /unknown parameter 'db'/],
    ] as const) {
      let err: unknown;
      try {
        parseSentinelUrl(url);
      } catch (e) {
        err = e;
      }
      expect(err, url).toBeInstanceOf(TypeError);
      expect(String(err)).toMatch(why);
      expect(String(err)).not.toContain("pw");
    }
  });

  it("are taken by backendFromUrl", async () => {
    const b = backendFromUrl("redis+sentinel://127.0.0.1:1/m/0", { connectTimeoutMs: 300 });
    expect(b.kind).toBe("redis");
    await expect(b.health()).rejects.toBeInstanceOf(BackendUnavailableError);
    await b.close();
  });
});

describe("a Redis Cluster node", () => {
  it("is refused at connect with the reason, before anything is written", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const dir = mkdtempSync(join(tmpdir(), "fleet-cluster-"));
    const server = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        join(dir, "nodes.conf"),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
      ],
      { stdio: "ignore" },
    );
    const b = createRedisBackend(`redis://127.0.0.1:${port}/0`, { connectTimeoutMs: 1000 });
    try {
      const err = await waitFor("the cluster node to answer", 30_000, () =>
        b.counterIncr("c", 1).then(
          () => new Error("a cluster node accepted a write"),
          (e: unknown) => (e instanceof BackendUnavailableError ? null : e),
        ),
      );
      expect(err).toBeInstanceOf(ClusterNotSupportedError);
      expect(String(err)).toMatch(/Redis Cluster node, which Fleet cannot use: .*hash tags.*Sentinel/);
      await expect(b.health()).rejects.toBeInstanceOf(ClusterNotSupportedError);
    } finally {
      await b.close();
      server.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("Redis Sentinel failover", () => {
  let setup: SentinelSetup;
  beforeAll(async () => {
    setup = await startSentinelSetup();
  }, 180_000);
  afterAll(async () => {
    await setup?.stop();
  });

  it("fails as unavailable while the primary is gone, never with a wrong answer; then works again by itself, keeping every acknowledged write", async () => {
    const b = createRedisBackend(setup.url(2));
    try {
      expect(await waitFor("the backend to answer", 30_000, async () => (await b.health()).version)).toMatch(/^7\./);
      await b.kvSet("ns", "fixed", "v", null);
      const heard: string[] = [];
      const sub = await b.subscribeEvents((m) => heard.push(m.topic));
      await b.eventPublish("before.failover", "x");
      await waitFor("the event before the failover", 20_000, async () => heard.includes("before.failover"));

      // a writer and a reader keep going through the failover
      const acked: string[] = [];
      const outcomes: Array<{ t: number; ok: boolean; error?: string }> = [];
      let wrongAnswers = 0;
      let stop = false;
      let n = 0;
      const traffic = (async () => {
        while (!stop) {
          const key = `k${n++}`;
          const t = Date.now();
          try {
            await b.kvSet("ns", key, key, null);
            acked.push(key);
            const v = await b.kvGet("ns", "fixed");
            if (v?.toString() !== "v") wrongAnswers++;
            outcomes.push({ t, ok: true });
          } catch (err) {
            outcomes.push({ t, ok: false, error: err instanceof BackendUnavailableError ? "unavailable" : String(err) });
          }
          await new Promise((r) => setTimeout(r, 25));
        }
      })();

      await waitFor("some traffic before the stop", 20_000, async () => acked.length >= 10);
      const t0 = Date.now();
      await setup.stopPrimary();
      // the sentinels promote the replica
      await waitFor("the sentinels to name the replica primary", 60_000, async () => (await setup.currentPrimaryPort()) === setup.replicaPort);
      // and the backend follows without a restart
      await waitFor("a write through the new primary", 30_000, async () => outcomes.some((o) => o.t > t0 && o.ok && outcomes.some((f) => !f.ok && f.t >= t0 && f.t < o.t)));
      const recoveredAt = outcomes.find((o) => o.t > t0 && o.ok && outcomes.some((f) => !f.ok && f.t >= t0 && f.t < o.t))!.t;
      const ackedAfter = acked.length;
      await waitFor("more traffic after the recovery", 20_000, async () => acked.length >= ackedAfter + 5);
      stop = true;
      await traffic;

      expect(wrongAnswers).toBe(0);
      const failures = outcomes.filter((o) => !o.ok);
      expect(failures.length).toBeGreaterThan(0);
      expect(new Set(failures.map((f) => f.error))).toEqual(new Set(["unavailable"]));
      // after the stop, and (how soon is Sentinel's configuration's business) after the failures
      expect(recoveredAt).toBeGreaterThan(t0);
      // every acknowledged write is on the new primary
      const values = await Promise.all(acked.map((k) => b.kvGet("ns", k)));
      expect(values.filter((v, i) => v?.toString() !== acked[i])).toEqual([]);
      // the live stream resumes on the new primary
      await waitFor("an event after the failover", 20_000, async () => {
        await b.eventPublish("after.failover", "x");
        await new Promise((r) => setTimeout(r, 50));
        return heard.includes("after.failover");
      });
      await sub.close();
    } finally {
      await b.close();
    }
  }, 240_000);
});
