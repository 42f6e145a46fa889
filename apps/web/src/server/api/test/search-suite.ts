// GET /queues/{name}/search (issue 14.1): NDJSON lines, on both backends.
import { pyJsonBytes } from "@fleet/backend";
import { normalizeErrorMessage, SearchLineSchema, type SearchLine } from "@fleet/schema";
import { describe, expect, it } from "vitest";

import * as search from "@/app/api/v1/queues/[name]/search/route";
import * as bulk from "@/app/api/v1/queues/[name]/bulk/route";
import * as bulkJob from "@/app/api/v1/queues/[name]/bulk/[id]/route";
import * as bulkCancel from "@/app/api/v1/queues/[name]/bulk/[id]/cancel/route";
import { getBulkRunner } from "@/server/bulk";
import { waitFor } from "@/server/events/test/helpers";

import { now, sha1, type Harness } from "./harness";

const task = (id: string, payload: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ id, payload, ...extra });

async function seed(h: Harness): Promise<void> {
  const b = h.backend;
  await b.queuePush("jobs", task("n1", { customer: "c17" }));
  await b.queuePush("jobs", task("n2", { customer: "c18" }));
  await b.queuePush("jobs", task("h1", { customer: "c17", note: "URGENT" }), { priority: "high" });
  await b.queuePush("jobs", task("l1", { customer: "c9" }), { priority: "low" });
  await b.queuePush("jobs", Buffer.from([0xff, 0x00, 0x63, 0x31, 0x37]));
  await h.plant.zadd("fleet:queue:jobs:processing", now() + 600, "p1");
  await h.plant.hset("fleet:queue:jobs:processing:body", "p1", task("p1", { customer: "c17" }));
  await h.plant.zadd("fleet:queue:jobs:scheduled", now() + 60, task("s1", { customer: "c17" }, { attempts: 1, last_error: "Timeout after 3s" }));
  await b.queueDead("jobs", task("d1", { customer: "c17" }, { attempts: 3, last_error: "Timeout after 30s" }));
  await b.queueDead("jobs", task("d2", { customer: "c18" }, { attempts: 5, last_error: "Timeout after 12s" }));
  await b.queueDead("jobs", task("d3", { customer: "c17" }, { attempts: 3, last_error: "HTTP 503 from upstream" }));
}

interface Streamed {
  status: number;
  contentType: string | null;
  lines: SearchLine[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- error envelopes are checked field by field
  json: any;
}

async function run(path: string, headers: Record<string, string> = {}): Promise<Streamed> {
  const res = await search.GET(new Request(`http://localhost/api/v1${path}`, { headers }));
  const text = await res.text();
  const contentType = res.headers.get("content-type");
  if (res.status !== 200) return { status: res.status, contentType, lines: [], json: JSON.parse(text) };
  expect(contentType).toBe("application/x-ndjson; charset=utf-8");
  expect(text.endsWith("\n")).toBe(true);
  const lines = text
    .trimEnd()
    .split("\n")
    .map((l) => SearchLineSchema.parse(JSON.parse(l)));
  return { status: res.status, contentType, lines, json: null };
}

const matches = (s: Streamed) => s.lines.filter((l) => l.type === "match");
const done = (s: Streamed) => {
  const last = s.lines.at(-1)!;
  expect(last.type).toBe("done");
  return last as Extract<SearchLine, { type: "done" }>;
};

export function searchSuite(h: Harness): void {
  describe("GET /queues/{name}/search", () => {
    it("finds text anywhere in the bodies of every list, saying where, then a summary", async () => {
      await seed(h);
      const s = await run("/queues/jobs/search?q=C17");
      expect(s.status).toBe(200);
      expect(matches(s).map((m) => [m.list, m.priority, m.index, m.task_id])).toEqual([
        ["pending", "high", 0, "h1"],
        ["pending", "normal", 0, "n1"],
        ["pending", "normal", 2, null],
        ["processing", null, 0, "p1"],
        ["scheduled", null, 0, "s1"],
        ["dead", null, 0, "d1"],
        ["dead", null, 2, "d3"],
      ]);
      const d1 = matches(s).find((m) => m.task_id === "d1")!;
      const raw = task("d1", { customer: "c17" }, { attempts: 3, last_error: "Timeout after 30s" });
      expect(d1).toEqual({
        type: "match",
        list: "dead",
        priority: null,
        index: 0,
        ref: sha1(raw),
        task_id: "d1",
        attempts: 3,
        last_error: "Timeout after 30s",
        at: null,
        body: { text: raw, bytes: Buffer.byteLength(raw), truncated: false },
      });
      expect(matches(s).find((m) => m.list === "scheduled")!.at).toBeGreaterThan(now());
      expect(s.lines.some((l) => l.type === "progress")).toBe(true);
      expect(done(s)).toMatchObject({ scanned: 10, total: 10, matched: 7, returned: 7, corrupt: [] });
    });

    it("filters by fields, error group and lists; counts past the limit", async () => {
      await seed(h);
      const w = (where: string, extra = "") => run(`/queues/jobs/search?where=${encodeURIComponent(where)}${extra}`);
      expect(matches(await w('payload.customer = "c17" and attempts >= 3')).map((m) => m.task_id)).toEqual(["d1", "d3"]);
      expect(matches(await w('last_error ~ "timeout"', "&in=dead")).map((m) => m.task_id)).toEqual(["d1", "d2"]);
      const group = normalizeErrorMessage("Timeout after 30s");
      expect(group).toBe("Timeout after <n>s");
      expect(matches(await w(`error_group = "${group}"`)).map((m) => m.task_id)).toEqual(["s1", "d1", "d2"]);
      expect(matches(await w(`error_group = "${group}"`, "&in=scheduled,processing")).map((m) => m.task_id)).toEqual(["s1"]);
      expect(matches(await w('not payload.customer = "c17"', "&in=pending")).map((m) => m.task_id)).toEqual(["n2", null, "l1"]);
      const limited = await run("/queues/jobs/search?q=c1&limit=2");
      expect(matches(limited)).toHaveLength(2);
      expect(done(limited)).toMatchObject({ matched: 9, returned: 2 });
      const both = await run(`/queues/jobs/search?q=urgent&where=${encodeURIComponent('id = "h1"')}`);
      expect(matches(both).map((m) => m.task_id)).toEqual(["h1"]);
    });

    it("cuts long bodies for display and marks a list of another type corrupt", async () => {
      await h.backend.queueDead("big", task("x", { blob: "y".repeat(5000) }));
      await h.plant.set("fleet:queue:big:scheduled", "not a zset");
      const s = await run("/queues/big/search?q=yyy");
      const [m] = matches(s);
      expect(m!.body.truncated).toBe(true);
      expect(m!.body.text.length).toBe(1000);
      expect(m!.body.bytes).toBeGreaterThan(5000);
      expect(done(s).corrupt).toEqual(["scheduled"]);
    });

    it("refuses bad input before streaming: 422 naming the position, 400, 404", async () => {
      await seed(h);
      const bad = await run(`/queues/jobs/search?where=${encodeURIComponent("attempts >= ")}`);
      expect(bad.status).toBe(422);
      expect(bad.json.error.code).toBe("validation_failed");
      expect(bad.json.error.message).toBe(
        'The filter does not parse at position 13: expected a value after >=: a "quoted" text, a number, true, false or null, found the end of the filter.',
      );
      expect(bad.json.error.details).toEqual([{ path: "/where", message: expect.stringContaining("at position 13") }]);
      const deep = await run(`/queues/jobs/search?where=${encodeURIComponent(`${"(".repeat(100)}a = 1${")".repeat(100)}`)}`);
      expect(deep.status).toBe(422);
      const badIn = await run("/queues/jobs/search?in=dead,graves");
      expect(badIn.status).toBe(400);
      expect(badIn.json.error.message).toContain("graves");
      expect((await run("/queues/jobs/search?limit=99999")).status).toBe(400);
      expect((await run(`/queues/jobs/search?q=${"x".repeat(600)}`)).status).toBe(400);
      expect((await run("/queues/nope/search?q=x")).status).toBe(404);
      expect((await run("/queues/jobs%3Adead/search?q=x")).status).toBe(404);
    });

    it("stops reading when the client goes away", async () => {
      const many = Array.from({ length: 30_000 }, (_, i) => ({ body: task(`t${i}`, { n: i }) }));
      for (let i = 0; i < many.length; i += 5000) await h.backend.queuePushMany("long", many.slice(i, i + 5000));
      let calls = 0;
      let inFlight = 0;
      const real = h.backend.queueScan.bind(h.backend);
      const counted = h.backend as { queueScan: typeof real };
      counted.queueScan = (...args) => {
        calls++;
        inFlight++;
        return real(...args).finally(() => inFlight--);
      };
      try {
        const controller = new AbortController();
        const res = await search.GET(new Request("http://localhost/api/v1/queues/long/search?q=t", { signal: controller.signal }));
        const reader = res.body!.getReader();
        let text = "";
        while (!text.includes('"type":"match"')) {
          const step = await reader.read();
          expect(step.done).toBe(false);
          text += new TextDecoder().decode(step.value);
        }
        controller.abort();
        await reader.cancel();
        // the read under way may finish; then no other starts. A scan that went on would start
        // its next read as soon as one resolves (in the same turn), so it is never seen idle
        // from a timer: idle, and still idle some turns later, means stopped.
        await waitFor(() => inFlight === 0, { what: "the read under way to finish" });
        const seen = calls;
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
        expect(inFlight).toBe(0);
        expect(calls).toBe(seen);
        // and it read a few chunks of the 30,000 tasks, not all of them
        expect(calls).toBeLessThan(10);
      } finally {
        delete (counted as Partial<typeof counted>).queueScan;
      }
    });
  });

  describe("bulk actions on a search's matches", () => {
    const dead = (id: string, customer: string, error: string) => task(id, { customer }, { attempts: 3, last_error: error });
    const audit = async () =>
      (await h.backend.auditRange(0, 20)).items.map(
        (x) => JSON.parse(x.toString("utf8")) as { action: string; outcome: string; status: number; details?: Record<string, unknown> },
      );

    it("requeues every matching dead letter once, attempts back to 0, counted, audited as one entry the end completes", async () => {
      await h.backend.queueDead("jobs", dead("d1", "c17", "Timeout after 30s"));
      await h.backend.queueDead("jobs", dead("d2", "c18", "Timeout after 3s"));
      await h.backend.queueDead("jobs", dead("d3", "c17", "Timeout after 9s"));
      await h.backend.queueDead("jobs", dead("d4", "c17", "HTTP 503"));
      const where = 'payload.customer = "c17" and error_group = "Timeout after <n>s"';
      const res = await h.call(bulk.POST, "POST", "/queues/jobs/bulk", { body: { action: "requeue-dead", where, expected: 2, rate: 1000 } });
      expect(res.status).toBe(202);
      expect(res.json).toMatchObject({ queue: "jobs", action: "requeue-dead", where, q: null, expected: 2, rate: 1000 });
      await getBulkRunner().settle(res.json.id);
      const job = await h.call(bulkJob.GET, "GET", `/queues/jobs/bulk/${res.json.id}`);
      expect(job.json).toMatchObject({ state: "done", done: 2, missing: 0, scanned: 4 });
      const ids = (bodies: Buffer[]) => bodies.map((b) => JSON.parse(b.toString("utf8")) as { id: string; attempts: number });
      expect(ids(await h.backend.dlqPeek("jobs", 10)).map((t) => t.id)).toEqual(["d2", "d4"]);
      expect(ids(await h.backend.queuePeek("jobs", 10)).map((t) => [t.id, t.attempts])).toEqual([
        ["d1", 0],
        ["d3", 0],
      ]);
      // one entry for the whole job: the start's, completed in place with the counts when it ended
      await expect.poll(async () => (await audit()).find((e) => e.action === "queue.bulk")?.details?.state).toBe("done");
      const entries = (await audit()).filter((e) => e.action.startsWith("queue.bulk"));
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        outcome: "done",
        status: 202,
        details: { job: res.json.id, bulk_action: "requeue-dead", where, q: null, rate: 1000, expected: 2, state: "done", done: 2, missing: 0, scanned: 4 },
      });
      expect(entries[0]!.details!.ended_at).toEqual(expect.any(Number));
      expect(JSON.stringify(await audit())).not.toContain('"pending"');
      const list = await h.call(bulk.GET, "GET", "/queues/jobs/bulk");
      expect(list.json.jobs.map((j: { id: string }) => j.id)).toEqual([res.json.id]);
    });

    it("a job whose console died before its request completed the entry still ends with one entry", async () => {
      await h.backend.queueDead("jobs", dead("d1", "c17", "x"));
      await h.backend.queueDead("jobs", dead("d2", "c18", "x"));
      const where = 'payload.customer = "c17"';
      const pending = { id: "0a1b2c3d4e5f6071", outcome: "pending", ts: 1, actor: "vera", role: "operator", via: "token", action: "queue.bulk" };
      const pendingEntry = { ...pending, target: "queue:jobs", method: "POST", path: "/api/v1/queues/jobs/bulk", status: 0 };
      const started = {
        ...pendingEntry,
        outcome: "done",
        status: 202,
        details: { job: "crashed", bulk_action: "requeue-dead", q: null, where, rate: 1000, expected: 1, state: "running" },
      };
      // the request wrote its pending entry and the job, then its process died: the entry stays pending
      await h.backend.auditAppend(pyJsonBytes(pendingEntry), 1000);
      const doc = { queue: "jobs", action: "requeue-dead", q: null, where, rate: 1000, expected: 1, created_at: 1, created_by: "vera", role: "operator" };
      const audit_ = { pending: pyJsonBytes(pendingEntry).toString("latin1"), entry: pyJsonBytes(started).toString("latin1") };
      await h.backend.bulkJobCreate("crashed", pyJsonBytes({ ...doc, audit: audit_ }));
      // another console takes it over
      expect(await getBulkRunner().claim("crashed")).toBe(true);
      await getBulkRunner().settle("crashed");
      const entries = (await audit()).filter((e) => e.action.startsWith("queue.bulk"));
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ outcome: "done", status: 202, details: { job: "crashed", state: "done", done: 1, missing: 0 } });
      // nothing reads the stored entry back as part of the job
      expect((await h.call(bulkJob.GET, "GET", "/queues/jobs/bulk/crashed")).json).not.toHaveProperty("audit");

      // a job nobody runs (its console died, no other took it yet), cancelled: the cancel completes its entry
      await h.backend.auditAppend(pyJsonBytes({ ...started, details: { ...started.details, job: "orphan" } }), 1000);
      const orphanAudit = { pending: audit_.pending, entry: pyJsonBytes({ ...started, details: { ...started.details, job: "orphan" } }).toString("latin1") };
      await h.backend.bulkJobCreate("orphan", pyJsonBytes({ ...doc, audit: orphanAudit }));
      expect((await h.call(bulkCancel.POST, "POST", "/queues/jobs/bulk/orphan/cancel")).status).toBe(200);
      const after = (await audit()).filter((e) => e.action.startsWith("queue.bulk") && (e.details?.job === "orphan" || e.action === "queue.bulk.cancel"));
      expect(after.map((e) => [e.action, e.details?.state])).toEqual([
        ["queue.bulk.cancel", undefined],
        ["queue.bulk", "cancelled"],
      ]);
    });

    it("deletes matching pending tasks of every priority and leaves the others", async () => {
      await h.backend.queuePush("jobs", task("n1", { customer: "c17" }));
      await h.backend.queuePush("jobs", task("n2", { customer: "c18" }));
      await h.backend.queuePush("jobs", task("h1", { customer: "c17" }), { priority: "high" });
      const res = await h.call(bulk.POST, "POST", "/queues/jobs/bulk", { body: { action: "delete-pending", q: "c17", expected: 2 } });
      expect(res.status).toBe(202);
      await getBulkRunner().settle(res.json.id);
      expect((await h.call(bulkJob.GET, "GET", `/queues/jobs/bulk/${res.json.id}`)).json).toMatchObject({ state: "done", done: 2 });
      const left = (await h.backend.queueDetail("jobs", 10)).pending.map((p) => JSON.parse(p.body.toString("utf8")).id);
      expect(left).toEqual(["n2"]);
    });

    it("refuses bad input with a clear error and writes nothing", async () => {
      await h.backend.queueDead("jobs", dead("d1", "c17", "x"));
      await h.unchanged(async () => {
        const bad = await h.call(bulk.POST, "POST", "/queues/jobs/bulk", { body: { action: "requeue-dead", where: "attempts >=", expected: 1 } });
        expect(bad.status).toBe(422);
        expect(bad.json.error.message).toContain("at position 12");
        const none = await h.call(bulk.POST, "POST", "/queues/jobs/bulk", { body: { action: "requeue-dead", expected: 1 } });
        expect(none.status).toBe(422);
        expect(none.json.error.message).toContain("give a text (q) or a filter (where)");
        expect((await h.call(bulk.POST, "POST", "/queues/jobs/bulk", { body: { action: "explode", q: "x", expected: 1 } })).status).toBe(422);
        expect((await h.call(bulk.POST, "POST", "/queues/jobs/bulk", { body: { action: "delete-dead", q: "x", expected: 1, rate: 0 } })).status).toBe(422);
        expect((await h.call(bulk.POST, "POST", "/queues/nope/bulk", { body: { action: "delete-dead", q: "x", expected: 1 } })).status).toBe(404);
        expect((await h.call(bulkJob.GET, "GET", "/queues/jobs/bulk/nope")).status).toBe(404);
        expect((await h.call(bulkCancel.POST, "POST", "/queues/jobs/bulk/nope/cancel")).status).toBe(404);
      });
    });

    it("a cancelled job stops after its current chunk; a finished one cannot be cancelled", async () => {
      const many = Array.from({ length: 3000 }, (_, i) => ({ body: task(`t${i}`, { n: i }) }));
      for (let i = 0; i < many.length; i += 1000) await h.plant.rpush("fleet:queue:slow:dead", ...many.slice(i, i + 1000).map((m) => m.body));
      // 5 tasks a second: the first chunk takes 5, then it waits
      const res = await h.call(bulk.POST, "POST", "/queues/slow/bulk", { body: { action: "delete-dead", q: "t", expected: 3000, rate: 5 } });
      // a second job on the same list while it runs: 409, nothing started (one on the pending tasks may run beside it)
      // (the first job runs meanwhile, so not a snapshot of every key: no second job, no entry of it)
      const second = await h.call(bulk.POST, "POST", "/queues/slow/bulk", { body: { action: "requeue-dead", q: "t", expected: 3000 } });
      expect(second.status).toBe(409);
      expect(second.json.error.message).toContain(`Bulk job ${res.json.id} (delete-dead, started by`);
      expect((await h.call(bulk.GET, "GET", "/queues/slow/bulk")).json.jobs).toHaveLength(1);
      expect(await h.backend.queueSize("slow")).toBe(0);
      const cancelled = await h.call(bulkCancel.POST, "POST", `/queues/slow/bulk/${res.json.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.json).toMatchObject({ state: "cancelled", note: expect.stringContaining("cancelled by") });
      await getBulkRunner().settle(res.json.id);
      const job = (await h.call(bulkJob.GET, "GET", `/queues/slow/bulk/${res.json.id}`)).json;
      expect(job.state).toBe("cancelled");
      expect(job.done).toBeLessThanOrEqual(10);
      expect(await h.backend.dlqLength("slow")).toBe(3000 - job.done);
      const again = await h.call(bulkCancel.POST, "POST", `/queues/slow/bulk/${res.json.id}/cancel`);
      expect(again.status).toBe(409);
      // the job's entry says it was cancelled and how far it got; the cancel is an entry of its own
      await expect.poll(async () => (await audit()).find((e) => e.action === "queue.bulk")?.details?.state).toBe("cancelled");
      const entries = (await audit()).filter((e) => e.action.startsWith("queue.bulk"));
      expect(entries.map((e) => e.action).sort()).toEqual(["queue.bulk", "queue.bulk.cancel"]);
      expect(entries.find((e) => e.action === "queue.bulk")!.details).toMatchObject({ job: res.json.id, state: "cancelled", done: job.done });
    });
  });
}
