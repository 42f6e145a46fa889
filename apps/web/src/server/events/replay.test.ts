// The replay buffer and a stream that misses nothing (issue 15.3). Unit: ids, bounds (window,
// frames, bytes), another hub's id, a hub restart. Through the SSE handler on a hub over the
// memory backend: a client that reconnects with Last-Event-ID (header, or the query a new tab
// uses) gets exactly what it missed, in order, then `sync: replayed`; one away too long, or
// coming from another replica, gets `sync: refetch`; a first connection gets `sync: fresh`.
import { createMemoryBackend, type MemoryBackend } from "@fleet/backend/memory";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { EventHub } from "./hub";
import { ReplayBuffer } from "./replay";
import { createEventsHandler } from "./sse-response";
import { SseReader, waitFor } from "./test/helpers";

const frame = (n: number, bytes = 10) => new Uint8Array(bytes).fill(n % 256);

describe("ReplayBuffer", () => {
  let now = 1_000_000;
  const buf = (opts: Partial<ConstructorParameters<typeof ReplayBuffer>[0]> = {}) =>
    new ReplayBuffer({ windowMs: 60_000, maxFrames: 100, maxBytes: 10_000, ...opts }, () => now, "abc123");

  it("ids are <hub>-<n>; a client gets the frames after its id, or nothing new", () => {
    const b = buf();
    for (let i = 1; i <= 5; i++) b.push(i, null, frame(i));
    expect(b.wireId(7)).toBe("abc123-7");
    const r = b.since("abc123-3", 5);
    expect(r.mode === "replayed" && r.frames.map((f) => f.seq)).toEqual([4, 5]);
    const none = b.since("abc123-5", 5);
    expect(none.mode === "replayed" && none.frames).toEqual([]);
    expect(b.since(null, 5)).toEqual({ mode: "fresh" });
  });

  it("refetch for another hub's id, a garbled one, one newer than the hub's newest", () => {
    const b = buf();
    b.push(1, null, frame(1));
    expect(b.since("ffff00-1", 1)).toMatchObject({ mode: "refetch", reason: expect.stringMatching(/another console process/) });
    expect(b.since("17", 1)).toMatchObject({ mode: "refetch" });
    expect(b.since("abc123-9", 1)).toMatchObject({ mode: "refetch" });
  });

  it("is bounded by the window, the frame cap and the byte cap; what fell out means refetch", () => {
    const byTime = buf();
    byTime.push(1, null, frame(1));
    now += 30_000;
    byTime.push(2, null, frame(2));
    now += 31_000; // frame 1 is 61 s old
    expect(byTime.since("abc123-0", 2)).toMatchObject({ mode: "refetch", reason: expect.stringMatching(/away longer/) });
    const after1 = byTime.since("abc123-1", 2);
    expect(after1.mode === "replayed" && after1.frames.map((f) => f.seq)).toEqual([2]);

    const byCount = buf({ maxFrames: 3 });
    for (let i = 1; i <= 10; i++) byCount.push(i, null, frame(i));
    expect(byCount.size.frames).toBe(3);
    expect(byCount.since("abc123-6", 10).mode).toBe("refetch");
    expect(byCount.since("abc123-7", 10).mode).toBe("replayed");

    const byBytes = buf({ maxBytes: 250 });
    for (let i = 1; i <= 10; i++) byBytes.push(i, null, frame(i, 100));
    expect(byBytes.size).toEqual({ frames: 2, bytes: 200 });
    expect(byBytes.since("abc123-8", 10).mode).toBe("replayed");
    expect(byBytes.since("abc123-7", 10).mode).toBe("refetch");
  });

  it("a gap (the hub stopped watching) makes every earlier id a refetch", () => {
    const b = buf();
    for (let i = 1; i <= 3; i++) b.push(i, null, frame(i));
    b.gap(4);
    b.push(5, null, frame(5));
    expect(b.since("abc123-3", 5).mode).toBe("refetch");
    const r = b.since("abc123-4", 5);
    expect(r.mode === "replayed" && r.frames.map((f) => f.seq)).toEqual([5]);
  });

  it("switched off (window 0): every reconnect refetches", () => {
    const b = buf({ windowMs: 0 });
    b.push(1, null, frame(1));
    expect(b.size.frames).toBe(0);
    expect(b.since("abc123-1", 1)).toMatchObject({ mode: "refetch", reason: expect.stringMatching(/switched off/) });
  });
});

describe("GET /events with Last-Event-ID (hub over the memory backend)", () => {
  let backend: MemoryBackend;
  let hub: EventHub;
  let handler: (r: Request) => Promise<Response>;
  const open: AbortController[] = [];

  beforeEach(() => {
    backend = createMemoryBackend();
    hub = new EventHub({
      getBackend: async () => backend,
      names: async () => ({ queues: [], pools: [], streams: [] }),
      intervalMs: 50,
      offlineAfterSeconds: 60,
      graceMs: 60_000,
      replay: { windowMs: 60_000, maxFrames: 1000, maxBytes: 1 << 20 },
    });
    handler = createEventsHandler({ hub: () => hub, subscribeWaitMs: 2000 });
  });
  afterEach(async () => {
    for (const a of open.splice(0)) a.abort();
    await hub.close();
  });

  async function connect(opts: { header?: string; query?: string; topics?: string } = {}) {
    const abort = new AbortController();
    open.push(abort);
    const params = new URLSearchParams();
    if (opts.query) params.set("last_event_id", opts.query);
    if (opts.topics) params.set("topics", opts.topics);
    const res = await handler(new Request(`http://localhost/api/v1/events?${params}`, { signal: abort.signal, headers: opts.header ? { "last-event-id": opts.header } : {} }));
    return { abort, reader: new SseReader(res.body!) };
  }

  const publish = (topic: string, n: number) => backend.eventPublish(topic, JSON.stringify({ n }));

  it("a reconnect gets exactly the frames it missed, in order, then sync replayed; then live ones", async () => {
    const first = await connect();
    await waitFor(() => first.reader.events("sync").length === 1, { what: "the first sync" });
    expect(first.reader.data("sync")[0]).toEqual({ mode: "fresh" });
    for (let i = 1; i <= 3; i++) await publish("t", i);
    await waitFor(() => first.reader.events("bus").length === 3, { what: "three bus frames" });
    const lastSeen = first.reader.events("bus")[2]!.id!;
    first.abort.abort();

    // missed while away
    for (let i = 4; i <= 6; i++) await publish("t", i);
    const again = await connect({ header: lastSeen });
    await waitFor(() => again.reader.events("sync").length === 1, { what: "the sync" });
    expect(again.reader.data("bus").map((d) => (d.payload as { n: number }).n)).toEqual([4, 5, 6]);
    expect(again.reader.data("sync")[0]).toEqual({ mode: "replayed", replayed: 3 });
    // the sync frame comes after the replayed ones and before anything live
    const kinds = again.reader.events().map((f) => f.event);
    expect(kinds).toEqual(["bus", "bus", "bus", "sync"]);
    await publish("t", 7);
    await waitFor(() => again.reader.events("bus").length === 4, { what: "the live frame" });
    const ids = again.reader.events().map((f) => Number(f.id!.split("-")[1]));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a new tab taking the stream over passes the id as a query; the topics filter applies to replayed frames", async () => {
    const first = await connect();
    await waitFor(() => first.reader.events("sync").length === 1, { what: "sync" });
    await publish("keep.a", 1);
    await waitFor(() => first.reader.events("bus").length === 1, { what: "bus" });
    const lastSeen = first.reader.events("bus")[0]!.id!;
    first.abort.abort();
    await publish("drop.b", 2);
    await publish("keep.c", 3);
    const again = await connect({ query: lastSeen, topics: "keep.*" });
    await waitFor(() => again.reader.events("sync").length === 1, { what: "sync" });
    expect(again.reader.data("bus").map((d) => d.topic)).toEqual(["keep.c"]);
    expect(again.reader.data("sync")[0]).toEqual({ mode: "replayed", replayed: 2 });
  });

  it("an id of another replica, or one older than the buffer, gets one sync refetch and no replay", async () => {
    const foreign = await connect({ header: "0badcafe-12" });
    await waitFor(() => foreign.reader.events("sync").length === 1, { what: "sync" });
    expect(foreign.reader.data("sync")[0]).toMatchObject({ mode: "refetch", reason: expect.stringMatching(/another console process/) });
    expect(foreign.reader.events("bus")).toEqual([]);
    // the sync frame carries an id of this hub: the next reconnect can resume from it
    expect(foreign.reader.events("sync")[0]!.id!.startsWith(`${hub.replay.tag}-`)).toBe(true);
    const old = await connect({ header: `${hub.replay.tag}-0` });
    await waitFor(() => old.reader.events("sync").length === 1, { what: "sync" });
    expect(old.reader.data("sync")[0]).toMatchObject({ mode: "refetch" });
  });
});
