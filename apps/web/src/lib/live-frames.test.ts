import { QueryClient, type QueryKey } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { QueueList } from "@fleet/schema";

import { decodeTabMessage, routeFrame } from "./live-frames";
import { queryKeys } from "./query";

function recorder() {
  const keys: QueryKey[] = [];
  return { keys, fn: (k: QueryKey) => void keys.push(k) };
}

describe("routeFrame", () => {
  it("applies a frame to the tab's cache and returns it for the listeners", () => {
    const client = new QueryClient();
    client.setQueryData<QueueList>(queryKeys.queues.list(), { queues: [], total: 0 } as unknown as QueueList);
    const inv = recorder();
    const queue = { name: "q1", pending: 3, in_flight: 0, dead: 0 };
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

  it("accepts a workers frame without its optional lists", () => {
    const client = new QueryClient();
    const inv = recorder();
    expect(routeFrame(client, "workers", "{}", inv.fn)?.kind).toBe("workers");
    expect(inv.keys).toContainEqual(queryKeys.automations.all);
  });

  it("drops what it cannot use instead of throwing", () => {
    const client = new QueryClient();
    const inv = recorder();
    expect(routeFrame(client, "bus", "not json", inv.fn)).toBeNull();
    expect(routeFrame(client, "bus", "[1]", inv.fn)).toBeNull();
    expect(routeFrame(client, "bus", '{"payload":1}', inv.fn)).toBeNull();
    expect(routeFrame(client, "queues", '{"queues":null}', inv.fn)).toBeNull();
    expect(routeFrame(client, "health", "{}", inv.fn)).toBeNull();
    expect(inv.keys).toEqual([]);
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
