import { expect, it, describe } from "vitest";

import * as workers from "@/app/api/v1/workers/route";
import * as worker from "@/app/api/v1/workers/[type]/[id]/route";
import * as stats from "@/app/api/v1/workers/[type]/[id]/stats/route";
import * as config from "@/app/api/v1/workers/[type]/[id]/config/route";
import * as rollout from "@/app/api/v1/automations/[type]/config/route";
import * as bulkConfig from "@/app/api/v1/workers/bulk-config/route";
import * as audit from "@/app/api/v1/audit/route";

import { now, type BulkOp, type Harness } from "./harness";

async function seedFleet(h: Harness): Promise<void> {
  const b = h.backend;
  const t = now();
  await b.workerRegister("scraper", "w1", { hostname: "alpha-1", cpus: 4 });
  await b.workerSetState("scraper", "w1", "RUNNING", null, t);
  await b.workerRegister("scraper", "w2", { hostname: "beta-2" });
  await b.workerSetState("scraper", "w2", "IDLE", null, t);
  await b.workerRegister("scraper", "w3", { hostname: "alpha-3" });
  await b.workerSetState("scraper", "w3", "RUNNING", null, t - 3600);
  await b.workerRegister("mailer", "m1", { hostname: "gamma" });
  await b.workerSetState("mailer", "m1", "ERROR", "smtp refused", t);
}

export function workersSuite(h: Harness): void {
  describe("GET /workers", () => {
    it("answers an empty fleet", async () => {
      const res = await h.call(workers.GET, "GET", "/workers");
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ total: 0, counts: { running: 0, idle: 0, error: 0, offline: 0 }, workers: [] });
    });

    it("lists workers sorted by type then id, with status and counts", async () => {
      await seedFleet(h);
      const res = await h.call(workers.GET, "GET", "/workers");
      expect(res.status).toBe(200);
      expect(res.json.total).toBe(4);
      expect(res.json.counts).toEqual({ running: 1, idle: 1, error: 1, offline: 1 });
      expect(res.json.workers.map((w: { automation_type: string; worker_id: string; status: string }) => [w.automation_type, w.worker_id, w.status])).toEqual([
        ["mailer", "m1", "error"],
        ["scraper", "w1", "running"],
        ["scraper", "w2", "idle"],
        ["scraper", "w3", "offline"],
      ]);
      const m1 = res.json.workers[0];
      expect(m1).toMatchObject({ state: "ERROR", last_error: "smtp refused", config: {}, config_gen: 0, hardware: { hostname: "gamma" } });
      expect(typeof m1.last_seen).toBe("number");
    });

    it("filters by type, status and q; counts ignore status and paging", async () => {
      await seedFleet(h);
      let res = await h.call(workers.GET, "GET", "/workers?type=scraper&status=running&limit=1&offset=0");
      expect(res.json.total).toBe(1);
      expect(res.json.counts).toEqual({ running: 1, idle: 1, error: 0, offline: 1 });
      expect(res.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["w1"]);

      res = await h.call(workers.GET, "GET", "/workers?q=ALPHA");
      expect(res.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["w1", "w3"]);
      expect(res.json.counts).toEqual({ running: 1, idle: 0, error: 0, offline: 1 });

      res = await h.call(workers.GET, "GET", "/workers?q=m1");
      expect(res.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["m1"]);

      res = await h.call(workers.GET, "GET", "/workers?limit=2&offset=1");
      expect(res.json.total).toBe(4);
      expect(res.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["w1", "w2"]);
    });

    it("sorts by last_seen, oldest or newest first, ties by type then id, unreadable last_seen as the oldest", async () => {
      const t = Math.floor(now());
      const b = h.backend;
      // b/x and a/y share a heartbeat: the tie falls back to type, then id.
      for (const [type, id, ago] of [
        ["b", "x", 10],
        ["a", "y", 10],
        ["a", "old", 500],
        ["c", "new", 1],
        ["a", "z", 10],
      ] as const) {
        await b.workerRegister(type, id, { hostname: `${id}.host` });
        await b.workerSetState(type, id, "RUNNING", null, t - ago);
      }
      await b.workerRegister("a", "bad", { hostname: "bad.host" });
      await h.plant.hset("wkr:a:bad:state", "state", "IDLE");
      await h.plant.hset("wkr:a:bad:state", "last_seen", "yesterday");
      const ids = (res: { json: { workers: Array<{ automation_type: string; worker_id: string }> } }) => res.json.workers.map((w) => `${w.automation_type}/${w.worker_id}`);

      const newest = await h.call(workers.GET, "GET", "/workers?sort=-last_seen");
      expect(newest.status).toBe(200);
      expect(ids(newest)).toEqual(["c/new", "a/y", "a/z", "b/x", "a/old", "a/bad"]);
      expect(newest.json.total).toBe(6);

      const oldest = await h.call(workers.GET, "GET", "/workers?sort=last_seen");
      expect(ids(oldest)).toEqual(["a/bad", "a/old", "a/y", "a/z", "b/x", "c/new"]);

      // The default and `name` keep the contract's order.
      const byName = ["a/bad", "a/old", "a/y", "a/z", "b/x", "c/new"];
      expect(ids(await h.call(workers.GET, "GET", "/workers"))).toEqual(byName);
      expect(ids(await h.call(workers.GET, "GET", "/workers?sort=name"))).toEqual(byName);

      // Sorting happens before paging, and filters and counts are unchanged by it.
      const paged = await h.call(workers.GET, "GET", "/workers?sort=-last_seen&type=a&limit=2&offset=1");
      expect(ids(paged)).toEqual(["a/z", "a/old"]);
      expect(paged.json.total).toBe(4);
      expect(paged.json.counts).toEqual({ running: 2, idle: 0, error: 0, offline: 2 });
      const offline = await h.call(workers.GET, "GET", "/workers?sort=-last_seen&status=offline&q=.host");
      expect(ids(offline)).toEqual(["a/old", "a/bad"]);
    });

    it("answers 400 bad_request for an unknown sort, naming the choices", async () => {
      for (const bad of ["age", "LAST_SEEN", "-name", "last_seen,name"]) {
        const res = await h.call(workers.GET, "GET", `/workers?sort=${encodeURIComponent(bad)}`);
        expect(res.status, `sort=${bad}`).toBe(400);
        expect(res.json.error.code).toBe("bad_request");
        const detail = res.json.error.details.find((d: { path: string }) => d.path === "sort");
        expect(detail?.message).toBe("sort must be name, last_seen or -last_seen");
      }
    });

    it.each([
      ["limit=1001", "limit"],
      ["limit=-1", "limit"],
      ["limit=abc", "limit"],
      ["limit=2.5", "limit"],
      ["offset=-3", "offset"],
      ["status=sleeping", "status"],
    ])("answers 400 for ?%s", async (qs, param) => {
      const res = await h.call(workers.GET, "GET", `/workers?${qs}`);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("bad_request");
      expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(param);
    });

    it("a later page pages through the first page's index: rows read afresh, counts of that index while its rows agree", async () => {
      await seedFleet(h);
      const ids = (res: { json: { workers: Array<{ worker_id: string }> } }) => res.json.workers.map((w) => w.worker_id);
      let res = await h.call(workers.GET, "GET", "/workers?limit=2");
      expect(ids(res)).toEqual(["m1", "w1"]);
      // m1 is not on the next page: the next page keeps the first page's counts and order
      await h.backend.workerSetState("mailer", "m1", "IDLE", null, now());
      res = await h.call(workers.GET, "GET", "/workers?limit=2&offset=2");
      expect(ids(res)).toEqual(["w2", "w3"]);
      expect(res.json.counts).toEqual({ running: 1, idle: 1, error: 1, offline: 1 });
      // a row of the page whose status moved: the index is read again, counts are today's
      await h.backend.workerSetState("scraper", "w3", "RUNNING", null, now());
      res = await h.call(workers.GET, "GET", "/workers?limit=2&offset=2");
      expect(res.json.counts).toEqual({ running: 2, idle: 2, error: 0, offline: 0 });
      expect(res.json.workers.map((w: { worker_id: string; status: string }) => [w.worker_id, w.status])).toEqual([
        ["w2", "idle"],
        ["w3", "running"],
      ]);
      // a status-filtered later page reads the index again when a row no longer fits the filter
      res = await h.call(workers.GET, "GET", "/workers?status=running&limit=1");
      expect(ids(res)).toEqual(["w1"]);
      await h.backend.workerSetState("scraper", "w3", "ERROR", "boom", now());
      res = await h.call(workers.GET, "GET", "/workers?status=running&limit=1&offset=1");
      expect(res.json.total).toBe(1);
      expect(ids(res)).toEqual([]);
    });

    it("a later page never shows another fleet from an index read before the fleet changed", async () => {
      await seedFleet(h);
      expect((await h.call(workers.GET, "GET", "/workers?limit=2")).json.total).toBe(4);
      // as many workers as before (same SCARD), every one of them another
      for (const [type, id] of [
        ["mailer", "m1"],
        ["scraper", "w1"],
        ["scraper", "w2"],
        ["scraper", "w3"],
      ] as const) {
        await h.backend.workerRemove(type, id);
      }
      for (const id of ["n1", "n2", "n3", "n4"]) {
        await h.backend.workerRegister("zeta", id, { hostname: id });
        await h.backend.workerSetState("zeta", id, "IDLE", null, now());
      }
      const res = await h.call(workers.GET, "GET", "/workers?limit=2&offset=2");
      expect(res.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["n3", "n4"]);
      expect(res.json.counts).toEqual({ running: 0, idle: 4, error: 0, offline: 0 });
      // one more worker (SCARD moved): read afresh too
      await h.backend.workerRegister("zeta", "n0", { hostname: "n0" });
      await h.backend.workerSetState("zeta", "n0", "RUNNING", null, now());
      const more = await h.call(workers.GET, "GET", "/workers?limit=2&offset=2");
      expect(more.json.total).toBe(5);
      expect(more.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["n2", "n3"]);
    });

    it("never fails on corrupt stored values: null fields, listed in corrupt, offline", async () => {
      await h.backend.workerRegister("scraper", "bad", { hostname: "x" });
      await h.plant.hset("wkr:scraper:bad:state", "state", "RUNNING");
      await h.plant.hset("wkr:scraper:bad:state", "last_seen", "yesterday");
      await h.plant.hset("wkr:scraper:bad:state", "last_error", "");
      await h.plant.set("wkr:scraper:bad:config", "{not json");
      await h.plant.set("wkr:scraper:bad:gen", "seven");
      await h.plant.set("wkr:scraper:bad:hardware", Buffer.from([0xff, 0xfe]));
      const res = await h.call(workers.GET, "GET", "/workers");
      expect(res.status).toBe(200);
      const w = res.json.workers[0];
      expect(w).toMatchObject({ worker_id: "bad", status: "offline", last_seen: null, config: null, config_gen: null, hardware: null });
      expect([...w.corrupt].sort()).toEqual(["config", "config_gen", "hardware", "last_seen"]);
    });
  });

  describe("GET/DELETE /workers/{type}/{id}", () => {
    it("answers one worker with history_len and its config generation as ETag", async () => {
      await seedFleet(h);
      await h.backend.workerStatsPush("scraper", "w1", now(), { rps: 1 });
      await h.backend.workerSetConfig("scraper", "w1", { slots: 2 });
      const res = await h.call(worker.GET, "GET", "/workers/scraper/w1");
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ automation_type: "scraper", worker_id: "w1", status: "running", history_len: 1, config: { slots: 2 }, config_gen: 1 });
      expect(res.headers.get("etag")).toBe('"1"');
    });

    it("decodes names with ':', '%', '/' and non-ASCII exactly once", async () => {
      const type = "cf:cookies.v2";
      const id = "host-1:slot/3 50%ü";
      await h.backend.workerRegister(type, id, { hostname: "h" });
      const res = await h.call(worker.GET, "GET", `/workers/${encodeURIComponent(type)}/${encodeURIComponent(id)}`);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ automation_type: type, worker_id: id });
    });

    it("answers 404 for an unknown worker", async () => {
      await seedFleet(h);
      const res = await h.call(worker.GET, "GET", "/workers/scraper/nobody");
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe("not_found");
    });

    it("deletes every key of the worker, and nothing of worker 'a:b'", async () => {
      for (const id of ["a", "a:b"]) {
        await h.backend.workerRegister("t", id, { hostname: id });
        await h.backend.workerSetState("t", id, "IDLE", null, now());
        await h.backend.workerSetStats("t", id, { n: 1 });
        await h.backend.workerStatsPush("t", id, now(), { n: 1 });
      }
      const before = await h.snapshot();
      const res = await h.call(worker.DELETE, "DELETE", "/workers/t/a");
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ deleted: true });
      const after = await h.snapshot();
      const gone = [...before.keys()].filter((k) => !after.has(k));
      expect(gone.sort()).toEqual(["wkr:t:a:config", "wkr:t:a:gen", "wkr:t:a:hardware", "wkr:t:a:state", "wkr:t:a:stats", "wkr:t:a:stats:history"]);
      expect((await h.call(worker.GET, "GET", "/workers/t/a%3Ab")).status).toBe(200);
      expect((await h.call(worker.GET, "GET", "/workers/t/a")).status).toBe(404);
      const list = await h.call(workers.GET, "GET", "/workers");
      expect(list.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(["a:b"]);
    });

    it("answers 404 deleting an unknown worker and changes nothing", async () => {
      await seedFleet(h);
      await h.unchanged(async () => {
        const res = await h.call(worker.DELETE, "DELETE", "/workers/scraper/nobody");
        expect(res.status).toBe(404);
      });
    });
  });

  describe("GET /workers/{type}/{id}/stats", () => {
    it("answers the newest `limit` frames after `since`, oldest first", async () => {
      await h.backend.workerRegister("t", "w", {});
      for (let ts = 100; ts <= 110; ts++) await h.backend.workerStatsPush("t", "w", ts, { n: ts });
      const res = await h.call(stats.GET, "GET", "/workers/t/w/stats?since=104&limit=3");
      expect(res.status).toBe(200);
      expect(res.json.frames).toEqual([
        { ts: 108, frame: { n: 108 } },
        { ts: 109, frame: { n: 109 } },
        { ts: 110, frame: { n: 110 } },
      ]);
      const all = await h.call(stats.GET, "GET", "/workers/t/w/stats?since=108");
      expect(all.json.frames.map((f: { ts: number }) => f.ts)).toEqual([109, 110]);
    });

    it("keeps a corrupt frame as null with its raw text", async () => {
      await h.backend.workerRegister("t", "w", {});
      await h.plant.zadd("wkr:t:w:stats:history", 5, "not json");
      const res = await h.call(stats.GET, "GET", "/workers/t/w/stats");
      expect(res.json.frames).toEqual([{ ts: 5, frame: null, raw: "not json" }]);
    });

    it("answers 404 for an unknown worker and 400 for a bad limit", async () => {
      expect((await h.call(stats.GET, "GET", "/workers/t/none/stats")).status).toBe(404);
      await h.backend.workerRegister("t", "w", {});
      expect((await h.call(stats.GET, "GET", "/workers/t/w/stats?limit=5000")).status).toBe(400);
      expect((await h.call(stats.GET, "GET", "/workers/t/w/stats?since=soon")).status).toBe(400);
    });
  });

  describe("NaN and Infinity that Python's json.dumps writes", () => {
    it("are read and shown as the strings of Python's tokens, not reported corrupt, and a config write keeps them", async () => {
      await h.backend.workerRegister("t", "w", {});
      await h.backend.workerSetState("t", "w", "RUNNING", null, now());
      await h.plant.set("wkr:t:w:hardware", '{"hostname": "h", "temp": Infinity}');
      await h.plant.set("wkr:t:w:stats", '{"rate": NaN, "low": -Infinity, "ok": 1.5}');
      await h.plant.set("wkr:t:w:config", '{"slots": 2, "limit": NaN}');
      await h.plant.zadd("wkr:t:w:stats:history", 5, '{"rate": NaN}');
      const res = await h.call(worker.GET, "GET", "/workers/t/w");
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ hardware: { hostname: "h", temp: "Infinity" }, stats: { rate: "NaN", low: "-Infinity", ok: 1.5 }, config: { slots: 2, limit: "NaN" } });
      expect(res.json.corrupt).toBeUndefined();
      const list = await h.call(workers.GET, "GET", "/workers");
      expect(list.json.workers[0]).toMatchObject({ stats: { rate: "NaN" } });
      expect((await h.call(stats.GET, "GET", "/workers/t/w/stats")).json.frames).toEqual([{ ts: 5, frame: { rate: "NaN" } }]);
      // a merge patch leaves the NaN member alone, and the backend writes it back as Python's token
      const patched = await h.call(config.PATCH, "PATCH", "/workers/t/w/config", { body: { slots: 3 } });
      expect(patched.status).toBe(200);
      expect(patched.json.config).toEqual({ slots: 3, limit: "NaN" });
      expect((await h.plant.get("wkr:t:w:config"))?.toString()).toBe('{"slots": 3, "limit": NaN}');
    });

    it("a whole config written back as the page was shown it keeps Python's tokens, byte for byte; a token string elsewhere stays a string", async () => {
      await h.backend.workerRegister("t", "w", {});
      // a null member: the page cannot say it in a merge patch, so its editor PUTs the whole config
      await h.plant.set("wkr:t:w:config", '{"slots": 2, "limit": NaN, "proxy": null, "xs": [1, Infinity, {"lo": -Infinity}]}');
      const shown = (await h.call(config.PUT, "PUT", "/workers/t/w/config", { body: { slots: 2, limit: "NaN", proxy: null, xs: [1, "Infinity", { lo: "-Infinity" }] } })).json;
      expect(shown).toEqual({ config: { slots: 2, limit: "NaN", proxy: null, xs: [1, "Infinity", { lo: "-Infinity" }] }, config_gen: 1 });
      expect((await h.plant.get("wkr:t:w:config"))?.toString()).toBe('{"slots": 2, "limit": NaN, "proxy": null, "xs": [1, Infinity, {"lo": -Infinity}]}');
      // where the stored value is not that number, the string is what the person wrote
      const put = await h.call(config.PUT, "PUT", "/workers/t/w/config", { body: { slots: 3, limit: "Infinity", note: "NaN", xs: ["NaN", "Infinity"] } });
      expect(put.status).toBe(200);
      expect((await h.plant.get("wkr:t:w:config"))?.toString()).toBe('{"slots": 3, "limit": "Infinity", "note": "NaN", "xs": ["NaN", Infinity]}');
    });

    it('a fleet write that changes nothing but shows NaN as "NaN" writes nothing: a rollout skipping unchanged workers, a revert per worker', async () => {
      await h.backend.workerRegister("t", "w", {});
      await h.plant.set("wkr:t:w:config", '{"slots": 2, "limit": NaN}');
      await h.plant.set("wkr:t:w:gen", "4");
      const none = await h.call(rollout.PATCH, "PATCH", "/automations/t/config?skip_unchanged=true", { body: { slots: 2 } });
      expect(none.status).toBe(200);
      expect(none.json).toEqual({ workers: [] });
      const revert = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
        body: { automation_type: "t", intent: "revert", workers: [{ worker_id: "w", config_gen: 4, config: { slots: 2, limit: "NaN" } }] },
      });
      expect(revert.status).toBe(200);
      expect(revert.json).toEqual({ workers: [], unchanged: 1 });
      // and one that does change writes the change, keeping the token
      const changed = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
        body: { automation_type: "t", intent: "revert", workers: [{ worker_id: "w", config_gen: 4, config: { slots: 5, limit: "NaN" } }] },
      });
      expect(changed.json).toEqual({ workers: [{ worker_id: "w", config_gen: 5 }], unchanged: 0 });
      expect((await h.plant.get("wkr:t:w:config"))?.toString()).toBe('{"slots": 5, "limit": NaN}');
    });

    it("the audit trail shows a change of a config holding NaN as the change it is, and a revert naming it (revert_of) writes the NaN back", async () => {
      await h.backend.workerRegister("t", "w", {});
      await h.plant.set("wkr:t:w:config", '{"slots": 2, "limit": NaN, "xs": [Infinity]}');
      expect((await h.call(config.PUT, "PUT", "/workers/t/w/config", { body: { slots: 2, limit: 5, xs: [-1] } })).status).toBe(200);
      // the entry holds Python's tokens (written as json.dumps writes); it is read, not shown corrupt
      const trail = await h.call(audit.GET, "GET", "/audit?limit=1");
      const entry = trail.json.items[0];
      expect(entry).toMatchObject({ action: "worker.config.put", before: { slots: 2, limit: "NaN", xs: ["Infinity"] }, after: { slots: 2, limit: 5, xs: [-1] } });
      expect(entry.corrupt).toBeUndefined();
      expect(entry.id).toMatch(/^[0-9a-f]{16}$/);
      // the page sends back what it was shown: without the entry the strings are all it has
      const shown = entry.before;
      const revert = await h.call(config.PUT, "PUT", `/workers/t/w/config?intent=revert&revert_of=${entry.id}`, { body: shown });
      expect(revert.status).toBe(200);
      expect(revert.json.config).toEqual({ slots: 2, limit: "NaN", xs: ["Infinity"] });
      expect((await h.plant.get("wkr:t:w:config"))?.toString()).toBe('{"slots": 2, "limit": NaN, "xs": [Infinity]}');
      // a token string where the entry held no such number stays the string written
      await h.call(config.PUT, "PUT", "/workers/t/w/config", { body: { slots: 1, limit: 5, xs: [-1] } });
      const again = await h.call(config.PATCH, "PATCH", `/workers/t/w/config?intent=revert&revert_of=${entry.id}`, { body: { slots: "NaN", limit: "NaN" } });
      expect(again.status).toBe(200);
      expect((await h.plant.get("wkr:t:w:config"))?.toString()).toBe('{"slots": "NaN", "limit": NaN, "xs": [-1]}');
    });

    it("revert_of must name a done config change of that very worker still in the trail; otherwise nothing is written", async () => {
      await h.backend.workerRegister("t", "w", {});
      await h.backend.workerRegister("t", "v", {});
      await h.plant.set("wkr:t:w:config", '{"limit": NaN}');
      await h.call(config.PUT, "PUT", "/workers/t/w/config", { body: { limit: 1 } });
      const id = (await h.call(audit.GET, "GET", "/audit?limit=1")).json.items[0].id as string;
      await h.unchanged(async () => {
        const other = await h.call(config.PUT, "PUT", `/workers/t/v/config?intent=revert&revert_of=${id}`, { body: { limit: "NaN" } });
        expect(other.status).toBe(400);
        expect(other.json.error.message).toContain(`audit entry ${id} is not a change of the config of worker 'v'`);
        const gone = await h.call(config.PUT, "PUT", "/workers/t/w/config?intent=revert&revert_of=0123456789abcdef", { body: { limit: "NaN" } });
        expect(gone.status).toBe(409);
        expect(gone.json.error.message).toContain("is no longer in the audit trail");
        const noIntent = await h.call(config.PUT, "PUT", `/workers/t/w/config?revert_of=${id}`, { body: { limit: "NaN" } });
        expect(noIntent.status).toBe(400);
        expect(noIntent.json.error.message).toContain("revert_of goes with intent=revert");
        const badId = await h.call(config.PUT, "PUT", "/workers/t/w/config?intent=revert&revert_of=../x", { body: { limit: "NaN" } });
        expect(badId.status).toBe(400);
        const bulkOther = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
          body: { automation_type: "t", intent: "revert", revert_of: id, workers: [{ worker_id: "w", config_gen: 1, config: { limit: "NaN" } }] },
        });
        expect(bulkOther.status).toBe(400);
        expect(bulkOther.json.error.message).toContain(`audit entry ${id} is not a config change of the workers of 't'`);
      });
      expect((await h.plant.get("wkr:t:w:config"))?.toString()).toBe('{"limit": 1}');
    });

    it("a fleet-wide revert naming its entry writes back each worker's NaN: from the entry, and from the changes kept beside it past 100 workers", async () => {
      const n = 101;
      const ids = Array.from({ length: n }, (_, i) => `w${String(i).padStart(3, "0")}`);
      // even workers hold a NaN, odd ones a -Infinity beside another member
      const stored = (id: string) => (Number(id.slice(1)) % 2 === 0 ? '{"limit": NaN}' : '{"limit": -Infinity, "k": 1}');
      const shown = (id: string) => (Number(id.slice(1)) % 2 === 0 ? { limit: "NaN" } : { limit: "-Infinity", k: 1 });
      const ops: BulkOp[] = [];
      for (const id of ids) {
        ops.push(["set", `wkr:t:${id}:hardware`, "{}"], ["set", `wkr:t:${id}:config`, stored(id)], ["sadd", "wkrs:t", id], ["sadd", "wkrs:all", `t|${id}`]);
        ops.push(["hset", `wkr:t:${id}:state`, { state: "IDLE", last_seen: String(now() + 3600), last_error: "" }]);
      }
      await h.plant.bulk(ops);
      const gens = async () =>
        new Map<string, number>(
          (await h.call(workers.GET, "GET", "/workers?type=t&limit=1000")).json.workers.map((w: { worker_id: string; config_gen: number }) => [w.worker_id, w.config_gen]),
        );
      const revertTo = async (entryId: string, targets: string[]) => {
        const g = await gens();
        const sent = targets.map((worker_id) => ({ worker_id, config_gen: g.get(worker_id)!, config: shown(worker_id) }));
        const res = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", { body: { automation_type: "t", intent: "revert", revert_of: entryId, workers: sent } });
        expect(res.status).toBe(200);
        expect(res.json.workers).toHaveLength(targets.length);
        for (const id of targets) expect((await h.plant.get(`wkr:t:${id}:config`))?.toString(), id).toBe(stored(id));
      };

      // two workers: their changes are in the entry itself
      const two = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
        body: {
          automation_type: "t",
          patch: { limit: 7 },
          workers: [
            { worker_id: "w000", config_gen: 0 },
            { worker_id: "w001", config_gen: 0 },
          ],
        },
      });
      expect(two.status).toBe(200);
      let entry = (await h.call(audit.GET, "GET", "/audit?limit=1")).json.items[0];
      expect(entry.corrupt).toBeUndefined();
      expect(entry.changes).toEqual([
        { worker_id: "w000", before: { limit: "NaN" }, after: { limit: 7 } },
        { worker_id: "w001", before: { limit: "-Infinity", k: 1 }, after: { limit: 7, k: 1 } },
      ]);
      await revertTo(entry.id, ["w000", "w001"]);

      // every worker: past 100, the changes are kept beside the entry
      expect((await h.call(rollout.PATCH, "PATCH", "/automations/t/config", { body: { limit: 9 } })).status).toBe(200);
      entry = (await h.call(audit.GET, "GET", "/audit?limit=1")).json.items[0];
      expect(entry.corrupt).toBeUndefined();
      expect(entry.changes_kept).toBe(n);
      await revertTo(entry.id, ["w000", "w099", "w100"]);
      // a worker the revert did not name keeps the rollout's value
      expect((await h.plant.get("wkr:t:w050:config"))?.toString()).toBe('{"limit": 9}');
    });

    it("a fleet-wide write of configs too large to list whole keeps them beside its entry, and its revert writes back each worker's NaN from there", async () => {
      const ids = ["w0", "w1", "w2"];
      // ~50 KiB each: the entry lists the first change whole and the rest by their digest
      const pad = (id: string) => `${id}-${"x".repeat(50 * 1024)}`;
      const stored = (id: string) => `{"limit": NaN, "pad": "${pad(id)}"}`;
      const ops: BulkOp[] = [];
      for (const id of ids) ops.push(["set", `wkr:t:${id}:config`, stored(id)], ["sadd", "wkrs:t", id], ["sadd", "wkrs:all", `t|${id}`]);
      await h.plant.bulk(ops);
      const write = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", {
        body: { automation_type: "t", patch: { limit: 7 }, workers: ids.map((worker_id) => ({ worker_id, config_gen: 0 })) },
      });
      expect(write.status, JSON.stringify(write.json)).toBe(200);
      const entry = (await h.call(audit.GET, "GET", "/audit?limit=1")).json.items[0];
      expect(entry).toMatchObject({ action: "workers.bulk.config", changes_total: 3, changes_kept: 3 });
      expect(entry.changes[2].before).toMatchObject({ truncated: true });
      const sent = ids.map((worker_id) => ({ worker_id, config_gen: 1, config: { limit: "NaN", pad: pad(worker_id) } }));
      const res = await h.call(bulkConfig.POST, "POST", "/workers/bulk-config", { body: { automation_type: "t", intent: "revert", revert_of: entry.id, workers: sent } });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      for (const id of ids) expect((await h.plant.get(`wkr:t:${id}:config`))?.toString(), id).toBe(stored(id));
    });
  });
}
