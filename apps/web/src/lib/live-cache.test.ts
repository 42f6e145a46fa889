import { QueryClient, type QueryKey } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { QueueList, Worker, WorkerDetail } from "@fleet/schema";

import { applyQueues, applyWorkers, upsertByName } from "./live-cache";
import { testWorker } from "./test/worker";
import { queryKeys, type WorkersEverything } from "./query";

const worker = testWorker;

function everything(workers: Worker[]): WorkersEverything {
  return { workers, total: workers.length, complete: true, loadedAt: 0 };
}

function recorder() {
  const keys: QueryKey[] = [];
  return { keys, fn: (k: QueryKey) => void keys.push(k) };
}

describe("applyWorkers", () => {
  it("patches, adds (sorted) and removes workers in every full list, respecting each list's type", () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.workers.everything(undefined), everything([worker("a", "1"), worker("a", "3"), worker("b", "1")]));
    client.setQueryData(queryKeys.workers.everything("a"), everything([worker("a", "1"), worker("a", "3")]));
    const inv = recorder();

    applyWorkers(
      client,
      {
        changed: [worker("a", "1", { status: "error", state: "ERROR", last_error: "boom" }), worker("a", "2"), worker("b", "2")],
        removed: [{ automation_type: "a", worker_id: "3" }],
      },
      inv.fn,
    );

    const all = client.getQueryData<WorkersEverything>(queryKeys.workers.everything(undefined))!;
    expect(all.workers.map((w) => `${w.automation_type}/${w.worker_id}`)).toEqual(["a/1", "a/2", "b/1", "b/2"]);
    expect(all.workers[0]!.status).toBe("error");
    expect(all.total).toBe(4);

    const onlyA = client.getQueryData<WorkersEverything>(queryKeys.workers.everything("a"))!;
    expect(onlyA.workers.map((w) => w.worker_id)).toEqual(["1", "2"]);
    expect(onlyA.total).toBe(2);
  });

  it("updates a cached worker page in place, keeps history_len, and refreshes its stats only when they changed", () => {
    const client = new QueryClient();
    const key = queryKeys.workers.detail("a", "1");
    client.setQueryData<WorkerDetail>(key, { ...worker("a", "1"), history_len: 42 });
    const inv = recorder();

    applyWorkers(client, { changed: [worker("a", "1", { config_gen: 2 })], removed: [] }, inv.fn);
    expect(client.getQueryData<WorkerDetail>(key)).toMatchObject({ config_gen: 2, history_len: 42 });
    expect(inv.keys.some((k) => k[1] === "stats")).toBe(false);

    applyWorkers(client, { changed: [worker("a", "1", { stats: { done: 2 } })], removed: [] }, inv.fn);
    expect(inv.keys).toContainEqual(["workers", "stats", "a", "1"]);
  });

  it("does not create caches nobody asked for", () => {
    const client = new QueryClient();
    applyWorkers(client, { changed: [worker("a", "1")], removed: [] }, recorder().fn);
    expect(client.getQueryData(queryKeys.workers.detail("a", "1"))).toBeUndefined();
    expect(client.getQueryData(queryKeys.workers.everything(undefined))).toBeUndefined();
  });
});

describe("applyQueues", () => {
  const q = (name: string, dead = 0) => ({
    name,
    pending: { high: 0, normal: 1, low: 0, total: 1 },
    processing: 0,
    overdue: 0,
    scheduled: 0,
    due: 0,
    dead,
  });

  it("upserts depths into the list, drops removed queues and invalidates the detail views", () => {
    const client = new QueryClient();
    client.setQueryData<QueueList>(queryKeys.queues.list(), { total: 2, queues: [q("b"), q("c")] });
    const inv = recorder();
    applyQueues(client, { queues: [q("a"), q("b", 5)], removed: ["c"] }, inv.fn);
    const list = client.getQueryData<QueueList>(queryKeys.queues.list())!;
    expect(list.queues.map((x) => [x.name, x.dead])).toEqual([
      ["a", 0],
      ["b", 5],
    ]);
    expect(list.total).toBe(2);
    expect(inv.keys).toContainEqual(queryKeys.queues.detailAll("b"));
    expect(inv.keys).toContainEqual(queryKeys.queues.deadAll("b"));
  });
});

describe("upsertByName", () => {
  it("sorts by name and lets a later entry win", () => {
    expect(
      upsertByName(
        [{ name: "b", v: 1 }],
        [
          { name: "a", v: 2 },
          { name: "b", v: 3 },
        ],
      ),
    ).toEqual([
      { name: "a", v: 2 },
      { name: "b", v: 3 },
    ]);
  });
});
