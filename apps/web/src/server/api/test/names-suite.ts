// Names that would build another structure's keys (issue 12, point 3): a queue `x:dead`, an
// automation `x:high`, a pool `p:claim`, an automation `all`, two workers sharing keys. Each
// is refused with a clear message, and nothing at all changes in storage.
import { describe, expect, it } from "vitest";

import * as automation from "@/app/api/v1/automations/[type]/route";
import * as automationConfig from "@/app/api/v1/automations/[type]/config/route";
import * as tasks from "@/app/api/v1/automations/[type]/tasks/route";
import * as pool from "@/app/api/v1/pools/[name]/route";
import * as poolItem from "@/app/api/v1/pools/[name]/items/[id]/route";
import * as poolRelease from "@/app/api/v1/pools/[name]/items/[id]/release/route";
import * as queue from "@/app/api/v1/queues/[name]/route";
import * as dead from "@/app/api/v1/queues/[name]/dead/route";
import * as dlqDelete from "@/app/api/v1/queues/[name]/dead/delete/route";
import * as dlqRequeue from "@/app/api/v1/queues/[name]/dead/requeue/route";
import * as sweep from "@/app/api/v1/queues/[name]/sweep/route";
import * as worker from "@/app/api/v1/workers/[type]/[id]/route";
import * as workerConfig from "@/app/api/v1/workers/[type]/[id]/config/route";

import { now, type Handler, type Harness } from "./harness";

const body = (id: string) => `{"id": "${id}", "payload": {}}`;
const enc = encodeURIComponent;

interface Refusal {
  what: string;
  handler: Handler;
  method: string;
  path: string;
  body?: unknown;
  status: number;
  message: RegExp;
}

export function namesSuite(h: Harness): void {
  async function seed(): Promise<void> {
    const b = h.backend;
    // queue "jobs" with every list, dead letters included
    await b.queuePush("jobs", body("n1"));
    await b.queuePush("jobs", body("h1"), { priority: "high" });
    for (const id of ["d1", "d2"]) await b.queueDead("jobs", body(id));
    await h.plant.zadd("fleet:queue:jobs:processing", now() - 600, "p-old");
    await h.plant.hset("fleet:queue:jobs:processing:body", "p-old", body("p-old"));
    // automations in the catalog whose names end like a queue's lists
    await b.catalogSet("jobs:dead", JSON.stringify({ config: null, output: null, task_payload: null }));
    await b.catalogSet("jobs:high", JSON.stringify({ config: null, output: null, task_payload: null }));
    // pool "proxies" with an item whose id starts with "claim:", claimed
    await b.poolPut("proxies", "claim:a", "payload", {});
    expect((await b.poolClaimAny("proxies", {}, 600))?.id).toBe("claim:a");
    // a worker, and two workers of different automations that build the same keys
    await b.workerRegister("scraper", "w1", { hostname: "h1" });
    await b.workerSetState("scraper", "w1", "IDLE", null, now());
    await b.workerSetConfig("scraper", "w1", { slots: 1 });
    await b.workerRegister("a", "b:c", { hostname: "twin" });
    await b.workerRegister("a:b", "c", { hostname: "twin" });
    await b.workerSetConfig("a", "b:c", { slots: 1 });
  }

  const REFUSED: Refusal[] = [
    // tasks for "jobs:dead" would land in queue jobs' dead-letter list, unvalidated
    {
      what: "tasks into a dead-letter list",
      handler: tasks.POST,
      method: "POST",
      path: "/automations/jobs%3Adead/tasks",
      body: { payload: { x: 1 } },
      status: 404,
      message: /Tasks cannot be submitted to 'jobs:dead': 'jobs:dead' cannot be a queue: fleet:queue:jobs:dead is the dead-letter list of queue 'jobs'/,
    },
    {
      what: "tasks into a priority list",
      handler: tasks.POST,
      method: "POST",
      path: "/automations/jobs%3Ahigh/tasks",
      body: { tasks: [{ payload: {} }, { payload: {}, priority: "low" }] },
      status: 404,
      message: /high-priority pending list of queue 'jobs'/,
    },
    {
      what: "tasks into an automation 'all'",
      handler: tasks.POST,
      method: "POST",
      path: "/automations/all/tasks",
      body: { payload: {} },
      status: 404,
      message: /'all' cannot be an automation type/,
    },
    { what: "a queue read of another queue's list", handler: queue.GET, method: "GET", path: "/queues/jobs%3Adead", status: 404, message: /dead-letter list of queue 'jobs'/ },
    { what: "a dead-letter read", handler: dead.GET, method: "GET", path: "/queues/jobs%3Aprocessing/dead", status: 404, message: /reservation set of queue 'jobs'/ },
    {
      what: "a dead-letter delete",
      handler: dlqDelete.POST,
      method: "POST",
      path: "/queues/jobs%3Adead/dead/delete",
      body: { all: true },
      status: 404,
      message: /cannot be a queue/,
    },
    {
      what: "a dead-letter requeue",
      handler: dlqRequeue.POST,
      method: "POST",
      path: "/queues/jobs%3Adead/dead/requeue",
      body: { all: true },
      status: 404,
      message: /cannot be a queue/,
    },
    { what: "a sweep", handler: sweep.POST, method: "POST", path: "/queues/jobs%3Aprocessing%3Abody/sweep", status: 404, message: /reserved-body hash of queue 'jobs'/ },
    // pool "proxies:claim" item "a" has the claim key of pool "proxies" item "claim:a"
    {
      what: "a release of another pool's claim",
      handler: poolRelease.POST,
      method: "POST",
      path: "/pools/proxies%3Aclaim/items/a/release",
      status: 404,
      message: /'proxies:claim' cannot be a pool: its claim keys fleet:pool:proxies:claim:<id> are claim keys of pool 'proxies'/,
    },
    { what: "an item delete", handler: poolItem.DELETE, method: "DELETE", path: "/pools/proxies%3Aclaim/items/a", status: 404, message: /cannot be a pool/ },
    {
      what: "a pool delete of a claim key",
      handler: pool.DELETE,
      method: "DELETE",
      path: "/pools/proxies%3Aclaim%3Aclaim%3Aa",
      status: 404,
      message: /fleet:pool:proxies:claim:claim:a is a claim key of pool 'proxies'/,
    },
    { what: "a pool read of a claim key", handler: pool.GET, method: "GET", path: "/pools/proxies%3Aclaim%3Aclaim%3Aa", status: 404, message: /claim key of pool 'proxies'/ },
    // worker type "all": its index wkrs:all is every worker's; "scraper|w1" is worker scraper/w1's entry there
    {
      what: "a worker delete through wkrs:all",
      handler: worker.DELETE,
      method: "DELETE",
      path: `/workers/all/${enc("scraper|w1")}`,
      status: 404,
      message: /wkrs:all is the index of every worker/,
    },
    {
      what: "a rollout to automation 'all'",
      handler: automationConfig.PATCH,
      method: "PATCH",
      path: "/automations/all/config",
      body: { slots: 9 },
      status: 404,
      message: /'all' cannot be an automation type/,
    },
    {
      what: "a worker type holding '|'",
      handler: workerConfig.PUT,
      method: "PUT",
      path: `/workers/${enc("scraper|w1")}/x/config`,
      body: { slots: 9 },
      status: 404,
      message: /first '\|'/,
    },
    // a:b/c and a/b:c: both registered, the same keys
    {
      what: "a delete of a worker sharing its keys",
      handler: worker.DELETE,
      method: "DELETE",
      path: "/workers/a%3Ab/c",
      status: 409,
      message: /has the same keys \(wkr:a:b:c:…\) as worker 'b:c' of automation 'a'/,
    },
    {
      what: "a config write to a worker sharing its keys",
      handler: workerConfig.PATCH,
      method: "PATCH",
      path: "/workers/a/b%3Ac/config",
      body: { slots: 5 },
      status: 409,
      message: /as worker 'c' of automation 'a:b'/,
    },
    {
      what: "a rollout to an automation whose worker shares keys",
      handler: automationConfig.PATCH,
      method: "PATCH",
      path: "/automations/a%3Ab/config",
      body: { slots: 5 },
      status: 409,
      message: /nothing was changed/,
    },
  ];

  describe("names that would build another structure's keys", () => {
    it.each(REFUSED)("refuses $what ($method $path) and changes nothing", async (r) => {
      await seed();
      await h.unchanged(async () => {
        const res = await h.call(r.handler, r.method, r.path, r.body === undefined ? {} : { body: r.body });
        expect(res.status, JSON.stringify(res.json)).toBe(r.status);
        expect(res.json.error.code).toBe(r.status === 404 ? "not_found" : "conflict");
        expect(res.json.error.message).toMatch(r.message);
      });
    });

    it("still serves names with ':' that build only their own keys", async () => {
      await seed();
      await h.backend.catalogSet("ns:scraper", JSON.stringify({ config: null, output: null, task_payload: null }));
      const sent = await h.call(tasks.POST, "POST", "/automations/ns%3Ascraper/tasks", { body: { payload: { n: 1 } } });
      expect(sent.status).toBe(201);
      expect(await h.backend.queueSize("ns:scraper")).toBe(1);
      await h.backend.queuePush("jobs:deadline", body("x"));
      expect((await h.call(queue.GET, "GET", "/queues/jobs%3Adeadline")).status).toBe(200);
      await h.backend.poolPut("proxies:eu", "x", "p", {});
      expect((await h.call(pool.GET, "GET", "/pools/proxies%3Aeu")).status).toBe(200);
      // a worker id with ':' whose twin is not registered
      await h.backend.workerRegister("t", "host:1", {});
      expect((await h.call(workerConfig.PUT, "PUT", "/workers/t/host%3A1/config", { body: { slots: 2 } })).status).toBe(200);
      expect((await h.call(worker.DELETE, "DELETE", "/workers/t/host%3A1")).status).toBe(200);
    });

    it("shows no queue for an automation whose name is another queue's list", async () => {
      await seed();
      const res = await h.call(automation.GET, "GET", "/automations/jobs%3Adead");
      expect(res.status).toBe(200);
      // fleet:queue:jobs:dead holds queue jobs' dead letters, not pending tasks of jobs:dead
      expect(res.json.queue).toBeNull();
    });
  });
}
