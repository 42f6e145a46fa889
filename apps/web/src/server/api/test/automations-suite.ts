import { describe, expect, it } from "vitest";

import * as automations from "@/app/api/v1/automations/route";
import * as automation from "@/app/api/v1/automations/[type]/route";
import * as tasks from "@/app/api/v1/automations/[type]/tasks/route";

import { now, type Harness } from "./harness";

const PAYLOAD_SCHEMA = {
  type: "object",
  properties: { url: { type: "string", format: "uri" }, depth: { type: "integer", minimum: 0 }, label: { type: "string" } },
  required: ["url"],
  additionalProperties: false,
};

async function seed(h: Harness): Promise<void> {
  await h.backend.catalogSet("scraper", JSON.stringify({ config: { type: "object" }, output: null, task_payload: PAYLOAD_SCHEMA }));
  await h.backend.catalogSet("catalog-only", JSON.stringify({ config: null, output: null, task_payload: null }));
  await h.backend.workerRegister("scraper", "w1", {});
  await h.backend.workerSetState("scraper", "w1", "RUNNING", null, now());
  await h.backend.workerRegister("scraper", "w2", {});
  await h.backend.workerRegister("free", "f1", {});
  await h.backend.workerSetState("free", "f1", "IDLE", null, now());
}

export function automationsSuite(h: Harness): void {
  describe("GET /automations, /automations/{type}", () => {
    it("lists the union of catalog entries and worker types with counts, queue and stream", async () => {
      await seed(h);
      await h.backend.queuePush("scraper", '{"id": "t1", "payload": {}}');
      await h.backend.streamPush("scraper", "{}", { score: now(), maxLen: 100, ttlSeconds: 3600 });
      const res = await h.call(automations.GET, "GET", "/automations");
      expect(res.status).toBe(200);
      expect(res.json.total).toBe(3);
      expect(res.json.automations.map((a: { automation_type: string }) => a.automation_type)).toEqual(["catalog-only", "free", "scraper"]);
      const scraper = res.json.automations[2];
      expect(scraper.schemas).toEqual({ config: { type: "object" }, output: null, task_payload: PAYLOAD_SCHEMA });
      expect(scraper.workers).toEqual({ total: 2, running: 1, idle: 0, error: 0, offline: 1 });
      expect(scraper.queue).toMatchObject({ name: "scraper", pending: { normal: 1, total: 1 } });
      expect(scraper.stream).toEqual({ length: 1 });
      const free = res.json.automations[1];
      expect(free).toMatchObject({ schemas: null, queue: null, stream: null, workers: { total: 1, idle: 1 } });
      const one = await h.call(automation.GET, "GET", "/automations/scraper");
      expect(one.status).toBe(200);
      expect(one.json).toEqual(scraper);
      const paged = await h.call(automations.GET, "GET", "/automations?limit=1&offset=1");
      expect(paged.json.total).toBe(3);
      expect(paged.json.automations.map((a: { automation_type: string }) => a.automation_type)).toEqual(["free"]);
    });

    it("reports a corrupt catalog entry as null schemas listed in corrupt", async () => {
      await h.plant.hset("fleet:catalog", "broken", "{nope");
      const res = await h.call(automation.GET, "GET", "/automations/broken");
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ automation_type: "broken", schemas: null, corrupt: ["schemas"] });
    });

    it("answers 404 for an unknown automation", async () => {
      await seed(h);
      const res = await h.call(automation.GET, "GET", "/automations/unknown");
      expect(res.status).toBe(404);
      expect((await h.call(automations.GET, "GET", "/automations?limit=1001")).status).toBe(400);
    });
  });

  describe("POST /automations/{type}/tasks", () => {
    it("pushes one task with a 32-hex id as Python JSON and answers 201", async () => {
      await seed(h);
      const res = await h.call(tasks.POST, "POST", "/automations/scraper/tasks", { body: { payload: { url: "https://example.com/", depth: 2, label: "café" } } });
      expect(res.status).toBe(201);
      expect(res.json.ids).toHaveLength(1);
      const id = res.json.ids[0] as string;
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      const stored = await h.plant.lrange("fleet:queue:scraper");
      expect(stored.map((b) => b.toString())).toEqual([`{"id": "${id}", "payload": {"url": "https://example.com/", "depth": 2, "label": "caf\\u00e9"}}`]);
    });

    it("pushes a batch with priorities, all at once", async () => {
      await seed(h);
      const res = await h.call(tasks.POST, "POST", "/automations/scraper/tasks", {
        body: {
          tasks: [
            { payload: { url: "https://a.example" }, priority: "high" },
            { payload: { url: "https://b.example" } },
            { payload: { url: "https://c.example" }, priority: "low" },
          ],
        },
      });
      expect(res.status).toBe(201);
      expect(res.json.ids).toHaveLength(3);
      expect(new Set(res.json.ids).size).toBe(3);
      expect(await h.plant.lrange("fleet:queue:scraper:high")).toHaveLength(1);
      expect(await h.plant.lrange("fleet:queue:scraper")).toHaveLength(1);
      expect(await h.plant.lrange("fleet:queue:scraper:low")).toHaveLength(1);
    });

    it("answers 422 listing every failing payload field of a batch, pushing nothing", async () => {
      await seed(h);
      await h.unchanged(async () => {
        const res = await h.call(tasks.POST, "POST", "/automations/scraper/tasks", {
          body: {
            tasks: [
              { payload: { url: "https://ok.example" } },
              { payload: { depth: -1 } },
              { payload: { url: "https://ok.example" } },
              { payload: { url: "not a uri", extra: 1 } },
            ],
          },
        });
        expect(res.status).toBe(422);
        expect(res.json.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
          "/tasks/1/payload/depth",
          "/tasks/1/payload/url",
          "/tasks/3/payload/extra",
          "/tasks/3/payload/url",
        ]);
        const shape = await h.call(tasks.POST, "POST", "/automations/scraper/tasks", { body: { payload: [1], priority: "urgent", x: 1 } });
        expect(shape.status).toBe(422);
        expect(shape.json.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["/payload", "/priority", "/x"]);
      });
    });

    it("refuses (422) a payload the catalog's pattern would take minutes to check, pushing nothing", async () => {
      await seed(h);
      await h.backend.catalogSet(
        "scraper",
        JSON.stringify({ config: null, output: null, task_payload: { type: "object", properties: { id: { type: "string", pattern: "^(a+)+$" } } } }),
      );
      await h.unchanged(async () => {
        const res = await h.call(tasks.POST, "POST", "/automations/scraper/tasks", { body: { tasks: [{ payload: { id: "aaa" } }, { payload: { id: `${"a".repeat(32)}!` } }] } });
        expect(res.status).toBe(422);
        expect(res.json.error.details).toEqual([{ path: "/tasks/1/payload", message: expect.stringMatching(/could not be checked/) }]);
      });
    });

    it("answers 400 for more than 1000 tasks or malformed JSON, 413 over 1 MiB, pushing nothing", async () => {
      await seed(h);
      await h.unchanged(async () => {
        const many = Array.from({ length: 1001 }, () => ({ payload: { url: "https://x.example" } }));
        const res = await h.call(tasks.POST, "POST", "/automations/scraper/tasks", { body: { tasks: many } });
        expect(res.status).toBe(400);
        expect(res.json.error.code).toBe("bad_request");
        expect((await h.call(tasks.POST, "POST", "/automations/scraper/tasks", { rawBody: "{'payload': 1}" })).status).toBe(400);
        const big = { tasks: Array.from({ length: 900 }, () => ({ payload: { url: "https://x.example", pad: "y".repeat(1200) } })) };
        expect((await h.call(tasks.POST, "POST", "/automations/free/tasks", { body: big })).status).toBe(413);
      });
    });

    it("accepts any object for a type without a catalog entry; 404 for an unknown type", async () => {
      await seed(h);
      const ok = await h.call(tasks.POST, "POST", "/automations/free/tasks", { body: { payload: { whatever: [1, 2] } } });
      expect(ok.status).toBe(201);
      await h.unchanged(async () => {
        expect((await h.call(tasks.POST, "POST", "/automations/ghost/tasks", { body: { payload: {} } })).status).toBe(404);
      });
    });
  });
}
