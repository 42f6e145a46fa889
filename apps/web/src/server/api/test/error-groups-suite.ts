// Route tests of issue 14.3 and 14.4: error groups (GET /errors, GET /queues/{name}/errors,
// GET /workers?error_group=) and the worker list's bulk actions (POST /workers/bulk-remove,
// POST /workers/bulk-config).
import { pyJsonBytes } from "@fleet/backend";
import { normalizeErrorMessage } from "@fleet/schema";
import { beforeEach, describe, expect, it } from "vitest";

import * as errors from "@/app/api/v1/errors/route";
import * as queueErrors from "@/app/api/v1/queues/[name]/errors/route";
import * as bulkConfig from "@/app/api/v1/workers/bulk-config/route";
import * as bulkRemove from "@/app/api/v1/workers/bulk-remove/route";
import * as workers from "@/app/api/v1/workers/route";
import { resetErrorGroupCache } from "@/server/api/error-groups";

import { now, type Harness } from "./harness";

const dead = (id: string, lastError: string | null, attempts = 3) => pyJsonBytes(lastError === null ? { id, payload: {} } : { id, payload: {}, attempts, last_error: lastError });

async function seed(h: Harness): Promise<number> {
  const b = h.backend;
  const t = now();
  // jobs: 3 timeouts (one the newest), 2 refusals, 1 without error, 1 not JSON
  await b.queueDead("jobs", dead("a", "Timeout after 30s fetching https://x.example/1"));
  await b.queueDead("jobs", dead("b", "connect ECONNREFUSED 10.0.0.1:6379"));
  await b.queueDead("jobs", dead("c", null));
  await h.plant.rpush("fleet:queue:jobs:dead", "not json at all");
  await b.queueDead("jobs", dead("d", "connect ECONNREFUSED 10.0.0.2:6380"));
  await b.queueDead("jobs", dead("e", "Timeout after 45s fetching https://y.example/2"));
  await b.queueDead("jobs", dead("f", "Timeout after 5s fetching https://z.example/3"));
  await b.queueDead("mail", dead("m", "Timeout after 1s fetching https://smtp.example"));
  // workers of "jobs" and "mail"
  await b.workerRegister("jobs", "w1", { hostname: "h1" });
  await b.workerSetState("jobs", "w1", "ERROR", "Timeout after 12s fetching https://q.example", t - 100);
  await b.workerRegister("jobs", "w2", { hostname: "h2" });
  await b.workerSetState("jobs", "w2", "IDLE", null, t);
  await b.workerRegister("mail", "m1", { hostname: "h3" });
  await b.workerSetState("mail", "m1", "ERROR", "Timeout after 3s fetching https://r.example", t - 7200);
  await h.discovered();
  return t;
}

const TIMEOUT = normalizeErrorMessage("Timeout after 30s fetching https://x.example/1");
const REFUSED = normalizeErrorMessage("connect ECONNREFUSED 10.0.0.1:6379");

export function errorGroupsSuite(h: Harness): void {
  beforeEach(() => resetErrorGroupCache());

  describe("GET /queues/{name}/errors", () => {
    it("groups the queue's dead letters and its automation's workers by the normalised message", async () => {
      const t = await seed(h);
      const res = await h.call(queueErrors.GET, "GET", "/queues/jobs/errors");
      expect(res.status).toBe(200);
      expect(res.json.groups.map((g: { group: string }) => g.group)).toEqual([TIMEOUT, REFUSED]);
      const [timeout, refused] = res.json.groups;
      expect(timeout).toMatchObject({ count: 4, dead: 3, workers: 1, newest_dead_rank: 1, automations: ["jobs"], queues: [{ name: "jobs", dead: 3 }] });
      expect(timeout.first_seen).toBeCloseTo(t - 100, 0);
      expect(timeout.last_seen).toBeCloseTo(t - 100, 0);
      expect(refused).toMatchObject({ count: 2, dead: 2, workers: 0, first_seen: null, last_seen: null, newest_dead_rank: 3 });
      expect(refused.sample).toMatch(/^connect ECONNREFUSED 10\.0\.0\.\d:63\d\d$/);
      expect(res.json.scanned).toMatchObject({
        dead_read_per_queue: 5000,
        queues: [{ name: "jobs", dead: 7, read: 7 }],
        dead_without_error: 1,
        dead_unreadable: 1,
        workers: 2,
        workers_with_error: 1,
      });
      expect(res.json.max_age_seconds).toBe(10);
      const one = await h.call(queueErrors.GET, "GET", "/queues/jobs/errors?limit=1");
      expect(one.json.groups).toHaveLength(1);
      expect(one.json.total_groups).toBe(2);
    });

    it("answers 404 for an unknown queue and 400 for a bad limit", async () => {
      expect((await h.call(queueErrors.GET, "GET", "/queues/nothing/errors")).status).toBe(404);
      await seed(h);
      const bad = await h.call(queueErrors.GET, "GET", "/queues/jobs/errors?limit=5000");
      expect(bad.status).toBe(400);
      expect(bad.json.error.message).toMatch(/limit/);
    });

    it("reads only the newest 5000 dead letters, in LRANGE chunks of at most 1000", async () => {
      const bodies = Array.from({ length: 6200 }, (_, i) => dead(`t${i}`, i < 1200 ? "Old failure" : `New failure ${i}`));
      for (let i = 0; i < bodies.length; i += 1000) await h.plant.rpush("fleet:queue:big:dead", ...bodies.slice(i, i + 1000));
      let res: Awaited<ReturnType<Harness["call"]>> | null = null;
      const commands = await h.monitor(async () => {
        res = await h.call(queueErrors.GET, "GET", "/queues/big/errors");
      });
      expect(res!.status).toBe(200);
      const json = res!.json;
      // the 1200 oldest are beyond the newest 5000: "Old failure" counts only its 0 read
      expect(json.groups.map((g: { group: string; dead: number }) => [g.group, g.dead])).toEqual([["New failure <n>", 5000]]);
      expect(json.scanned.queues).toEqual([{ name: "big", dead: 6200, read: 5000 }]);
      if (commands !== null) {
        const ranges = commands.filter((c) => c[0] === "lrange");
        expect(ranges.length).toBe(5);
        for (const c of ranges) expect(Number(c[3]) - Number(c[2]) + 1).toBeLessThanOrEqual(1000);
      }
    });
  });

  describe("GET /errors", () => {
    it("groups every queue's dead letters and every worker fleet-wide, with the automations affected", async () => {
      const t = await seed(h);
      const res = await h.call(errors.GET, "GET", "/errors");
      expect(res.status).toBe(200);
      const timeout = res.json.groups[0];
      expect(timeout).toMatchObject({ group: TIMEOUT, count: 6, dead: 4, workers: 2, automations: ["jobs", "mail"] });
      expect(timeout.queues).toEqual([
        { name: "jobs", dead: 3 },
        { name: "mail", dead: 1 },
      ]);
      expect(timeout.first_seen).toBeCloseTo(t - 7200, 0);
      expect(timeout.last_seen).toBeCloseTo(t - 100, 0);
      expect(res.json.scanned).toMatchObject({ dead_read_per_queue: 1000, queues_not_read: 0, workers: 3, workers_with_error: 2 });
      expect(res.json.scanned.queues.map((q: { name: string }) => q.name)).toEqual(["jobs", "mail"]);
    });

    it("serves a computed answer again for its stated freshness", async () => {
      await seed(h);
      const first = await h.call(errors.GET, "GET", "/errors");
      await h.backend.queueDead("jobs", dead("late", "A brand new failure"));
      const second = await h.call(errors.GET, "GET", "/errors");
      expect(second.json.computed_at).toBe(first.json.computed_at);
      expect(second.json.total_groups).toBe(first.json.total_groups);
      resetErrorGroupCache();
      const third = await h.call(errors.GET, "GET", "/errors");
      expect(third.json.total_groups).toBe(first.json.total_groups + 1);
    });
  });

  describe("GET /workers?error_group=", () => {
    it("lists the workers whose last_error is in the group", async () => {
      await seed(h);
      const res = await h.call(workers.GET, "GET", `/workers?error_group=${encodeURIComponent(TIMEOUT)}`);
      expect(res.status).toBe(200);
      expect(res.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["w1", "m1"]);
      expect(res.json.counts).toEqual({ running: 0, idle: 0, error: 0, offline: 2 });
      const typed = await h.call(workers.GET, "GET", `/workers?type=mail&error_group=${encodeURIComponent(TIMEOUT)}`);
      expect(typed.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["m1"]);
      expect((await h.call(workers.GET, "GET", `/workers?error_group=${"x".repeat(201)}`)).status).toBe(400);
    });
  });

  describe("POST /workers/bulk-remove", () => {
    async function fleet(): Promise<void> {
      const t = now();
      for (const [type, id, seen] of [
        ["jobs", "gone1", t - 3600],
        ["jobs", "gone2", t - 7200],
        ["mail", "gone3", t - 999],
        ["jobs", "live", t],
      ] as const) {
        await h.backend.workerRegister(type, id, { hostname: id });
        await h.backend.workerSetState(type, id, "IDLE", null, seen);
      }
    }

    it("removes named offline workers, audited as one action with the counts", async () => {
      await fleet();
      const res = await h.call(bulkRemove.POST, "POST", "/workers/bulk-remove", {
        body: {
          workers: [
            { automation_type: "jobs", worker_id: "gone1" },
            { automation_type: "mail", worker_id: "gone3" },
            { automation_type: "jobs", worker_id: "nobody" },
          ],
        },
      });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ requested: 3, removed: 2, kept_online: [], missing: [{ automation_type: "jobs", worker_id: "nobody" }] });
      expect((await h.backend.workerList()).map((r) => r.workerId).sort()).toEqual(["gone2", "live"]);
      expect(await h.plant.exists("wkr:jobs:gone1:state")).toBe(false);
      const entry = JSON.parse((await h.backend.auditRange(0, 1)).items[0]!.toString());
      expect(entry).toMatchObject({ action: "workers.bulk.remove", target: "workers", outcome: "done", status: 200 });
      expect(entry.details).toMatchObject({ requested: 3, removed: 2, kept_online: 0, missing: 1 });
    });

    it("refuses to remove a worker that is not offline, removing nothing", async () => {
      await fleet();
      await h.unchanged(async () => {
        const res = await h.call(bulkRemove.POST, "POST", "/workers/bulk-remove", {
          body: {
            workers: [
              { automation_type: "jobs", worker_id: "gone1" },
              { automation_type: "jobs", worker_id: "live" },
            ],
          },
        });
        expect(res.status).toBe(409);
        expect(res.json.error.message).toMatch(/Only offline workers.*jobs\/live.*Nothing was removed/);
      });
    });

    it("removes every offline worker matching a filter, checking the count the dialog named", async () => {
      await fleet();
      await h.unchanged(async () => {
        const stale = await h.call(bulkRemove.POST, "POST", "/workers/bulk-remove", { body: { all: true, filter: { type: "jobs" }, expected: 5 } });
        expect(stale.status).toBe(409);
        expect(stale.json.error.message).toMatch(/now matches 2 offline workers, not 5/);
      });
      const res = await h.call(bulkRemove.POST, "POST", "/workers/bulk-remove", { body: { all: true, filter: { type: "jobs" }, expected: 2 } });
      expect(res.json).toEqual({ requested: 2, removed: 2, kept_online: [], missing: [] });
      expect((await h.backend.workerList()).map((r) => r.workerId).sort()).toEqual(["gone3", "live"]);
    });

    it("rejects bad bodies with 422 and writes nothing", async () => {
      await fleet();
      await h.unchanged(async () => {
        for (const body of [{}, { workers: [] }, { workers: [{ automation_type: "jobs" }] }, { all: false, filter: {} }, { all: true }, { workers: [], extra: 1 }]) {
          const res = await h.call(bulkRemove.POST, "POST", "/workers/bulk-remove", { body });
          expect(res.status, JSON.stringify(body)).toBe(422);
        }
        expect((await h.call(bulkRemove.POST, "POST", "/workers/bulk-remove", { rawBody: "{" })).status).toBe(400);
      });
    });
  });

  describe("POST /workers/bulk-config", () => {
    async function typed(): Promise<void> {
      await h.backend.catalogSet(
        "jobs",
        JSON.stringify({ config: { type: "object", properties: { slots: { type: "integer", minimum: 0, maximum: 8 } } }, output: {}, task_payload: {} }),
      );
      for (const id of ["a", "b", "c"]) {
        await h.backend.workerRegister("jobs", id, {});
        await h.backend.workerSetConfig("jobs", id, { slots: id === "c" ? 4 : 1 });
      }
    }

    it("applies the patch to the named workers at the generations the review showed, leaving unchanged ones alone", async () => {
      await typed();
      const res = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
        body: {
          automation_type: "jobs",
          patch: { slots: 4 },
          workers: [
            { worker_id: "a", config_gen: 1 },
            { worker_id: "c", config_gen: 1 },
          ],
        },
      });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ workers: [{ worker_id: "a", config_gen: 2 }], unchanged: 1 });
      expect((await h.backend.workerGetConfig("jobs", "a")).config).toEqual({ slots: 4 });
      expect((await h.backend.workerGetConfig("jobs", "b")).config).toEqual({ slots: 1 });
      const entry = JSON.parse((await h.backend.auditRange(0, 1)).items[0]!.toString());
      // one worker changed: still listed by name (the entry's target is the automation)
      expect(entry).toMatchObject({ action: "workers.bulk.config", outcome: "done", changes: [{ worker_id: "a", before: { slots: 1 }, after: { slots: 4 } }], changes_total: 1 });
      expect(entry.before).toBeUndefined();
      expect(entry.details).toMatchObject({ automation_type: "jobs", requested: 2, written: 1, unchanged: 1 });
    });

    it("refuses a stale generation (412), an invalid config (422) and an unknown worker (404), writing nothing", async () => {
      await typed();
      await h.unchanged(async () => {
        const stale = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
          body: {
            automation_type: "jobs",
            patch: { slots: 2 },
            workers: [
              { worker_id: "a", config_gen: 1 },
              { worker_id: "b", config_gen: 0 },
            ],
          },
        });
        expect(stale.status).toBe(412);
        expect(stale.json.error.message).toMatch(/b: now generation 1/);
        const invalid = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
          body: { automation_type: "jobs", patch: { slots: 99 }, workers: [{ worker_id: "a", config_gen: 1 }] },
        });
        expect(invalid.status).toBe(422);
        expect(invalid.json.error.details[0].message).toMatch(/^worker a:/);
        const unknown = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
          body: { automation_type: "jobs", patch: { slots: 2 }, workers: [{ worker_id: "zz", config_gen: 0 }] },
        });
        expect(unknown.status).toBe(404);
        const shape = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", { body: { automation_type: "jobs", patch: [], workers: [] } });
        expect(shape.status).toBe(422);
      });
    });

    it("writes each worker's own config (a revert), conflict-safe per worker, recorded with intent=revert", async () => {
      await typed();
      await h.backend.workerSetConfig("jobs", "b", { slots: 3, mode: "x" });
      const res = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
        body: {
          automation_type: "jobs",
          intent: "revert",
          workers: [
            { worker_id: "a", config_gen: 1, config: { slots: 2 } },
            { worker_id: "b", config_gen: 2, config: { slots: 1 } },
            // already as given: left alone
            { worker_id: "c", config_gen: 1, config: { slots: 4 } },
          ],
        },
      });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({
        workers: [
          { worker_id: "a", config_gen: 2 },
          { worker_id: "b", config_gen: 3 },
        ],
        unchanged: 1,
      });
      // the whole config, not merged: b's mode is gone
      expect(await h.backend.workerGetConfig("jobs", "b")).toEqual({ config: { slots: 1 }, gen: 3 });
      const entry = JSON.parse((await h.backend.auditRange(0, 1)).items[0]!.toString());
      expect(entry).toMatchObject({ action: "workers.bulk.config", details: { intent: "revert", written: 2, unchanged: 1 }, changes_total: 2 });
      expect(entry.changes).toEqual([
        { worker_id: "a", before: { slots: 1 }, after: { slots: 2 } },
        { worker_id: "b", before: { slots: 3, mode: "x" }, after: { slots: 1 } },
      ]);
    });

    it("refuses a revert whose one worker moved since the review, a config failing the schema, and a body mixing patch and configs, writing nothing", async () => {
      await typed();
      await h.unchanged(async () => {
        const stale = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
          body: {
            automation_type: "jobs",
            intent: "revert",
            workers: [
              { worker_id: "a", config_gen: 1, config: { slots: 2 } },
              { worker_id: "b", config_gen: 7, config: { slots: 2 } },
            ],
          },
        });
        expect(stale.status).toBe(412);
        expect(stale.json.error.message).toMatch(/b: now generation 1/);
        const invalid = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
          body: { automation_type: "jobs", workers: [{ worker_id: "a", config_gen: 1, config: { slots: 99 } }] },
        });
        expect(invalid.status).toBe(422);
        for (const body of [
          { automation_type: "jobs", patch: { slots: 2 }, workers: [{ worker_id: "a", config_gen: 1, config: { slots: 2 } }] },
          { automation_type: "jobs", workers: [{ worker_id: "a", config_gen: 1 }] },
          {
            automation_type: "jobs",
            workers: [
              { worker_id: "a", config_gen: 1, config: { slots: 2 } },
              { worker_id: "b", config_gen: 1 },
            ],
          },
          { automation_type: "jobs", intent: "undo", workers: [{ worker_id: "a", config_gen: 1, config: { slots: 2 } }] },
        ]) {
          const bad = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", { body });
          expect(bad.status, JSON.stringify(body)).toBe(422);
        }
      });
    });
  });
}
