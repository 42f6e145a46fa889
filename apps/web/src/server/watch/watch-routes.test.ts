// The watch's routes (issue 15) on both backends: GET /queues/{name}/history, GET /history,
// GET /alerts, GET and PUT /alerts/rules. Roles (viewer reads, admin writes), the audit entry
// of a rules write (URLs masked), bad input refused with a clear error and nothing written,
// If-Match. The Redis run uses a redis-server of its own (the keys are fixed fleet:console:*
// names), flushed before each test.
import { pyJsonBytes, type Backend } from "@fleet/backend";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { GET as getAlerts } from "@/app/api/v1/alerts/route";
import { GET as getRules, PUT as putRules } from "@/app/api/v1/alerts/rules/route";
import { GET as getFleetHistory } from "@/app/api/v1/history/route";
import { GET as getQueueHistory } from "@/app/api/v1/queues/[name]/history/route";
import { bearer, call, clearAuth, configureAuth, SAME_ORIGIN } from "@/server/auth/test/auth-env";
import { HistoryWriter } from "@/server/history/writer";

let server: PrivateRedis;
beforeAll(async () => {
  server = await startPrivateRedis();
});
afterAll(async () => {
  await clearAuth();
  await server?.stop();
});

const GOOD = {
  webhooks: [{ id: "ops", name: "Ops room", url: "https://hooks.example.com/services/T0/B0/s3cr3t?token=abc", format: "slack" }],
  rules: [{ id: "dead", name: "Dead letters growing", kind: "dead_letters_growth", queue: "*", more_than: 5, within_seconds: 600, webhooks: ["ops"] }],
};

async function everything(backend: Backend): Promise<string> {
  const rules = await backend.alertRulesGet();
  const state = await backend.alertStateRead(100);
  return JSON.stringify({
    doc: rules.doc?.toString() ?? null,
    gen: rules.gen,
    firing: [...state.firing].map(([k, v]) => [k, v.toString()]),
    outbox: state.outbox.size,
    history: state.history.map((b) => b.toString()),
  });
}

for (const kind of ["memory", "redis"] as const) {
  describe(`[${kind}] watch routes`, () => {
    let backend: Backend;
    beforeEach(async () => {
      if (kind === "redis") {
        const r = new Redis(server.url(), { maxRetriesPerRequest: 1 });
        await r.flushdb();
        r.disconnect();
      }
      backend = await configureAuth(kind === "redis" ? server.url() : `memory://watch-routes-${Math.random().toString(36).slice(2)}`);
    });

    describe("history", () => {
      it("answers what the writer recorded, one point per 10 s over the last hour, to a viewer", async () => {
        await backend.queuePush("jobs", "a");
        await backend.queuePush("jobs", "b");
        await backend.queueDead("jobs", "x");
        const writer = new HistoryWriter();
        const now = Date.now() / 1000;
        await writer.tick(backend, ["jobs"], now);
        const res = await call(getQueueHistory, "GET", "/queues/jobs/history?range=1h", { headers: bearer("viewer") });
        expect(res.status).toBe(200);
        expect(res.json).toMatchObject({ queue: "jobs", range: "1h", step_seconds: 10 });
        const p = res.json.points;
        expect(p.ts.length).toBeGreaterThanOrEqual(360);
        expect(p.ts.length).toBeLessThanOrEqual(361);
        const i = p.ts.indexOf(Math.floor(now / 10) * 10);
        expect(i).toBeGreaterThanOrEqual(0);
        expect([p.pending_normal[i], p.dead[i], p.processing[i]]).toEqual([2, 1, 0]);
        expect(p.pending_normal.filter((v: number | null) => v !== null)).toHaveLength(1);
        expect(res.json.latest).toMatchObject({ finished_total: 0 });

        const fleet = await call(getFleetHistory, "GET", "/history?range=24h", { headers: bearer("viewer") });
        expect(fleet.status).toBe(200);
        expect(fleet.json.queue).toBeNull();
        expect(fleet.json.points.ts.length).toBeLessThanOrEqual(721);
        expect(fleet.json.points.pending_normal.filter((v: number | null) => v !== null)).toEqual([2]);
      });

      it("refuses a bad range with 400 naming it, an unknown queue with 404, a stranger with 401; writes nothing", async () => {
        const bad = await call(getQueueHistory, "GET", "/queues/jobs/history?range=2h", { headers: bearer("viewer") });
        expect(bad.status).toBe(400);
        expect(bad.json.error.message).toMatch(/'range'/);
        const unknown = await call(getQueueHistory, "GET", "/queues/nope/history", { headers: bearer("viewer") });
        expect(unknown.status).toBe(404);
        const stranger = await call(getQueueHistory, "GET", "/queues/jobs/history");
        expect(stranger.status).toBe(401);
        const dead = await call(getQueueHistory, "GET", "/queues/x%3Adead/history", { headers: bearer("viewer") });
        expect(dead.status).toBe(404);
        expect((await backend.historyLatest()).size).toBe(0);
      });

      it("a queue that is gone still shows its recorded history", async () => {
        await backend.queuePush("gone", "a");
        await new HistoryWriter().tick(backend, ["gone"], Date.now() / 1000);
        await backend.queueReserve("gone", 0, 30);
        await backend.queueAck("gone", "x");
        // the body has no id: the reserve leaves nothing behind, the queue has no key now
        expect((await backend.queueNames()).includes("gone")).toBe(false);
        const res = await call(getQueueHistory, "GET", "/queues/gone/history", { headers: bearer("viewer") });
        expect(res.status).toBe(200);
      });
    });

    describe("alert rules", () => {
      it("start empty at generation 0, with the JSON Schema the editor validates with", async () => {
        const res = await call(getRules, "GET", "/alerts/rules", { headers: bearer("viewer") });
        expect(res.status).toBe(200);
        expect(res.headers.get("etag")).toBe('"0"');
        expect(res.json).toMatchObject({ gen: 0, config: { webhooks: [], rules: [] } });
        expect(res.json.schema).toMatchObject({ type: "object", properties: { rules: { type: "array" } } });
      });

      it("an admin writes them; audited with before and after, webhook URLs masked there and for viewers", async () => {
        const res = await call(putRules, "PUT", "/alerts/rules", { headers: { ...bearer("admin"), "if-match": '"0"' }, body: GOOD });
        expect(res.status).toBe(200);
        expect(res.headers.get("etag")).toBe('"1"');
        expect(res.json.config.webhooks[0].url).toBe(GOOD.webhooks[0]!.url);
        expect(res.json.config.rules[0]).toMatchObject({ enabled: true, kind: "dead_letters_growth" });

        const asViewer = await call(getRules, "GET", "/alerts/rules", { headers: bearer("viewer") });
        expect(asViewer.json.urls_masked).toBe(true);
        expect(asViewer.json.config.webhooks[0].url).toBe("https://hooks.example.com/…?…");
        const asAdmin = await call(getRules, "GET", "/alerts/rules", { headers: bearer("admin") });
        expect(asAdmin.json.config.webhooks[0].url).toBe(GOOD.webhooks[0]!.url);

        const { items } = await backend.auditRange(0, 10);
        const entry = JSON.parse(items[0]!.toString()) as Record<string, unknown>;
        expect(entry).toMatchObject({ action: "alerts.rules.put", target: "alerts:rules", outcome: "done", status: 200, actor: "admin-script" });
        expect(JSON.stringify(entry.after)).toContain("https://hooks.example.com/…?…");
        expect(JSON.stringify(entry)).not.toContain("s3cr3t");
        expect(JSON.stringify(entry)).not.toContain("token=abc");
      });

      it("refuses a viewer or operator (403, recorded as refused) and writes nothing", async () => {
        const before = await everything(backend);
        for (const role of ["viewer", "operator"] as const) {
          const res = await call(putRules, "PUT", "/alerts/rules", { headers: bearer(role), body: GOOD });
          expect(res.status).toBe(403);
        }
        expect(await everything(backend)).toBe(before);
        const { items } = await backend.auditRange(0, 10);
        expect(items.map((b) => JSON.parse(b.toString()).action)).toContain("refused.alerts.rules.put");
      });

      it.each([
        ["an unknown kind", { rules: [{ id: "r", name: "x", kind: "nope", queue: "q" }] }, /rules\/0\/kind/],
        ["a webhook id no webhook has", { webhooks: [], rules: [{ ...GOOD.rules[0], webhooks: ["ghost"] }] }, /no webhook has the id 'ghost'/],
        ["a URL that is not http(s)", { webhooks: [{ id: "w", url: "file:///etc/passwd" }] }, /must be an http:\/\/ or https:\/\/ URL/],
        ["a window below a minute", { rules: [{ ...GOOD.rules[0], webhooks: [], within_seconds: 5 }] }, /within_seconds must be at least 60 s/],
        [
          "two rules with one id",
          {
            rules: [
              { ...GOOD.rules[0], webhooks: [] },
              { ...GOOD.rules[0], webhooks: [] },
            ],
          },
          /used twice/,
        ],
        ["an unknown field", { rules: [], extra: 1 }, /extra/],
        ["not an object", [1, 2], /must be a JSON object/],
      ])("refuses %s with 422 and a clear message; nothing written", async (_what, body, message) => {
        const before = await everything(backend);
        const res = await call(putRules, "PUT", "/alerts/rules", { headers: bearer("admin"), body });
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe("validation_failed");
        expect(JSON.stringify(res.json.error)).toMatch(message);
        expect(await everything(backend)).toBe(before);
      });

      it("a stale If-Match is 412 and writes nothing; a browser's text/plain body is 415", async () => {
        await call(putRules, "PUT", "/alerts/rules", { headers: bearer("admin"), body: GOOD });
        const before = await everything(backend);
        const stale = await call(putRules, "PUT", "/alerts/rules", { headers: { ...bearer("admin"), "if-match": '"0"' }, body: { rules: [] } });
        expect(stale.status).toBe(412);
        expect(stale.json.error.message).toMatch(/generation 1, not 0/);
        const handler = putRules as (r: Request) => Promise<Response>;
        const plain = await handler(
          new Request("http://console.test/api/v1/alerts/rules", { method: "PUT", headers: { ...bearer("admin"), "content-type": "text/plain" }, body: JSON.stringify(GOOD) }),
        );
        expect(plain.status).toBe(415);
        expect(await everything(backend)).toBe(before);
        // a browser session needs the same-origin headers as for every change
        void SAME_ORIGIN;
      });
    });

    describe("alert state", () => {
      it("lists what fires, deliveries waiting and history, to a viewer", async () => {
        const firing = { key: "dead|jobs", rule_id: "dead", rule_name: "Dead", kind: "dead_letters_growth", subject: "jobs", since: 100, value: 9, summary: "grew" };
        const delivery = {
          id: "d1",
          ts: 100,
          webhook_id: "ops",
          webhook: "Ops",
          status: "firing",
          alert_key: "dead|jobs",
          summary: "grew",
          attempts: 2,
          next_at: 130,
          last_error: "answered 500",
          seq: 1,
          alert: firing,
          resolved_at: null,
        };
        await backend.alertStateWrite({
          firingSet: new Map([["dead|jobs", pyJsonBytes(firing)]]),
          outboxSet: new Map([["d1", pyJsonBytes(delivery)]]),
          history: [pyJsonBytes({ ts: 100, type: "firing", alert_key: "dead|jobs", rule_id: "dead", summary: "grew" }), Buffer.from("not json")],
          historyMax: 10,
        });
        const res = await call(getAlerts, "GET", "/alerts?limit=5", { headers: bearer("viewer") });
        expect(res.status).toBe(200);
        expect(res.json.firing).toEqual([firing]);
        expect(res.json.deliveries).toEqual([
          {
            id: "d1",
            ts: 100,
            webhook_id: "ops",
            webhook: "Ops",
            status: "firing",
            alert_key: "dead|jobs",
            summary: "grew",
            attempts: 2,
            next_at: 130,
            last_error: "answered 500",
          },
        ]);
        expect(res.json.history).toEqual([{ ts: 100, type: "firing", alert_key: "dead|jobs", rule_id: "dead", summary: "grew" }]);
        expect(res.json.history_total).toBe(2);
        const bad = await call(getAlerts, "GET", "/alerts?limit=0", { headers: bearer("viewer") });
        expect(bad.status).toBe(400);
      });
    });
  });
}
