// The watch's families in GET /api/v1/metrics, on both backends (Redis: a redis-server of its
// own): the counter of finished reservations, the oldest wait, the drain time, alerts firing
// per rule (0 for an enabled rule with none), deliveries waiting, the last tick's time.
import { pyJsonBytes, type Backend } from "@fleet/backend";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { GET } from "@/app/api/v1/metrics/route";
import { bearer, call, clearAuth, configureAuth } from "@/server/auth/test/auth-env";
import { HistoryWriter } from "@/server/history/writer";
import { parseExposition, sampleValue } from "@/server/metrics/test/parse-exposition";

let server: PrivateRedis;
beforeAll(async () => {
  server = await startPrivateRedis();
});
afterAll(async () => {
  await clearAuth();
  await server?.stop();
});

const task = (id: string) => pyJsonBytes({ id, payload: {} });

for (const kind of ["memory", "redis"] as const) {
  describe(`[${kind}] watch metrics`, () => {
    let backend: Backend;
    beforeEach(async () => {
      if (kind === "redis") {
        const r = new Redis(server.url(), { maxRetriesPerRequest: 1 });
        await r.flushdb();
        r.disconnect();
      }
      backend = await configureAuth(kind === "redis" ? server.url() : `memory://watch-metrics-${Math.random().toString(36).slice(2)}`);
    });

    it("exports the watch's figures under Prometheus names", async () => {
      for (let i = 0; i < 10; i++) await backend.queuePush("jobs", task(`t${i}`));
      const w = new HistoryWriter();
      const t0 = Math.floor(Date.now() / 10_000) * 10;
      await w.tick(backend, ["jobs"], t0);
      for (let i = 0; i < 4; i++) {
        const body = await backend.queueReserve("jobs", 0, 600);
        await backend.queueAck("jobs", JSON.parse(body!.toString()).id as string);
      }
      await w.tick(backend, ["jobs"], t0 + 10);
      await backend.alertRulesSet(
        pyJsonBytes({
          webhooks: [],
          rules: [
            { id: "slow", name: "slow", kind: "oldest_pending", queue: "*", older_than_seconds: 10, enabled: true, webhooks: [] },
            { id: "quiet", name: "quiet", kind: "overdue_leases", queue: "*", more_than: 0, enabled: true, webhooks: [] },
          ],
        }),
        0,
      );
      await backend.alertStateWrite({
        firingSet: new Map([["slow|jobs", pyJsonBytes({ key: "slow|jobs", rule_id: "slow", kind: "oldest_pending", subject: "jobs" })]]),
        outboxSet: new Map([
          ["a", pyJsonBytes({ id: "a", attempts: 0 })],
          ["b", pyJsonBytes({ id: "b", attempts: 3 })],
        ]),
        historyMax: 10,
      });

      const res = await call(GET, "GET", "/metrics", { headers: bearer("viewer") });
      expect(res.status).toBe(200);
      const m = parseExposition(res.text);
      const v = (name: string, labels: Record<string, string> = {}) => sampleValue(m, name, labels);
      expect(m.get("fleet_queue_finished_tasks_total")?.type).toBe("counter");
      expect(v("fleet_queue_finished_tasks_total", { queue: "jobs" })).toBe(4);
      expect(v("fleet_queue_oldest_pending_age_seconds", { queue: "jobs" })).toBe(10);
      expect(m.get("fleet_queue_drain_time_seconds")?.type).toBe("gauge");
      expect(v("fleet_alerts_firing", { rule: "slow", kind: "oldest_pending" })).toBe(1);
      expect(v("fleet_alerts_firing", { rule: "quiet", kind: "overdue_leases" })).toBe(0);
      expect(v("fleet_alert_deliveries_waiting", { state: "new" })).toBe(1);
      expect(v("fleet_alert_deliveries_waiting", { state: "retrying" })).toBe(1);
      expect(v("fleet_watch_last_tick_timestamp_seconds")).toBe(t0 + 10);
      // the fleet's own families are still there, once each
      expect(v("fleet_backend_up")).toBe(1);
    });

    it("before the watch ever ran: empty families, no last tick", async () => {
      const res = await call(GET, "GET", "/metrics", { headers: bearer("viewer") });
      const m = parseExposition(res.text);
      expect(m.get("fleet_queue_finished_tasks_total")?.samples).toEqual([]);
      expect(m.get("fleet_watch_last_tick_timestamp_seconds")?.samples).toEqual([]);
    });
  });
}
