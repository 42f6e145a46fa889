// Slow SSE clients (issue 18.4): a client that stops reading is dropped once its queue of
// unread frames passes the limit (sse-response.ts, maxQueuedFrames), and the others keep
// receiving every frame, each before the next is published. Once on the stream itself, and
// once over HTTP: a real socket whose reader has stopped, the response written by Next's own
// pipeToNodeResponse (what `next start` does with a route handler's Response), so the
// socket's back-pressure is what fills the queue. Everything is bounded by conditions.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

import type { Backend } from "@fleet/backend";
import { pipeToNodeResponse } from "next/dist/server/pipe-readable.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { closeBackend, getBackend } from "@/server/backend";
import { resetServerEnv } from "@/server/env";

import { getEventHub, resetEventHub, type EventHub } from "./index";
import { createEventsHandler } from "./sse-response";
import { SseReader, waitFor } from "./test/helpers";

const LIMIT = 40;

let backend: Backend;
let hub: EventHub;
const aborts: AbortController[] = [];

// The app's own hub (getEventHub), over a fresh in-memory backend per test: nothing changes in
// it but what the test publishes, so every frame a client gets is a bus frame of the test.
beforeEach(async () => {
  await resetEventHub();
  await closeBackend();
  process.env.FLEET_BACKEND_URL = `memory://slow-client-${process.pid}-${Math.random()}`;
  process.env.FLEET_EVENTS_INTERVAL_MS = "1000";
  resetServerEnv();
  backend = await getBackend();
  hub = getEventHub();
});

afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await resetEventHub();
  await closeBackend();
  delete process.env.FLEET_BACKEND_URL;
  delete process.env.FLEET_EVENTS_INTERVAL_MS;
  resetServerEnv();
});

function handler() {
  // no heartbeat during the test: every frame is a bus frame the test published
  return createEventsHandler({ hub: getEventHub, maxQueuedFrames: LIMIT, heartbeatMs: 3_600_000 });
}

async function open(h: (r: Request) => Promise<Response>): Promise<Response> {
  const abort = new AbortController();
  aborts.push(abort);
  const res = await h(new Request("http://localhost/api/v1/events", { signal: abort.signal }));
  expect(res.status).toBe(200);
  return res;
}

// `<hub>-<n>` (issue 15.3): the number
const busIds = (r: SseReader) => r.events("bus").map((f) => Number(f.id?.split("-")[1]));

describe("a client that stops reading", () => {
  it("is dropped after exactly its limit of unread frames; the reading one gets every frame, each before the next is published", async () => {
    const h = handler();
    const stalled = await open(h); // its body is never read until the end
    const good = new SseReader((await open(h)).body!);
    expect(hub.status().listeners).toBe(2);
    await waitFor(() => good.frames.length >= 2, { what: "the first lines" });

    const TOTAL = 3 * LIMIT;
    const listenersAt: number[] = [];
    for (let i = 0; i < TOTAL; i++) {
      await backend.eventPublish("load.tick", JSON.stringify({ i }));
      // promptly: the reading client has this frame before the next one is published
      await waitFor(() => good.events("bus").length === i + 1, { what: `bus frame ${i} on the reading client` });
      listenersAt.push(hub.status().listeners);
    }
    expect(good.data<{ payload: { i: number } }>("bus").map((d) => d.payload.i)).toEqual(Array.from({ length: TOTAL }, (_, i) => i));
    // the stalled one held the frames every stream starts with (`connected`, `retry`, and the
    // hub's `sync`), then bus frames up to LIMIT + 2 in all; the next one dropped it
    const preamble = good.frames.length - TOTAL;
    const held = LIMIT + 2 - preamble;
    expect(preamble).toBeGreaterThanOrEqual(2);
    expect(listenersAt.indexOf(1)).toBe(held);
    expect(listenersAt.slice(held).every((n) => n === 1)).toBe(true);

    // its stream is closed: read now, it ends after what was queued, a prefix with no gap
    const late = new SseReader(stalled.body!);
    await waitFor(() => late.isDone, { what: "the stalled stream to end" });
    expect(late.frames.slice(0, 2)).toEqual([{ comment: "connected" }, { retry: "3000" }]);
    expect(late.frames[2]?.event).toBe("sync");
    expect(late.frames).toHaveLength(LIMIT + 2);
    expect(busIds(late)).toEqual(busIds(good).slice(0, held));
    expect(good.isDone).toBe(false);
  });
});

describe("over HTTP, a socket whose reader stopped", () => {
  let server: http.Server | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = null;
  });

  it("is dropped once the socket's buffers and then its queue are full; the reading client keeps up", async () => {
    const h = handler();
    server = http.createServer((req, res) => {
      const abort = new AbortController();
      res.on("close", () => abort.abort());
      void h(new Request(`http://127.0.0.1${req.url}`, { signal: abort.signal })).then(async (response) => {
        res.writeHead(response.status, [...response.headers].flat());
        await pipeToNodeResponse(response.body!, res);
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const get = () =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.get({ host: "127.0.0.1", port, path: "/api/v1/events", agent: false }, resolve);
        req.on("error", reject);
      });

    const stalledRes = await get();
    stalledRes.pause(); // reads nothing more: the socket's window closes, Next's writer waits for drain
    const goodRes = await get();
    const good = new SseReader(Readable.toWeb(goodRes) as ReadableStream<Uint8Array>);
    await waitFor(() => hub.status().listeners === 2 && good.frames.length >= 2, { what: "both clients attached" });

    // 16 KiB frames, in batches, until the stalled one is dropped (the kernel's socket buffers
    // take a few MB first); the reading client has each batch before the next is published
    const payload = "x".repeat(16 * 1024);
    let published = 0;
    while (hub.status().listeners === 2) {
      expect(published, "frames published without the stalled client being dropped").toBeLessThan(4000);
      for (let i = 0; i < 20; i++) await backend.eventPublish("load.big", JSON.stringify({ n: published++, payload }));
      await waitFor(() => good.events("bus").length === published, { what: `${published} frames on the reading client` });
    }
    for (let i = 0; i < 20; i++) await backend.eventPublish("load.big", JSON.stringify({ n: published++, payload }));
    await waitFor(() => good.events("bus").length === published, { what: "the frames after the drop" });
    expect(good.data<{ payload: { n: number } }>("bus").map((d) => d.payload.n)).toEqual(Array.from({ length: published }, (_, i) => i));

    // the stalled response ends (the server closed it) once read: a prefix of the frames, no gap
    const late = new SseReader(Readable.toWeb(stalledRes) as ReadableStream<Uint8Array>);
    stalledRes.resume();
    await waitFor(() => late.isDone, { what: "the stalled response to end" });
    const got = busIds(late);
    expect(got.length).toBeGreaterThan(LIMIT);
    expect(got.length).toBeLessThan(published);
    expect(got).toEqual(busIds(good).slice(0, got.length));
    expect(good.isDone).toBe(false);
  }, 60_000);
});
