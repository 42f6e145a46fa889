// Worker error history (issue 19.6) on both backends: what a tick records and what it does not,
// a new term (another replica, a restart) that does not record again what is recorded, the
// bound of 50, and the routes (GET /workers/{type}/{id}/errors, last_error_since in the list
// and the detail). The Redis run uses a redis-server of its own (fixed fleet:console:* names).
import type { Backend } from "@fleet/backend";
import type { Worker, WorkerStatus } from "@fleet/schema";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { GET as getWorkers } from "@/app/api/v1/workers/route";
import { GET as getWorker } from "@/app/api/v1/workers/[type]/[id]/route";
import { GET as getErrors } from "@/app/api/v1/workers/[type]/[id]/errors/route";
import { bearer, call, clearAuth, configureAuth } from "@/server/auth/test/auth-env";

import { WorkerChangeFeed } from "../events/worker-feed";
import { errorSince, readWorkerErrors, transition, WorkerErrorRecorder, WORKER_ERRORS_KEEP } from "./worker-errors";

let server: PrivateRedis;
beforeAll(async () => {
  server = await startPrivateRedis();
});
afterAll(async () => {
  await clearAuth();
  await server?.stop();
});

const T = 1_800_000_000;
const OFFLINE = 30;
const leading = () => true;

describe("transition", () => {
  it("records new errors, going offline and recovering; never a healthy newcomer or a running/idle flip", () => {
    expect(transition(null, { cls: "ok", error: null })).toBeNull();
    expect(transition(null, { cls: "error", error: "boom" })).toBe("error");
    expect(transition(null, { cls: "ok", error: "old" })).toBe("error");
    expect(transition({ cls: "ok", error: null }, { cls: "ok", error: null })).toBeNull();
    expect(transition({ cls: "error", error: "a" }, { cls: "error", error: "b" })).toBe("error");
    expect(transition({ cls: "error", error: "a" }, { cls: "offline", error: "a" })).toBe("offline");
    expect(transition({ cls: "offline", error: "a" }, { cls: "ok", error: "a" })).toBe("recovered");
    expect(transition({ cls: "ok", error: null }, { cls: "ok", error: "task failed" })).toBe("error");
    expect(transition({ cls: "ok", error: "task failed" }, { cls: "ok", error: null })).toBe("recovered");
  });

  it("says since when the current error shows: the start of the newest run with that text", () => {
    const e = (ts: number, error: string | null) => ({ ts, kind: "error" as const, status: "error" as const, state: "ERROR", error, last_seen: ts });
    expect(errorSince([e(30, "x"), e(20, "x"), e(10, "y")], "x")).toBe(20);
    expect(errorSince([e(30, "y"), e(20, "x")], "x")).toBeNull();
    expect(errorSince([e(30, "x")], null)).toBeNull();
  });
});

for (const kind of ["memory", "redis"] as const) {
  describe(`[${kind}] worker error history`, () => {
    let backend: Backend;
    beforeEach(async () => {
      if (kind === "redis") {
        const r = new Redis(server.url(), { maxRetriesPerRequest: 1 });
        await r.flushdb();
        r.disconnect();
      }
      backend = await configureAuth(kind === "redis" ? server.url() : `memory://worker-errors-${Math.random().toString(36).slice(2)}`);
    });

    async function worker(id: string, state: string, lastSeen: number, lastError: string | null) {
      await backend.workerRegister("scraper", id, {});
      await backend.workerSetState("scraper", id, state, lastError, lastSeen);
    }
    const ref = (id: string) => ({ automationType: "scraper", workerId: id });
    const kinds = async (id: string) => (await readWorkerErrors(backend, ref(id))).items.map((e) => `${e.kind}:${e.error ?? ""}`);

    it("records what changed at each tick, newest first; a new term writes nothing already recorded", async () => {
      await worker("ok", "RUNNING", T, null);
      await worker("bad", "ERROR", T, "HTTP 502 from https://example.com/a/very/long/path");
      const rec = new WorkerErrorRecorder({ offlineAfterSeconds: OFFLINE });
      expect(await rec.tick(backend, T + 1, leading)).toBe(1);
      expect(await rec.tick(backend, T + 2, leading)).toBe(0);
      expect(await kinds("ok")).toEqual([]);

      await worker("bad", "ERROR", T + 10, "Timeout after 30 s");
      await worker("ok", "IDLE", T + 10, null);
      expect(await rec.tick(backend, T + 11, leading)).toBe(1);
      // a restart, or the lead moving to another replica: starts from what Redis holds
      const other = new WorkerErrorRecorder({ offlineAfterSeconds: OFFLINE });
      expect(await other.tick(backend, T + 12, leading)).toBe(0);

      await worker("bad", "RUNNING", T + 20, null);
      expect(await other.tick(backend, T + 21, leading)).toBe(1);
      // heartbeats stop: offline once, not again every tick
      expect(await other.tick(backend, T + 20 + OFFLINE + 1, leading)).toBe(2);
      expect(await other.tick(backend, T + 20 + OFFLINE + 11, leading)).toBe(0);
      expect(await kinds("bad")).toEqual(["offline:", "recovered:", "error:Timeout after 30 s", "error:HTTP 502 from https://example.com/a/very/long/path"]);
      const [newest] = (await readWorkerErrors(backend, ref("bad"))).items;
      expect(newest).toMatchObject({ ts: T + 51, status: "offline", state: "RUNNING", last_seen: T + 20 });
    });

    it("writes nothing once the term has ended, and keeps the last 50", async () => {
      await worker("w", "ERROR", T, "e0");
      const rec = new WorkerErrorRecorder({ offlineAfterSeconds: OFFLINE });
      expect(await rec.tick(backend, T + 1, () => false)).toBe(0);
      expect(await kinds("w")).toEqual([]);
      for (let i = 1; i <= WORKER_ERRORS_KEEP + 5; i++) {
        await worker("w", "ERROR", T + i, `e${i}`);
        await rec.tick(backend, T + i, leading);
      }
      const got = await kinds("w");
      expect(got).toHaveLength(WORKER_ERRORS_KEEP);
      expect(got[0]).toBe(`error:e${WORKER_ERRORS_KEEP + 5}`);
    });

    it("with a live loop's feed: reads the fleet once per epoch, otherwise records from the changes alone", async () => {
      await worker("a", "RUNNING", T, null);
      await worker("b", "ERROR", T, "boom");
      const feed = new WorkerChangeFeed();
      const rec = new WorkerErrorRecorder({ offlineAfterSeconds: OFFLINE, feed });
      const w = (id: string, status: WorkerStatus, state: Worker["state"], lastError: string | null, lastSeen: number): Worker => ({
        automation_type: "scraper",
        worker_id: id,
        state,
        status,
        last_seen: lastSeen,
        last_error: lastError,
        config: null,
        config_gen: null,
        hardware: null,
        stats: null,
      });
      // no epoch yet (no loop): the fleet is read
      expect(await rec.tick(backend, T + 1, leading)).toBe(1);
      expect(rec.counts).toEqual({ reads: 1, fed: 0 });
      feed.begin();
      // a new epoch: read once more (what changed before it began is in no change)
      expect(await rec.tick(backend, T + 2, leading)).toBe(0);
      expect(rec.counts).toEqual({ reads: 2, fed: 0 });
      // from now on only the feed: a change in Redis that the loop has not reported is not read
      await worker("a", "ERROR", T + 3, "quiet");
      expect(await rec.tick(backend, T + 4, leading)).toBe(0);
      expect(rec.counts).toEqual({ reads: 2, fed: 1 });
      expect(await kinds("a")).toEqual([]);
      // the loop reports it (twice: the newest of a worker counts)
      feed.push({ changed: [w("a", "error", "ERROR", "first", T + 3)], removed: [] });
      feed.push({ changed: [w("a", "error", "ERROR", "quiet", T + 3)], removed: [] });
      expect(await rec.tick(backend, T + 5, leading)).toBe(1);
      expect(await kinds("a")).toEqual(["error:quiet"]);
      const [newest] = (await readWorkerErrors(backend, ref("a"))).items;
      expect(newest).toMatchObject({ ts: T + 5, status: "error", state: "ERROR", last_seen: T + 3 });
      // removed, then back healthy: its recorded head (an error) is read, so it is a recovery
      feed.push({ changed: [], removed: [{ automation_type: "scraper", worker_id: "b" }] });
      expect(await rec.tick(backend, T + 6, leading)).toBe(0);
      await worker("b", "RUNNING", T + 7, null);
      feed.push({ changed: [w("b", "running", "RUNNING", null, T + 7)], removed: [] });
      expect(await rec.tick(backend, T + 8, leading)).toBe(1);
      expect(await kinds("b")).toEqual(["recovered:", "error:boom"]);
      // changes taken by a tick whose term ended are not lost: the next tick reads the fleet
      await worker("a", "RUNNING", T + 9, null);
      feed.push({ changed: [w("a", "running", "RUNNING", null, T + 9)], removed: [] });
      expect(await rec.tick(backend, T + 10, () => false)).toBe(0);
      expect(await rec.tick(backend, T + 11, leading)).toBe(1);
      expect(rec.counts.reads).toBe(3);
      expect(await kinds("a")).toEqual(["recovered:", "error:quiet"]);
      // a report the loop read before the recorder's last read (an earlier heartbeat) is not news
      feed.push({ changed: [w("a", "error", "ERROR", "stale", T + 8)], removed: [] });
      expect(await rec.tick(backend, T + 11.5, leading)).toBe(0);
      expect(await kinds("a")).toEqual(["recovered:", "error:quiet"]);
      // a gap and a new epoch: the fleet is read again
      feed.gap();
      feed.begin();
      expect(await rec.tick(backend, T + 12, leading)).toBe(0);
      expect(rec.counts).toEqual({ reads: 4, fed: 6 });
    });

    it("answers the history to a viewer, last_error_since in the list and the detail, 404 for an unknown worker", async () => {
      await worker("bad", "ERROR", T, "boom");
      const rec = new WorkerErrorRecorder({ offlineAfterSeconds: 1e12 });
      await rec.tick(backend, T + 1, leading);
      await backend.workerStatsPush("scraper", "bad", T, { state: "ERROR" });
      await backend.workerErrorsPush([{ ...ref("bad"), entry: "not json" }], { maxEntries: 50, ttlSeconds: 60 });

      const res = await call(getErrors, "GET", "/workers/scraper/bad/errors", { headers: bearer("viewer") });
      expect(res.status).toBe(200);
      expect(res.json.corrupt).toBe(1);
      expect(res.json.items).toEqual([{ ts: T + 1, kind: "error", status: expect.any(String), state: "ERROR", error: "boom", last_seen: T }]);

      const list = await call(getWorkers, "GET", "/workers", { headers: bearer("viewer") });
      expect(list.json.workers.find((w: { worker_id: string }) => w.worker_id === "bad").last_error_since).toBe(T + 1);
      const detail = await call(getWorker, "GET", "/workers/scraper/bad", { headers: bearer("viewer") });
      expect(detail.json.last_error_since).toBe(T + 1);

      const missing = await call(getErrors, "GET", "/workers/scraper/nope/errors", { headers: bearer("viewer") });
      expect(missing.status).toBe(404);
      expect(missing.json.error.code).toBe("not_found");
      const anonymous = await call(getErrors, "GET", "/workers/scraper/bad/errors");
      expect(anonymous.status).toBe(401);
    });
  });
}
