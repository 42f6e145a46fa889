import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { cancelScheduledRefetches, REFETCH_GAP_MS, scheduleRefetch } from "./refetch";

describe("scheduleRefetch, the one refetch coalescer", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A shown query whose fetches stay in flight until settle(). */
  function watched(client: QueryClient, key: readonly unknown[]) {
    let calls = 0;
    const times: number[] = [];
    let release: (() => void) | null = null;
    const observer = new QueryObserver(client, {
      queryKey: key,
      queryFn: () =>
        new Promise<number>((resolve) => {
          calls += 1;
          times.push(Date.now());
          release = () => resolve(calls);
        }),
      staleTime: Infinity,
    });
    const unsubscribe = observer.subscribe(() => undefined);
    return {
      calls: () => calls,
      times,
      settle: async () => {
        release?.();
        release = null;
        await vi.advanceTimersByTimeAsync(0);
      },
      done: unsubscribe,
    };
  }

  it("coalesces a burst into one refetch per gap and never cancels a fetch in flight", async () => {
    const client = new QueryClient();
    const key = ["workers", "page", { type: "a" }];
    const t = watched(client, key);
    expect(t.calls()).toBe(1); // the first load, still in flight
    const frame = () => scheduleRefetch(client, key, { exact: true });

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
    cancelScheduledRefetches(client);
    client.clear();
  });

  it("refetches at once when nothing was fetched within the gap", async () => {
    const client = new QueryClient();
    const key = ["queues", "detail", "q", 100];
    const t = watched(client, key);
    await t.settle();
    await vi.advanceTimersByTimeAsync(REFETCH_GAP_MS);
    scheduleRefetch(client, key);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.calls()).toBe(2);
    await t.settle();
    t.done();
    cancelScheduledRefetches(client);
    client.clear();
  });

  it("reaches every query under a key prefix, and only those", async () => {
    const client = new QueryClient();
    const a = watched(client, ["queues", "detail", "q", 100]);
    const b = watched(client, ["queues", "detail", "q", 500]);
    const other = watched(client, ["queues", "detail", "r", 100]);
    for (const t of [a, b, other]) await t.settle();
    scheduleRefetch(client, ["queues", "detail", "q"]);
    await vi.advanceTimersByTimeAsync(0);
    expect([a.calls(), b.calls(), other.calls()]).toEqual([2, 2, 1]);
    for (const t of [a, b, other]) {
      await t.settle();
      t.done();
    }
    cancelScheduledRefetches(client);
    client.clear();
  });

  it("only marks a query nobody shows as stale", async () => {
    const client = new QueryClient();
    const key = ["workers", "page", { type: "a" }];
    client.setQueryData(key, { total: 0 });
    scheduleRefetch(client, key, { exact: true });
    await vi.advanceTimersByTimeAsync(REFETCH_GAP_MS);
    const query = client.getQueryCache().find({ queryKey: key, exact: true })!;
    expect(query.isStale()).toBe(true);
    expect(query.state.fetchStatus).toBe("idle");
    cancelScheduledRefetches(client);
  });

  it("asks nothing of a key with no query", async () => {
    const client = new QueryClient();
    const spy = vi.spyOn(client, "invalidateQueries");
    scheduleRefetch(client, ["pools", "detail", "p"]);
    await vi.advanceTimersByTimeAsync(REFETCH_GAP_MS);
    expect(spy).not.toHaveBeenCalled();
    cancelScheduledRefetches(client);
  });
});
