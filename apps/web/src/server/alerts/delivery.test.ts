// Alerts end to end on a real Redis (a redis-server of this test's own) and the memory
// backend: a rule fires, real local HTTP receivers (JSON and Slack-compatible) each see the
// firing message exactly once however many ticks pass while it fires, then the resolved one
// exactly once. A failing receiver is retried on the schedule and shown meanwhile; a redirect
// is never followed; a receiver that hangs times out; no log line carries a URL's secret.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { pyJsonBytes, type Backend } from "@fleet/backend";
import { createMemoryBackend } from "@fleet/backend/memory";
import { createRedisBackend } from "@fleet/backend/redis";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";
import type { AlertConfigInput } from "@fleet/schema";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { WatchService } from "../watch/service";
import { getAlertsStatus } from "./api";

interface Received {
  path: string;
  body: Record<string, unknown>;
}

/** A webhook receiver: records what it is sent; `answer` decides the reply per request. */
class Receiver {
  readonly got: Received[] = [];
  answer: (req: IncomingMessage, n: number) => { status: number; headers?: Record<string, string> } | "hang" = () => ({ status: 200 });
  private server!: Server;
  private hanging = new Set<() => void>();
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let data = "";
      req.on("data", (c: Buffer) => (data += c.toString()));
      req.on("end", () => {
        this.got.push({ path: req.url ?? "", body: JSON.parse(data) as Record<string, unknown> });
        const a = this.answer(req, this.got.length);
        if (a === "hang") {
          this.hanging.add(() => res.destroy());
          return;
        }
        res.writeHead(a.status, a.headers ?? {});
        res.end(a.status >= 400 ? "receiver says no" : "ok");
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const h of this.hanging) h();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

for (const kind of ["redis", "memory"] as const) {
  describe(`[${kind}] alert delivery`, () => {
    let backend: Backend;
    let json: Receiver;
    let slack: Receiver;
    let other: Receiver;
    let clock: number;
    let logs: string[];
    let watch: WatchService;

    const makeWatch = (opts: { timeoutMs?: number } = {}) =>
      new WatchService({
        getBackend: async () => backend,
        queueNames: (b) => b.queueNames(),
        offlineAfterSeconds: 60,
        lockName: "alerts-test",
        holdSeconds: 30,
        timers: false,
        deliveryTimeoutMs: opts.timeoutMs ?? 2000,
        now: () => clock,
        log: (line) => logs.push(line),
      });

    async function setRules(config: AlertConfigInput): Promise<void> {
      const { gen } = await backend.alertRulesGet();
      await backend.alertRulesSet(pyJsonBytes(config), gen);
    }

    /** One tick `seconds` later. */
    async function tick(seconds = 10): Promise<void> {
      clock += seconds;
      await watch.tickNow();
    }

    beforeEach(async () => {
      if (kind === "redis") {
        const r = new Redis(redis.url(), { maxRetriesPerRequest: 1 });
        await r.flushdb();
        r.disconnect();
        backend = createRedisBackend(redis.url());
      } else {
        backend = createMemoryBackend();
      }
      json = new Receiver();
      slack = new Receiver();
      other = new Receiver();
      await Promise.all([json.start(), slack.start(), other.start()]);
      clock = Math.floor(Date.now() / 1000 / 10) * 10 + 1;
      logs = [];
      watch = makeWatch();
      await watch.leadership.electNow();
      expect(watch.leadership.isLeader).toBe(true);
    });

    afterEach(async () => {
      await watch.stop();
      await Promise.all([json.stop(), slack.stop(), other.stop()]);
      await backend.close();
    });

    /** One overdue reservation on queue `jobs` while `overdue` is true. */
    async function overdueTask(): Promise<string> {
      await backend.queuePush("jobs", pyJsonBytes({ id: "t1", payload: {} }));
      await backend.queueReserve("jobs", 0, 1); // deadline a second from the real now
      clock = Math.max(clock, Date.now() / 1000 + 5);
      return "t1";
    }

    it("firing once, no repeats while it fires, resolved once; JSON and Slack-compatible", async () => {
      await backend.queueDead("jobs", "keeps the queue there once the task is acked");
      await setRules({
        webhooks: [
          { id: "generic", url: `${json.url}/hook?token=s3cr3t-json`, format: "json" },
          { id: "chat", name: "Ops chat", url: `${slack.url}/services/T0/B0/s3cr3t-path`, format: "slack" },
        ],
        rules: [{ id: "overdue", name: "Leases overdue", kind: "overdue_leases", queue: "*", more_than: 0 }],
      });
      const task = await overdueTask();
      await tick();
      expect(json.got.map((g) => g.body.status)).toEqual(["firing"]);
      expect(json.got[0]!.body).toMatchObject({
        status: "firing",
        alert: { key: "overdue|jobs", rule_id: "overdue", kind: "overdue_leases", subject: "jobs", value: 1 },
        resolved_at: null,
        source: "fleet-console",
      });
      expect(json.got[0]!.path).toBe("/hook?token=s3cr3t-json");
      expect(slack.got).toHaveLength(1);
      expect(slack.got[0]!.body.text).toMatch(/^:rotating_light: FIRING Leases overdue: 1 reservation of queue 'jobs' is past the deadline/);
      let status = await getAlertsStatus(backend, 50);
      expect(status.firing.map((f) => f.key)).toEqual(["overdue|jobs"]);
      expect(status.deliveries).toEqual([]);

      // still firing for a while: nothing more is sent
      for (let i = 0; i < 5; i++) await tick();
      expect([json.got.length, slack.got.length]).toEqual([1, 1]);

      await backend.queueAck("jobs", task);
      await tick();
      expect(json.got.map((g) => g.body.status)).toEqual(["firing", "resolved"]);
      expect(json.got[1]!.body).toMatchObject({ status: "resolved", alert: { value: 0 } });
      expect(typeof json.got[1]!.body.resolved_at).toBe("number");
      expect(slack.got.map((g) => String(g.body.text).split(" ")[0])).toEqual([":rotating_light:", ":white_check_mark:"]);
      for (let i = 0; i < 3; i++) await tick();
      expect([json.got.length, slack.got.length]).toEqual([2, 2]);

      status = await getAlertsStatus(backend, 50);
      expect(status.firing).toEqual([]);
      expect(status.history.map((h) => h.type).reverse()).toEqual(["firing", "delivered", "delivered", "resolved", "delivered", "delivered"]);
      // secrets in a webhook URL's query or path never reach a log line or the stored history
      const text = JSON.stringify([logs, status]);
      expect(text).not.toMatch(/s3cr3t/);
      expect(logs.some((l) => l.includes("alert firing"))).toBe(true);
    });

    it("a failing receiver is retried on the schedule, shown meanwhile, then delivered; order kept", async () => {
      await setRules({
        webhooks: [{ id: "flaky", url: `${json.url}/flaky?key=s3cr3t` }],
        rules: [{ id: "overdue", name: "Leases overdue", kind: "overdue_leases", queue: "jobs", more_than: 0 }],
      });
      json.answer = (_req, n) => ({ status: n <= 2 ? 503 : 200 });
      const task = await overdueTask();
      await tick();
      expect(json.got).toHaveLength(1);
      let status = await getAlertsStatus(backend, 50);
      expect(status.deliveries).toEqual([
        expect.objectContaining({ status: "firing", attempts: 1, next_at: clock + 10, last_error: expect.stringMatching(/answered 503: receiver says no/) }),
      ]);
      expect(status.deliveries[0]!.last_error).not.toMatch(/s3cr3t/);
      // resolved meanwhile: its message waits behind the firing one
      await backend.queueAck("jobs", task);
      await tick(5); // not due yet: nothing sent
      expect(json.got).toHaveLength(1);
      await tick(5); // 10 s after the first try: second try fails (503 again)
      expect(json.got.map((g) => g.body.status)).toEqual(["firing", "firing"]);
      status = await getAlertsStatus(backend, 50);
      expect(status.deliveries.map((d) => [d.status, d.attempts])).toEqual([
        ["firing", 2],
        ["resolved", 0],
      ]);
      await tick(30); // third try succeeds, then the resolved message goes
      expect(json.got.map((g) => g.body.status)).toEqual(["firing", "firing", "firing", "resolved"]);
      status = await getAlertsStatus(backend, 50);
      expect(status.deliveries).toEqual([]);
      expect(status.history.find((h) => h.type === "delivered" && h.summary.startsWith("firing"))).toMatchObject({ attempts: 3 });
    });

    it("never follows a redirect, and a receiver that hangs times out; both are shown as failures", async () => {
      await watch.stop();
      watch = makeWatch({ timeoutMs: 300 });
      await watch.leadership.electNow();
      json.answer = () => ({ status: 302, headers: { location: `${other.url}/elsewhere` } });
      slack.answer = () => "hang";
      await setRules({
        webhooks: [
          { id: "redirects", url: `${json.url}/r?token=s3cr3t` },
          { id: "hangs", url: `${slack.url}/h`, format: "slack" },
        ],
        rules: [{ id: "overdue", name: "Leases overdue", kind: "overdue_leases", queue: "jobs", more_than: 0 }],
      });
      await overdueTask();
      await tick();
      expect(json.got).toHaveLength(1);
      expect(other.got).toHaveLength(0);
      const status = await getAlertsStatus(backend, 50);
      const byHook = Object.fromEntries(status.deliveries.map((d) => [d.webhook_id, d.last_error]));
      expect(byHook.redirects).toMatch(/answered 302, a redirect, which is not followed/);
      expect(byHook.hangs).toMatch(/did not answer within 300 ms/);
      expect(JSON.stringify([status, logs])).not.toMatch(/s3cr3t/);
    });

    it("a follower (not holding the lock) evaluates and sends nothing", async () => {
      await setRules({ webhooks: [{ id: "generic", url: `${json.url}/x` }], rules: [{ id: "o", name: "o", kind: "overdue_leases", queue: "*", more_than: 0 }] });
      await overdueTask();
      await backend.lockForceRelease("alerts-test");
      await backend.lockAcquire("alerts-test", 30, 0); // someone else leads now
      await tick();
      expect(json.got).toHaveLength(0);
      expect(watch.leadership.isLeader).toBe(false);
      expect((await getAlertsStatus(backend, 10)).firing).toEqual([]);
    });
  });
}
