// GET /api/v1/events against a real Redis (its own database, flushed): the route's exported GET is
// called with a Request whose signal the test aborts, and its ReadableStream is read.
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { closeBackend, getBackend } from "@/server/backend";
import { resetServerEnv } from "@/server/env";
import { getEventHub, resetEventHub } from "@/server/events";
import { createEventsHandler } from "@/server/events/sse-response";
import { SseReader, waitFor } from "@/server/events/test/helpers";

import { GET } from "./route";

const REDIS_TEST_URL = process.env.REDIS_TEST_URL;
const DB = testRedisDb("apps/web/src/app/api/v1/events/route.test.ts");

function dbUrl(base: string, db: number): string {
  const u = new URL(base);
  u.pathname = `/${db}`;
  return u.toString();
}

let admin: Redis;
const open: Array<{ abort: AbortController; reader: SseReader }> = [];

async function connect(query = "", handler: (r: Request) => Response | Promise<Response> = GET) {
  const abort = new AbortController();
  const res = await handler(new Request(`http://localhost/api/v1/events${query}`, { signal: abort.signal }));
  if (!res.body) throw new Error(`no body (status ${res.status})`);
  const reader = new SseReader(res.body);
  const client = { abort, reader, res };
  open.push(client);
  return client;
}

/** Subscriber connections of this test's DB: `psub` counts the patterns a client holds. */
async function patternSubscribers(): Promise<number> {
  const list = (await admin.call("CLIENT", "LIST")) as string;
  return list
    .split("\n")
    .filter((line) => line.includes(` db=${DB} `))
    .filter((line) => Number(/ psub=(\d+)/.exec(line)?.[1] ?? 0) > 0).length;
}

async function ticks(n = 2) {
  const hub = getEventHub();
  const start = hub.status().ticks;
  await waitFor(() => hub.status().ticks >= start + n, { what: `${n} hub ticks` });
}

beforeAll(async () => {
  if (!REDIS_TEST_URL) return;
  admin = new Redis(dbUrl(REDIS_TEST_URL, DB), { lazyConnect: true });
  await admin.connect();
  await admin.flushdb();
  await closeBackend();
  await resetEventHub();
  process.env.FLEET_BACKEND_URL = dbUrl(REDIS_TEST_URL, DB);
  process.env.FLEET_EVENTS_INTERVAL_MS = "50";
  // a one-second replay window keeps the hub's grace period at its 2 s floor, which the
  // subscription test below waits out (the default window of 60 s would hold the hub a minute)
  process.env.FLEET_EVENTS_REPLAY_SECONDS = "1";
  resetServerEnv();
});

afterEach(async () => {
  for (const c of open.splice(0)) c.abort.abort();
});

afterAll(async () => {
  await resetEventHub();
  await closeBackend();
  delete process.env.FLEET_BACKEND_URL;
  delete process.env.FLEET_EVENTS_INTERVAL_MS;
  delete process.env.FLEET_EVENTS_REPLAY_SECONDS;
  resetServerEnv();
  await admin?.flushdb();
  admin?.disconnect();
});

describe("GET /api/v1/events (Redis)", () => {
  it("needs REDIS_TEST_URL (CI always sets it)", () => {
    expect(REDIS_TEST_URL, "set REDIS_TEST_URL, e.g. redis://127.0.0.1:6390/0").toMatch(/^redis:\/\//);
  });

  it("answers an event stream with the right headers and a comment at once", async () => {
    const { res, reader } = await connect();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    await waitFor(() => reader.frames.length > 0, { what: "first line" });
    expect(reader.frames[0]).toEqual({ comment: "connected" });
  });

  it("delivers a PUBLISH on event:<topic> as a bus frame", async () => {
    const { reader } = await connect();
    await waitFor(() => getEventHub().status().subscribed, { what: "subscription" });
    const before = Date.now() / 1000;
    await admin.publish("event:scraper.emit", '{"score": 12.5, "name": "caf\\u00e9"}');
    await admin.publish("event:plain", "not json");
    await waitFor(() => reader.events("bus").length >= 2, { what: "two bus frames" });
    const after = Date.now() / 1000;
    const [first, second] = reader.data("bus");
    expect(first).toMatchObject({ topic: "scraper.emit", payload: { score: 12.5, name: "café" } });
    expect(typeof first.received_at).toBe("number");
    // when this process received it, on its clock: between the publish and the frame's arrival
    expect(first.received_at).toBeGreaterThanOrEqual(before - 0.001);
    expect(first.received_at).toBeLessThanOrEqual(after + 0.001);
    expect(second).toMatchObject({ topic: "plain", payload: "not json" });
    // `<hub>-<n>`: n increases within the process (server/events/replay.ts)
    const ids = reader.events("bus").map((f) => Number(/-(\d+)$/.exec(f.id ?? "")?.[1]));
    expect(reader.events("bus").map((f) => f.id!.split("-")[0])).toEqual([getEventHub().replay.tag, getEventHub().replay.tag]);
    expect(ids[1]).toBeGreaterThan(ids[0]!);
  });

  it("answers only once the hub is subscribed: a PUBLISH right after the answer is delivered, even on a cold hub", async () => {
    await resetEventHub();
    const { reader } = await connect();
    await admin.publish("event:cold.start", '"first"');
    await waitFor(() => reader.events("bus").length >= 1, { what: "the bus frame" });
    expect(reader.data("bus")[0]).toMatchObject({ topic: "cold.start", payload: "first" });
  });

  it("filters bus frames by the topics globs and still sends the other kinds", async () => {
    const filtered = await connect("?topics=fleet.*,scraper.emit");
    const all = await connect();
    const backend = await getBackend();
    await waitFor(() => getEventHub().status().subscribed);
    await ticks();
    for (const ch of ["event:fleet.config", "event:other", "event:scraper.emit", "event:scraper.emitx", "event:fleet"]) {
      await admin.publish(ch, "1");
    }
    await backend.queuePush("topic-test", '{"id": "a", "payload": {}}');
    // the queues frame that carries the new queue (an earlier tick may have sent one without it)
    const hasTopicTest = () => filtered.reader.data("queues").some((d) => d.queues.some((q: { name: string }) => q.name === "topic-test"));
    await waitFor(() => all.reader.events("bus").length >= 5 && filtered.reader.data("bus").length >= 2 && hasTopicTest(), {
      what: "frames on both clients",
    });
    expect(filtered.reader.data("bus").map((d) => d.topic)).toEqual(["fleet.config", "scraper.emit"]);
    expect(all.reader.data("bus").map((d) => d.topic)).toEqual(["fleet.config", "other", "scraper.emit", "scraper.emitx", "fleet"]);
    expect(hasTopicTest()).toBe(true);
  });

  it("answers 400 to an abusive topics parameter", async () => {
    const res = await GET(new Request(`http://localhost/api/v1/events?topics=${"x".repeat(300)}`));
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe("bad_request");
  });

  it("sends a workers frame when a worker changes state, and nothing for a heartbeat", async () => {
    const backend = await getBackend();
    const now = Date.now() / 1000;
    await backend.workerRegister("sse-type", "w:1", { hostname: "box" });
    await backend.workerSetState("sse-type", "w:1", "IDLE", null, now);
    const { reader } = await connect();
    await ticks(2);
    // The hub may have been running (grace period of an earlier test) and seen the worker
    // appear: that frame is right. From here on only heartbeats happen.
    const seen = reader.frames.length;
    const workersAfter = () => reader.frames.slice(seen).filter((f) => f.event === "workers");
    for (let i = 1; i <= 3; i++) {
      await admin.hset("wkr:sse-type:w:1:state", "last_seen", String(now + i));
      await ticks(1);
    }
    await ticks(2);
    expect(workersAfter()).toEqual([]);

    expect(getEventHub().status().snapshots).toBe("thread"); // Redis: read in a worker thread
    await backend.workerSetState("sse-type", "w:1", "RUNNING", null, now + 5);
    await waitFor(() => workersAfter().length > 0, { what: "workers frame" });
    const frame = JSON.parse(workersAfter()[0]!.data!);
    expect(frame.removed).toEqual([]);
    expect(frame.changed).toEqual([
      expect.objectContaining({
        automation_type: "sse-type",
        worker_id: "w:1",
        state: "RUNNING",
        status: "running",
        last_seen: now + 5,
        hardware: { hostname: "box" },
      }),
    ]);
  });

  it("holds exactly one Redis subscription for 100 clients, and still one after they leave and others come", async () => {
    const clients = await Promise.all(Array.from({ length: 100 }, () => connect()));
    await waitFor(() => getEventHub().status().subscribed);
    expect(getEventHub().status().listeners).toBe(100);
    expect(await admin.call("PUBSUB", "NUMPAT")).toBeGreaterThanOrEqual(1);
    expect(await patternSubscribers()).toBe(1);

    await admin.publish("event:fanout", '{"n": 1}');
    await waitFor(() => clients.every((c) => c.reader.events("bus").length === 1), { what: "bus frame on all 100" });

    for (const c of clients) c.abort.abort();
    await waitFor(() => getEventHub().status().listeners === 0, { what: "listeners back to 0" });
    await waitFor(() => clients.every((c) => c.reader.isDone), { what: "streams closed" });
    await waitFor(async () => !getEventHub().status().running && (await patternSubscribers()) === 0, {
      what: "subscription closed after the grace period",
    });

    const again = await Promise.all(Array.from({ length: 30 }, () => connect()));
    await waitFor(() => getEventHub().status().subscribed, { what: "resubscribed" });
    expect(await patternSubscribers()).toBe(1);
    await admin.publish("event:fanout", '{"n": 2}');
    await waitFor(() => again.every((c) => c.reader.data("bus").some((d) => d.payload.n === 2)));
    // still one after the loop has gone round twice more (a late second subscribe would show by then)
    await ticks(2);
    expect(await patternSubscribers()).toBe(1);
  }, 120_000);

  it("cleans up aborted clients and cancelled streams", async () => {
    await waitFor(() => getEventHub().status().listeners === 0, { what: "no listeners from earlier tests" });
    const a = await connect();
    const b = await connect();
    expect(getEventHub().status().listeners).toBe(2);
    a.abort.abort();
    await waitFor(() => a.reader.isDone, { what: "aborted stream ends" });
    expect(getEventHub().status().listeners).toBe(1);

    // A consumer that cancels the body (the browser went away) without an abort signal.
    const res = await GET(new Request("http://localhost/api/v1/events"));
    expect(getEventHub().status().listeners).toBe(2);
    await res.body!.cancel();
    expect(getEventHub().status().listeners).toBe(1);

    // A request that is already aborted never attaches.
    const gone = new AbortController();
    gone.abort();
    const dead = await GET(new Request("http://localhost/api/v1/events", { signal: gone.signal }));
    await new Response(dead.body).text();
    expect(getEventHub().status().listeners).toBe(1);

    b.abort.abort();
    await waitFor(() => getEventHub().status().listeners === 0);
  });

  it("recovers when Redis drops the console's connections (subscription and reads)", async () => {
    const { reader } = await connect("?topics=recover.*");
    const hub = getEventHub();
    await waitFor(() => hub.status().subscribed);
    await ticks(1);
    const myId = Number(await admin.call("CLIENT", "ID"));
    const list = (await admin.call("CLIENT", "LIST")) as string;
    const victims = list
      .split("\n")
      .filter((line) => line.includes(` db=${DB} `))
      .map((line) => Number(/^id=(\d+)/.exec(line)?.[1]))
      .filter((id) => Number.isInteger(id) && id !== myId);
    expect(victims.length).toBeGreaterThanOrEqual(2); // the subscriber and the command connection
    for (const id of victims) await admin.call("CLIENT", "KILL", "ID", String(id));

    // The bus comes back on its own (ioredis re-subscribes): publish until a frame arrives.
    let n = 0;
    await waitFor(
      async () => {
        await admin.publish("event:recover.ping", String(++n));
        return reader.events("bus").length > 0;
      },
      { timeoutMs: 30_000, stepMs: 100, what: "a bus frame after the connections were killed" },
    );
    // And the loop reads again: a change still becomes a frame.
    const backend = await getBackend();
    await ticks(1);
    const seen = reader.frames.length;
    await backend.queuePush("recover-queue", '{"id": "r", "payload": {}}');
    await waitFor(() => reader.frames.slice(seen).some((f) => f.event === "queues" && f.data!.includes("recover-queue")), {
      timeoutMs: 30_000,
      what: "a queues frame after recovery",
    });
    expect(await patternSubscribers()).toBe(1);
  }, 120_000);

  it("sends a heartbeat comment at the configured interval", async () => {
    const handler = createEventsHandler({ hub: getEventHub, heartbeatMs: 40 });
    const { reader } = await connect("", handler);
    await waitFor(() => reader.frames.filter((f) => f.comment === "heartbeat").length >= 3, { what: "3 heartbeats" });
  });
});
