import { QueryClient, QueryObserver, type QueryKey } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Worker, WorkerList } from "@fleet/schema";

import { queryKeys, type WorkersParams } from "./query";
import { testWorker } from "./test/worker";
import { applyWorkerPages, cancelWorkerPageRefetches, patchWorkerPages, REFETCH_GAP_MS } from "./workers-page-live";

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

describe("applyWorkerPages refetches", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function watched(p: WorkersParams) {
    const client = new QueryClient();
    let calls = 0;
    const times: number[] = [];
    let release: (() => void) | null = null;
    const key = queryKeys.workers.page(p);
    const observer = new QueryObserver(client, {
      queryKey: key,
      queryFn: () =>
        new Promise<WorkerList>((resolve) => {
          calls += 1;
          times.push(Date.now());
          release = () => resolve(list([worker("a", `fetched-${calls}`)]));
        }),
      staleTime: Infinity,
    });
    const unsubscribe = observer.subscribe(() => undefined);
    return {
      client,
      key,
      calls: () => calls,
      times,
      settle: async () => {
        release?.();
        release = null;
        await vi.advanceTimersByTimeAsync(0);
      },
      done: () => {
        unsubscribe();
        cancelWorkerPageRefetches(client);
        client.clear();
      },
    };
  }

  it("coalesces a burst into one refetch per gap and never cancels a fetch in flight", async () => {
    const t = watched({ type: "a" });
    expect(t.calls()).toBe(1); // the first load, still in flight
    const frame = () => applyWorkerPages(t.client, { changed: [worker("a", "elsewhere")], removed: [] });

    frame();
    frame();
    await vi.advanceTimersByTimeAsync(REFETCH_GAP_MS * 2);
    // The first load is still in flight: it was not cancelled, nor joined by a second fetch.
    expect(t.calls()).toBe(1);
    await t.settle();
    await vi.advanceTimersByTimeAsync(500);
    // After it settled, one refetch for the whole burst.
    expect(t.calls()).toBe(2);
    await t.settle();

    // A second burst right after: one more refetch, a full gap after the previous one started.
    frame();
    frame();
    frame();
    await vi.advanceTimersByTimeAsync(REFETCH_GAP_MS * 3);
    expect(t.calls()).toBe(3);
    expect(t.times[2]! - t.times[1]!).toBeGreaterThanOrEqual(REFETCH_GAP_MS);
    await t.settle();
    t.done();
  });

  it("only marks a page nobody shows as stale", async () => {
    const client = new QueryClient();
    const key = queryKeys.workers.page({ type: "a" });
    client.setQueryData(key, list([]));
    applyWorkerPages(client, { changed: [worker("a", "x")], removed: [] });
    await vi.advanceTimersByTimeAsync(REFETCH_GAP_MS);
    const query = client.getQueryCache().find({ queryKey: key, exact: true })!;
    expect(query.isStale()).toBe(true);
    expect(query.state.fetchStatus).toBe("idle");
    cancelWorkerPageRefetches(client);
  });
});
