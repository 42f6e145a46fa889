import { QueryClient, type QueryKey } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { BulkJob, Queue, QueueList } from "@fleet/schema";

import { mergeBulkJob } from "./bulk-job";
import { decodeTabMessage, routeFrame } from "./live-frames";
import { queryKeys } from "./query";

function recorder() {
  const keys: QueryKey[] = [];
  return { keys, fn: (k: QueryKey) => void keys.push(k) };
}

describe("routeFrame", () => {
  it("applies a frame to the tab's cache and returns it for the listeners", () => {
    const client = new QueryClient();
    client.setQueryData<QueueList>(queryKeys.queues.list(), { queues: [], total: 0 });
    const inv = recorder();
    const queue: Queue = { name: "q1", pending: { high: 0, normal: 3, low: 0, total: 3 }, processing: 0, overdue: 0, scheduled: 0, due: 0, dead: 0 };
    const routed = routeFrame(client, "queues", JSON.stringify({ queues: [queue], removed: [] }), inv.fn);
    expect(routed).toEqual({ kind: "queues", data: { queues: [queue], removed: [] } });
    expect(client.getQueryData<QueueList>(queryKeys.queues.list())?.queues).toEqual([queue]);
    expect(inv.keys).toContainEqual(queryKeys.queues.detailAll("q1"));
  });

  it("reads the sync frame's mode, and treats an unknown one as refetch (the safe side)", () => {
    const client = new QueryClient();
    const inv = recorder();
    expect(routeFrame(client, "sync", '{"mode":"replayed","replayed":3}', inv.fn)).toEqual({ kind: "sync", data: { mode: "replayed", replayed: 3 } });
    expect(routeFrame(client, "sync", '{"mode":"refetch","reason":"away"}', inv.fn)).toEqual({ kind: "sync", data: { mode: "refetch", reason: "away" } });
    expect(routeFrame(client, "sync", '{"mode":"later"}', inv.fn)).toEqual({ kind: "sync", data: { mode: "refetch" } });
    expect(inv.keys).toEqual([]);
  });

  it("passes bus frames through untouched, whatever the topic (each page filters its own)", () => {
    const client = new QueryClient();
    const inv = recorder();
    const raw = JSON.stringify({ topic: "scraper.emit", payload: { n: 1 }, received_at: 5 });
    expect(routeFrame(client, "bus", raw, inv.fn)).toEqual({ kind: "bus", data: { topic: "scraper.emit", payload: { n: 1 }, received_at: 5 } });
    expect(inv.keys).toEqual([]);
  });

  it("follows a bulk job the tab shows from its fleet.bulk frames, never backwards", () => {
    const client = new QueryClient();
    const inv = recorder();
    const job: BulkJob = {
      id: "j1",
      queue: "q",
      action: "requeue-dead",
      q: null,
      where: "attempts >= 3",
      rate: 200,
      expected: 900,
      created_at: 1,
      created_by: "vera",
      role: "operator",
      state: "running",
      scanned: 0,
      done: 0,
      missing: 0,
      note: "",
    };
    const frame = (j: Partial<BulkJob>) => JSON.stringify({ topic: "fleet.bulk", payload: { ...job, ...j }, received_at: 5 });
    const key = queryKeys.bulk.job("q", "j1");
    // kept before a page asks: the job may end before the answer of the request that started it
    routeFrame(client, "bus", frame({ done: 5, scanned: 10 }), inv.fn);
    expect(client.getQueryData<BulkJob>(key)).toMatchObject({ done: 5 });
    expect(mergeBulkJob(client.getQueryData<BulkJob>(key), job)).toMatchObject({ done: 5 });
    expect(routeFrame(client, "bus", frame({ done: 400, scanned: 1000 }), inv.fn)?.kind).toBe("bus");
    expect(client.getQueryData<BulkJob>(key)).toMatchObject({ state: "running", done: 400 });
    routeFrame(client, "bus", frame({ state: "done", done: 890, missing: 10, scanned: 2000 }), inv.fn);
    // late progress from before the end changes nothing; another job's, or a malformed one, neither
    routeFrame(client, "bus", frame({ done: 600, scanned: 1500 }), inv.fn);
    routeFrame(client, "bus", frame({ id: "j2", done: 1 }), inv.fn);
    routeFrame(client, "bus", JSON.stringify({ topic: "fleet.bulk", payload: { id: "j1", queue: "q", done: "lots" }, received_at: 5 }), inv.fn);
    expect(client.getQueryData<BulkJob>(key)).toMatchObject({ state: "done", done: 890, missing: 10 });
    expect(inv.keys).toEqual([]);
  });

  it("parses a frame by its schema: members it does not know are dropped, the rest kept", () => {
    const client = new QueryClient();
    const inv = recorder();
    const routed = routeFrame(client, "workers", JSON.stringify({ changed: [], removed: [{ automation_type: "a", worker_id: "1", extra: true }], later: 1 }), inv.fn);
    expect(routed).toEqual({ kind: "workers", data: { changed: [], removed: [{ automation_type: "a", worker_id: "1" }] } });
    expect(inv.keys).toContainEqual(queryKeys.automations.all);
  });

  it("drops a frame that does not match its schema and refetches what it would have changed", () => {
    const client = new QueryClient();
    const inv = recorder();
    // no `removed` list; a queue without its depths
    expect(routeFrame(client, "workers", '{"changed":[]}', inv.fn)).toBeNull();
    expect(inv.keys).toEqual([
      ["workers", "page"],
      ["workers", "detail"],
    ]);
    expect(routeFrame(client, "queues", '{"queues":[{"name":"q1","pending":3}]}', inv.fn)).toBeNull();
    expect(inv.keys).toContainEqual(["queues"]);
    // a bus frame without its time
    expect(routeFrame(client, "bus", '{"topic":"a","payload":1}', inv.fn)).toBeNull();
    expect(inv.keys).toHaveLength(3);
  });

  it("drops what it cannot use instead of throwing", () => {
    const client = new QueryClient();
    const inv = recorder();
    expect(routeFrame(client, "bus", "not json", inv.fn)).toBeNull();
    expect(routeFrame(client, "bus", "[1]", inv.fn)).toBeNull();
    expect(routeFrame(client, "bus", '{"payload":1}', inv.fn)).toBeNull();
    expect(routeFrame(client, "health", "{}", inv.fn)).toBeNull();
    expect(routeFrame(client, "toString", "{}", inv.fn)).toBeNull();
    expect(inv.keys).toEqual([]);
    expect(routeFrame(client, "queues", '{"queues":null}', inv.fn)).toBeNull();
    expect(inv.keys).toEqual([["queues"]]);
  });
});

describe("decodeTabMessage", () => {
  it("keeps well-formed messages and refuses the rest", () => {
    expect(decodeTabMessage({ t: "frame", kind: "pools", id: "3", data: "{}" })).toEqual({ t: "frame", kind: "pools", id: "3", data: "{}" });
    expect(decodeTabMessage({ t: "status", status: "signed-out" })).toEqual({ t: "status", status: "signed-out" });
    expect(decodeTabMessage({ t: "hello", extra: 1 })).toEqual({ t: "hello" });
    expect(decodeTabMessage({ t: "poke", reason: "auth" })).toEqual({ t: "poke", reason: "auth" });
    expect(decodeTabMessage({ t: "frame", kind: "nope", data: "{}" })).toBeNull();
    expect(decodeTabMessage({ t: "frame", kind: "bus", data: { topic: "a" } })).toBeNull();
    expect(decodeTabMessage({ t: "status", status: "great" })).toBeNull();
    expect(decodeTabMessage({ t: "who" })).toBeNull();
    expect(decodeTabMessage("status")).toBeNull();
    expect(decodeTabMessage(null)).toBeNull();
  });
});
