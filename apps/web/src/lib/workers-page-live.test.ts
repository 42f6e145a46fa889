import { QueryClient, type QueryKey } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { Worker, WorkerList } from "@fleet/schema";

import { queryKeys, type WorkersParams } from "./query";
import { testWorker } from "./test/worker";
import { applyWorkerPages, patchWorkerPages } from "./workers-page-live";

const worker = (type: string, id: string, over: Partial<Worker> = {}): Worker => testWorker(type, id, { stats: null, ...over });

function list(workers: Worker[], total = workers.length): WorkerList {
  const counts = { running: 0, idle: 0, error: 0, offline: 0 };
  for (const w of workers) counts[w.status] += 1;
  return { total, counts, workers };
}

function seeded(p: WorkersParams, data: WorkerList): { client: QueryClient; key: QueryKey } {
  const client = new QueryClient();
  const key = queryKeys.workers.page(p);
  client.setQueryData(key, data);
  return { client, key };
}

const ids = (l: WorkerList | undefined) => l?.workers.map((w) => `${w.automation_type}/${w.worker_id}:${w.status}`);

describe("patchWorkerPages", () => {
  it("patches rows in view and their counts without a refetch when nothing can move (name order, no status filter)", () => {
    const { client, key } = seeded({ type: "a", limit: 2 }, list([worker("a", "1"), worker("a", "2")], 10));
    const stale = patchWorkerPages(client, { changed: [worker("a", "2", { status: "error", state: "ERROR", last_error: "boom" })], removed: [] });
    expect(stale).toEqual([]);
    const page = client.getQueryData<WorkerList>(key)!;
    expect(ids(page)).toEqual(["a/1:running", "a/2:error"]);
    expect(page.workers[1]!.last_error).toBe("boom");
    expect(page.counts).toEqual({ running: 1, idle: 0, error: 1, offline: 0 });
    expect(page.total).toBe(10);
  });

  it("asks for a refetch when a worker not in view changes or appears, but only for pages it could belong to", () => {
    const client = new QueryClient();
    const typeA = queryKeys.workers.page({ type: "a" });
    const typeB = queryKeys.workers.page({ type: "b" });
    const searched = queryKeys.workers.page({ q: "zzz" });
    for (const k of [typeA, typeB, searched]) client.setQueryData(k, list([]));
    const stale = patchWorkerPages(client, { changed: [worker("a", "new")], removed: [] });
    expect(stale).toEqual([typeA]);
  });

  it("asks for a refetch when a status leaves the page's status filter, showing the new status meanwhile", () => {
    const { client, key } = seeded({ status: "running" }, list([worker("a", "1"), worker("a", "2")]));
    const stale = patchWorkerPages(client, { changed: [worker("a", "1", { status: "offline" })], removed: [] });
    expect(stale).toEqual([key]);
    const page = client.getQueryData<WorkerList>(key)!;
    expect(ids(page)).toEqual(["a/1:offline", "a/2:running"]);
    expect(page.total).toBe(1);
  });

  it("asks for a refetch under a last-seen sort when a row's last_seen moved, not under the name order", () => {
    const bySeen = seeded({ sort: "-last_seen" }, list([worker("a", "1")]));
    expect(patchWorkerPages(bySeen.client, { changed: [worker("a", "1", { last_seen: 2000 })], removed: [] })).toEqual([bySeen.key]);
    const byName = seeded({}, list([worker("a", "1")]));
    expect(patchWorkerPages(byName.client, { changed: [worker("a", "1", { last_seen: 2000 })], removed: [] })).toEqual([]);
  });

  it("drops a removed row, lowers total and counts, and asks for a refetch to fill the page", () => {
    const { client, key } = seeded({}, list([worker("a", "1"), worker("a", "2", { status: "idle", state: "IDLE" })], 5));
    const stale = patchWorkerPages(client, { changed: [], removed: [{ automation_type: "a", worker_id: "2" }] });
    expect(stale).toEqual([key]);
    const page = client.getQueryData<WorkerList>(key)!;
    expect(ids(page)).toEqual(["a/1:running"]);
    expect(page.total).toBe(4);
    expect(page.counts.idle).toBe(0);
  });
});

describe("applyWorkerPages", () => {
  it("asks the coalescer for exactly the pages whose members may have moved", () => {
    const client = new QueryClient();
    const typeA = queryKeys.workers.page({ type: "a" });
    const typeB = queryKeys.workers.page({ type: "b" });
    for (const k of [typeA, typeB]) client.setQueryData(k, list([]));
    const asked: Array<{ key: QueryKey; exact: boolean | undefined }> = [];
    applyWorkerPages(client, { changed: [worker("a", "new")], removed: [] }, (key, target) => asked.push({ key, exact: target?.exact }));
    expect(asked).toEqual([{ key: typeA, exact: true }]);
  });
});
