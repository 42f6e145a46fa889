import { describe, expect, it } from "vitest";

import * as queues from "@/app/api/v1/queues/route";
import * as queue from "@/app/api/v1/queues/[name]/route";
import * as dead from "@/app/api/v1/queues/[name]/dead/route";
import * as dlqDelete from "@/app/api/v1/queues/[name]/dead/delete/route";
import * as dlqRequeue from "@/app/api/v1/queues/[name]/dead/requeue/route";
import * as sweep from "@/app/api/v1/queues/[name]/sweep/route";

import { now, oversizedBody, sha1, type Harness } from "./harness";

const body = (id: string) => `{"id": "${id}", "payload": {}}`;

async function seed(h: Harness): Promise<void> {
  const b = h.backend;
  await b.queuePush("jobs", body("n1"));
  await b.queuePush("jobs", body("h1"), { priority: "high" });
  await b.queuePush("jobs", body("l1"), { priority: "low" });
  await b.queuePush("jobs", Buffer.from([0xff, 0x00, 0x01]));
  // one reservation long overdue, one not yet
  await h.plant.zadd("fleet:queue:jobs:processing", now() - 600, "p-old");
  await h.plant.hset("fleet:queue:jobs:processing:body", "p-old", body("p-old"));
  await h.plant.zadd("fleet:queue:jobs:processing", now() + 600, "p-new");
  await h.plant.hset("fleet:queue:jobs:processing:body", "p-new", body("p-new"));
  await h.plant.zadd("fleet:queue:jobs:scheduled", now() + 60, body("s1"));
  for (const id of ["d1", "d2", "d3"]) await b.queueDead("jobs", body(id));
  // key fleet:queue:jobs:high: by the ownership rule the high list of queue "jobs", not a queue "jobs:high"
  await b.queuePush("jobs:high", body("other"));
  await b.queuePush("other:q", body("o1"));
}

export function queuesSuite(h: Harness): void {
  describe("GET /queues, /queues/{name}", () => {
    it("lists every queue with any key and its depths", async () => {
      await seed(h);
      const res = await h.call(queues.GET, "GET", "/queues");
      expect(res.status).toBe(200);
      expect(res.json.queues.map((q: { name: string }) => q.name)).toEqual(["jobs", "other:q"]);
      expect(res.json.total).toBe(2);
      expect(res.json.queues[0]).toEqual({
        name: "jobs",
        pending: { high: 2, normal: 2, low: 1, total: 5 },
        processing: 2,
        overdue: 1,
        scheduled: 1,
        due: 0,
        dead: 3,
      });
    });

    it("answers a queue's items: pending high→normal→low, processing with overdue, scheduled", async () => {
      await seed(h);
      const res = await h.call(queue.GET, "GET", "/queues/jobs?limit=10");
      expect(res.status).toBe(200);
      expect(res.json.pending_items.map((p: { priority: string; task_id: string | null }) => [p.priority, p.task_id])).toEqual([
        ["high", "h1"],
        ["high", "other"],
        ["normal", "n1"],
        ["normal", null],
        ["low", "l1"],
      ]);
      const binary = res.json.pending_items[3].body;
      expect(binary).toEqual({ json: null, text: null, base64: Buffer.from([0xff, 0x00, 0x01]).toString("base64"), bytes: 3, truncated: false });
      expect(res.json.pending_items[0].body.json).toEqual({ id: "h1", payload: {} });
      expect(res.json.processing_items.map((p: { id: string; overdue: boolean }) => [p.id, p.overdue])).toEqual([
        ["p-old", true],
        ["p-new", false],
      ]);
      expect(res.json.scheduled_items).toHaveLength(1);
      expect(res.json.scheduled_items[0].task_id).toBe("s1");
      const limited = await h.call(queue.GET, "GET", "/queues/jobs?limit=2");
      expect(limited.json.pending_items).toHaveLength(2);
    });

    it("answers 404 for an unknown queue, 200 with zeros for a known automation", async () => {
      expect((await h.call(queue.GET, "GET", "/queues/nothing")).status).toBe(404);
      await h.backend.catalogSet("scraper", JSON.stringify({ config: null, output: null, task_payload: null }));
      const res = await h.call(queue.GET, "GET", "/queues/scraper");
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ name: "scraper", pending: { total: 0 }, dead: 0, pending_items: [], processing_items: [], scheduled_items: [] });
      await h.backend.workerRegister("mailer", "m", {});
      expect((await h.call(dead.GET, "GET", "/queues/mailer/dead")).json).toEqual({ total: 0, items: [] });
      expect((await h.call(queue.GET, "GET", "/queues/jobs?limit=1001")).status).toBe(400);
    });

    it("finds a queue that only has a stray :processing:body key", async () => {
      await h.plant.hset("fleet:queue:odd:processing:body", "x", "y");
      expect((await h.call(queue.GET, "GET", "/queues/odd")).status).toBe(200);
    });
  });

  describe("dead letters", () => {
    it("pages dead letters with ref, index and task id", async () => {
      await seed(h);
      const res = await h.call(dead.GET, "GET", "/queues/jobs/dead?limit=2&offset=1");
      expect(res.status).toBe(200);
      expect(res.json.total).toBe(3);
      expect(res.json.items.map((i: { ref: string; index: number; task_id: string }) => [i.ref, i.index, i.task_id])).toEqual([
        [sha1(body("d2")), 1, "d2"],
        [sha1(body("d3")), 2, "d3"],
      ]);
      expect((await h.call(dead.GET, "GET", "/queues/jobs/dead?offset=-1")).status).toBe(400);
      expect((await h.call(dead.GET, "GET", "/queues/none/dead")).status).toBe(404);
    });

    it("requeues by ref onto the normal list and reports missing refs", async () => {
      await seed(h);
      const missing = "0".repeat(40);
      const res = await h.call(dlqRequeue.POST, "POST", "/queues/jobs/dead/requeue", { body: { refs: [sha1(body("d2")), missing] } });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ requeued: 1, missing: [missing] });
      const normal = (await h.plant.lrange("fleet:queue:jobs")).map((b) => b.toString());
      expect(normal).toContain(body("d2"));
      expect((await h.plant.lrange("fleet:queue:jobs:dead")).map((b) => b.toString())).toEqual([body("d1"), body("d3")]);
    });

    it("a requeue gives the task its attempts back; keep_attempts keeps them; delete refuses the option", async () => {
      await seed(h);
      const tried = '{"id": "r1", "payload": {"big": 12345678901234567890}, "attempts": 3, "last_error": "boom"}';
      const tried2 = '{"id": "r2", "payload": {}, "attempts": 2, "last_error": "bang"}';
      await h.backend.queueDead("jobs", tried);
      await h.backend.queueDead("jobs", tried2);
      const res = await h.call(dlqRequeue.POST, "POST", "/queues/jobs/dead/requeue", { body: { refs: [sha1(tried)] } });
      expect(res.json).toEqual({ requeued: 1, missing: [] });
      const kept = await h.call(dlqRequeue.POST, "POST", "/queues/jobs/dead/requeue", { body: { refs: [sha1(tried2)], keep_attempts: true } });
      expect(kept.json).toEqual({ requeued: 1, missing: [] });
      const normal = (await h.plant.lrange("fleet:queue:jobs")).map((b) => b.toString());
      expect(normal.slice(-2)).toEqual(['{"id": "r1", "payload": {"big": 12345678901234567890}, "attempts": 0, "last_error": "boom"}', tried2]);
      const before = await h.snapshot();
      const bad = await h.call(dlqDelete.POST, "POST", "/queues/jobs/dead/delete", { body: { all: true, keep_attempts: true } });
      expect(bad.status).toBe(422);
      const badFlag = await h.call(dlqRequeue.POST, "POST", "/queues/jobs/dead/requeue", { body: { all: true, keep_attempts: "yes" } });
      expect(badFlag.status).toBe(422);
      expect(await h.snapshot()).toEqual(before);
    });

    it("requeues all and deletes by ref or all", async () => {
      await seed(h);
      const del = await h.call(dlqDelete.POST, "POST", "/queues/jobs/dead/delete", { body: { refs: [sha1(body("d1"))] } });
      expect(del.json).toEqual({ deleted: 1, missing: [] });
      const all = await h.call(dlqRequeue.POST, "POST", "/queues/jobs/dead/requeue", { body: { all: true } });
      expect(all.json).toEqual({ requeued: 2, missing: [] });
      await h.backend.queueDead("jobs", body("d4"));
      const delAll = await h.call(dlqDelete.POST, "POST", "/queues/jobs/dead/delete", { body: { all: true } });
      expect(delAll.json).toEqual({ deleted: 1, missing: [] });
      expect(await h.plant.exists("fleet:queue:jobs:dead")).toBe(false);
    });

    it("rejects bad bodies (400/413/422) and unknown queues (404), changing nothing", async () => {
      await seed(h);
      await h.unchanged(async () => {
        for (const route of [dlqRequeue.POST, dlqDelete.POST]) {
          const path = route === dlqRequeue.POST ? "/queues/jobs/dead/requeue" : "/queues/jobs/dead/delete";
          expect((await h.call(route, "POST", path, { rawBody: "{refs" })).status).toBe(400);
          const tooMany = await h.call(route, "POST", path, { body: { refs: Array.from({ length: 1001 }, () => "a".repeat(40)) } });
          expect(tooMany.status).toBe(400);
          expect((await h.call(route, "POST", path, { rawBody: oversizedBody() })).status).toBe(413);
          const shape = await h.call(route, "POST", path, { body: { refs: ["xyz", "b".repeat(40), 7] } });
          expect(shape.status).toBe(422);
          expect(shape.json.error.details.map((d: { path: string }) => d.path)).toEqual(["/refs/0", "/refs/2"]);
          expect((await h.call(route, "POST", path, { body: { all: false } })).status).toBe(422);
          expect((await h.call(route, "POST", path, { body: {} })).status).toBe(422);
          expect((await h.call(route, "POST", path.replace("jobs", "ghost"), { body: { all: true } })).status).toBe(404);
        }
      });
    });
  });

  describe("POST /queues/{name}/sweep", () => {
    it("requeues overdue reservations now", async () => {
      await seed(h);
      const res = await h.call(sweep.POST, "POST", "/queues/jobs/sweep");
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ requeued: 1, orphaned: [] });
      const after = await h.call(queue.GET, "GET", "/queues/jobs");
      expect(after.json.processing_items.map((p: { id: string }) => p.id)).toEqual(["p-new"]);
    });

    it("answers 404 for an unknown queue, changing nothing", async () => {
      await seed(h);
      await h.unchanged(async () => {
        expect((await h.call(sweep.POST, "POST", "/queues/ghost/sweep")).status).toBe(404);
      });
    });
  });
}
