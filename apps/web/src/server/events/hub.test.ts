// The hub over the in-memory backend: change detection, lifecycle and failure handling.
import { NameDiscovery, type Backend } from "@fleet/backend";
import { createMemoryBackend, type MemoryBackend } from "@fleet/backend/memory";
import { LiveEventSchema } from "@fleet/schema";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { EventHub, type HubEvent } from "./hub";
import { InlineSnapshotSource } from "./snapshot-source";
import { WorkerChangeFeed } from "./worker-feed";
import { countingSubscriptions, sleep, waitFor } from "./test/helpers";

/** A frame as a browser reads it; every one must be what its @fleet/schema schema reads, whole (the browser drops what does not match). */
const decode = (e: HubEvent) => {
  const text = new TextDecoder().decode(e.frame);
  const data: unknown = JSON.parse(/\ndata: (.*)\n\n$/.exec(text)?.[1] ?? "null");
  const parsed = LiveEventSchema.safeParse({ event: e.event, data });
  if (!parsed.success) throw new Error(`a ${e.event} frame does not match its schema: ${JSON.stringify(parsed.error.issues.slice(0, 3))}`);
  expect(parsed.data.data, `the browser would lose part of a ${e.event} frame`).toEqual(data);
  return { id: e.id, event: e.event, text, data: data as any };
};

let backend: MemoryBackend;
let clock: number;
let hub: EventHub | null;
let logs: string[];
let discoveries: NameDiscovery[] = [];
let witnesses: Array<{ hub: EventHub; backend: MemoryBackend }> = [];

/** The names the hub reads, as the app gives them: from a name discovery over the same backend (walking fast here). */
function namesOf(b: Backend) {
  const d = new NameDiscovery(b, { stepIntervalMs: 5, minPassIntervalMs: 10, liveEvents: false });
  discoveries.push(d);
  return async () => {
    const [queues, pools, streams] = await Promise.all([d.names("queue"), d.names("pool"), d.names("stream")]);
    return { queues, pools, streams };
  };
}

function makeHub(b = backend, extra: Partial<ConstructorParameters<typeof EventHub>[0]> = {}) {
  hub = new EventHub({
    getBackend: async () => b,
    names: namesOf(b),
    intervalMs: 20,
    offlineAfterSeconds: 60,
    graceMs: 50,
    now: () => clock,
    log: (m) => logs.push(m),
    ...extra,
  });
  return hub;
}

function collect(h: EventHub) {
  const events: ReturnType<typeof decode>[] = [];
  const detach = h.attach((e) => events.push(decode(e)));
  return { events, detach };
}

/** A second hub on its own backend with the same loop interval, listened to: its ticks show time passing for loops. */
function witness(): EventHub {
  const b = createMemoryBackend("memory://hub-test-witness");
  const w = new EventHub({ getBackend: async () => b, names: namesOf(b), intervalMs: 20, offlineAfterSeconds: 60, graceMs: 50, now: () => clock, log: () => undefined });
  w.attach(() => undefined);
  witnesses.push({ hub: w, backend: b });
  return w;
}

/** Lets at least `n` more loop ticks run. */
async function ticks(h: EventHub, n = 2) {
  const start = h.status().ticks;
  await waitFor(() => h.status().ticks >= start + n, { what: `${n} ticks` });
}

beforeEach(async () => {
  backend = createMemoryBackend("memory://hub-test");
  clock = Date.now() / 1000;
  hub = null;
  logs = [];
  await backend.workerRegister("scraper", "w1", { hostname: "h1" });
  await backend.workerSetState("scraper", "w1", "IDLE", null, clock);
});

afterEach(async () => {
  await hub?.close();
  for (const w of witnesses) {
    await w.hub.close();
    await w.backend.close();
  }
  witnesses = [];
  await Promise.all(discoveries.map((d) => d.close()));
  discoveries = [];
  await backend.close();
});

describe("EventHub change detection", () => {
  it("sends no snapshot to a new listener", async () => {
    const h = makeHub();
    const { events } = collect(h);
    await ticks(h, 3);
    expect(events).toEqual([]);
    expect(h.status().snapshots).toBe("inline");
  });

  it("ignores a heartbeat that only moves last_seen", async () => {
    const h = makeHub();
    const { events } = collect(h);
    await ticks(h);
    for (let i = 1; i <= 3; i++) {
      await backend.workerSetState("scraper", "w1", "IDLE", null, clock + i);
      await ticks(h);
    }
    expect(events).toEqual([]);
  });

  it("sends a workers frame when a worker's state changes", async () => {
    const h = makeHub();
    const { events } = collect(h);
    await ticks(h);
    await backend.workerSetState("scraper", "w1", "RUNNING", null, clock + 1);
    const frame = await waitFor(() => events.find((e) => e.event === "workers"), { what: "workers frame" });
    expect(frame.data.removed).toEqual([]);
    expect(frame.data.changed).toHaveLength(1);
    expect(frame.data.changed[0]).toMatchObject({
      automation_type: "scraper",
      worker_id: "w1",
      state: "RUNNING",
      status: "running",
      last_seen: clock + 1,
      hardware: { hostname: "h1" },
    });
    expect(frame.text).toMatch(/^id: [0-9a-f]+-\d+\nevent: workers\ndata: /);
  });

  it("sends a change when a worker goes offline, and when one appears or is removed", async () => {
    const h = makeHub();
    const { events } = collect(h);
    await ticks(h);
    clock += 61; // no heartbeat for longer than the threshold
    const offline = await waitFor(() => events.find((e) => e.event === "workers"), { what: "offline frame" });
    expect(offline.data.changed.map((w: any) => [w.worker_id, w.status])).toEqual([["w1", "offline"]]);

    events.length = 0;
    await backend.workerRegister("scraper", "w2", {});
    const appeared = await waitFor(() => events.find((e) => e.event === "workers"), { what: "new worker frame" });
    expect(appeared.data.changed.map((w: any) => w.worker_id)).toEqual(["w2"]);

    events.length = 0;
    await backend.workerRemove("scraper", "w1");
    const removed = await waitFor(() => events.find((e) => e.event === "workers"), { what: "removal frame" });
    expect(removed.data).toEqual({ changed: [], removed: [{ automation_type: "scraper", worker_id: "w1" }] });
  });

  it("sends config and stats changes", async () => {
    const h = makeHub();
    const { events } = collect(h);
    await ticks(h);
    await backend.workerSetConfig("scraper", "w1", { slots: 4 });
    const cfg = await waitFor(() => events.find((e) => e.event === "workers"), { what: "config frame" });
    expect(cfg.data.changed[0]).toMatchObject({ config: { slots: 4 }, config_gen: 1 });
    events.length = 0;
    await backend.workerSetStats("scraper", "w1", { done: 3 });
    const stats = await waitFor(() => events.find((e) => e.event === "workers"), { what: "stats frame" });
    expect(stats.data.changed[0].stats).toEqual({ done: 3 });
  });

  it("sends queues, pools and streams frames with the changed entries and removed names", async () => {
    const h = makeHub();
    const { events } = collect(h);
    await ticks(h);
    await backend.queuePush("jobs", '{"id": "t1", "payload": {}}', { priority: "high" });
    await backend.poolPut("proxies", "p1", "x", { region: "eu" });
    await backend.streamPush("scraper", "{}", { score: clock, maxLen: 100, ttlSeconds: 3600 });
    await waitFor(() => ["queues", "pools", "streams"].every((n) => events.some((e) => e.event === n)), {
      what: "queues, pools and streams frames",
    });
    const q = events.find((e) => e.event === "queues")!.data;
    expect(q.queues).toEqual([{ name: "jobs", pending: { high: 1, normal: 0, low: 0, total: 1 }, processing: 0, overdue: 0, scheduled: 0, due: 0, dead: 0 }]);
    expect(events.find((e) => e.event === "pools")!.data.pools).toEqual([{ name: "proxies", size: 1, live: 1, expired: 0, claimed: 0, free: 1 }]);
    expect(events.find((e) => e.event === "streams")!.data.streams).toMatchObject([{ name: "scraper", length: 1 }]);

    // nothing moves: nothing is sent
    events.length = 0;
    await ticks(h, 3);
    expect(events).toEqual([]);

    await backend.dlqClear("jobs");
    await backend.queueReserve("jobs", 0, 30);
    const reserved = await waitFor(() => events.find((e) => e.event === "queues"), { what: "reserve frame" });
    expect(reserved.data.queues[0]).toMatchObject({ name: "jobs", pending: { total: 0 }, processing: 1 });

    events.length = 0;
    await backend.poolDelete("proxies");
    const poolGone = await waitFor(() => events.find((e) => e.event === "pools"), { what: "pool removal" });
    expect(poolGone.data).toEqual({ pools: [], removed: ["proxies"] });
  });

  it("numbers frames with increasing ids", async () => {
    const h = makeHub();
    const { events } = collect(h);
    await ticks(h);
    for (const state of ["RUNNING", "IDLE", "ERROR"]) {
      await backend.workerSetState("scraper", "w1", state, state === "ERROR" ? "boom" : null, clock);
      await ticks(h);
    }
    await backend.eventPublish("x", "1");
    await waitFor(() => events.some((e) => e.event === "bus"));
    const ids = events.map((e) => e.id);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("EventHub bus and lifecycle", () => {
  it("fans one bus message out to every listener through one subscription", async () => {
    const counted = countingSubscriptions(backend);
    const h = makeHub(counted.backend);
    const listeners = Array.from({ length: 20 }, () => collect(h));
    await waitFor(() => h.status().subscribed, { what: "subscription" });
    await backend.eventPublish("scraper.emit", '{"score": 1.5}');
    await waitFor(() => listeners.every((l) => l.events.some((e) => e.event === "bus")), { what: "bus on all" });
    for (const l of listeners) {
      const bus = l.events.find((e) => e.event === "bus")!;
      expect(bus.data).toEqual({ topic: "scraper.emit", payload: { score: 1.5 }, received_at: clock });
    }
    expect(counted.opened()).toBe(1);
    expect(counted.open()).toBe(1);
  });

  it("stops after the grace period when the last listener leaves and restarts with one subscription", async () => {
    const counted = countingSubscriptions(backend);
    const h = makeHub(counted.backend, { graceMs: 100 });
    const a = collect(h);
    const b = collect(h);
    await waitFor(() => h.status().subscribed);
    a.detach();
    a.detach(); // twice is harmless
    expect(h.status().listeners).toBe(1);
    b.detach();
    expect(h.status()).toMatchObject({ listeners: 0, running: true }); // grace period
    await waitFor(() => !h.status().running, { what: "stop after grace" });
    await waitFor(() => counted.open() === 0, { what: "subscription closed" });
    const ticksWhenStopped = h.status().ticks;
    // the loop is stopped too: a second hub with the same interval ticks five times meanwhile,
    // so the stopped one had every chance to tick (a witness, not a guess of how long is enough)
    await ticks(witness(), 5);
    expect(h.status().ticks).toBe(ticksWhenStopped);

    const c = collect(h);
    await waitFor(() => h.status().subscribed, { what: "resubscribe" });
    expect(counted.open()).toBe(1);
    expect(counted.opened()).toBe(2);
    await backend.eventPublish("again", '"hi"');
    await waitFor(() => c.events.some((e) => e.event === "bus" && e.data.payload === "hi"));
  });

  it("a listener that comes back within the grace period keeps the same subscription", async () => {
    const counted = countingSubscriptions(backend);
    // a grace far above the pause, so a loaded machine cannot stretch the pause past it
    const h = makeHub(counted.backend, { graceMs: 10_000 });
    const a = collect(h);
    await waitFor(() => h.status().subscribed);
    a.detach();
    expect(h.status()).toMatchObject({ running: true, listeners: 0 });
    await ticks(h, 2);
    expect(h.status()).toMatchObject({ running: true, listeners: 0 });
    collect(h);
    // the loop goes on: a stop and a restart would have opened a second subscription
    await ticks(h, 5);
    expect(h.status()).toMatchObject({ running: true, subscribed: true, listeners: 1 });
    expect(counted.opened()).toBe(1);
  });

  it("rapid leave/arrive cycles never leave more than one subscription open", async () => {
    const counted = countingSubscriptions(backend);
    const h = makeHub(counted.backend, { graceMs: 0 });
    for (let i = 0; i < 20; i++) {
      const l = collect(h);
      await sleep(i % 3);
      l.detach();
      await sleep(i % 2);
    }
    const last = collect(h);
    await waitFor(() => h.status().subscribed && counted.open() === 1, { what: "one subscription" });
    // a subscription still being opened by an earlier cycle would land within a few loop ticks
    await ticks(h, 5);
    expect(counted.open()).toBe(1);
    last.detach();
    await waitFor(() => counted.open() === 0, { what: "all closed" });
  });

  it("survives a failing backend, logs once, and recovers", async () => {
    let failing = true;
    let failures = 0;
    const h = makeHub(backend, {
      getBackend: async () => {
        if (failing) {
          failures++;
          throw new Error("redis is down");
        }
        return backend;
      },
    });
    const { events } = collect(h);
    await waitFor(() => h.status().failing, { what: "failing" });
    const before = failures;
    await waitFor(() => failures >= before + 3, { what: "three more failed attempts" });
    expect(logs.filter((m) => m.startsWith("change detection failed"))).toHaveLength(1);
    failing = false;
    await waitFor(() => !h.status().failing && h.status().subscribed, { what: "recovery" });
    expect(logs).toContain("change detection recovered");
    await ticks(h);
    await backend.workerSetState("scraper", "w1", "ERROR", "disk full", clock);
    const frame = await waitFor(() => events.find((e) => e.event === "workers"));
    expect(frame.data.changed[0]).toMatchObject({ status: "error", last_error: "disk full" });
  });

  it("retries a failed subscribe on its own, without waiting for the next loop tick", async () => {
    let failuresLeft = 2;
    const flaky = new Proxy(backend, {
      get(target, prop, receiver) {
        if (prop === "subscribeEvents") {
          return async (onMessage: Parameters<MemoryBackend["subscribeEvents"]>[0]) => {
            if (failuresLeft-- > 0) throw new Error("connect timed out");
            return target.subscribeEvents(onMessage);
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const h = makeHub(flaky, { intervalMs: 60_000, subscribeRetryMs: 30 });
    const { events } = collect(h);
    // well within the loop's 60 s interval: only the retry timer can have subscribed
    await waitFor(() => h.status().subscribed, { timeoutMs: 30_000, what: "subscription after two failures" });
    expect(failuresLeft).toBe(-1);
    expect(logs.filter((m) => m.startsWith("bus subscription failed"))).toHaveLength(1);
    expect(logs).toContain("bus subscription restored");
    await backend.eventPublish("late", "1");
    await waitFor(() => events.some((e) => e.event === "bus"));
  });

  it("whenReady resolves once the bus subscription is in place and the first snapshot taken, and false when it never comes", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const slow = new Proxy(backend, {
      get(target, prop, receiver) {
        if (prop === "subscribeEvents") {
          return async (onMessage: Parameters<MemoryBackend["subscribeEvents"]>[0]) => {
            await gate;
            return target.subscribeEvents(onMessage);
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const h = makeHub(slow);
    const { events } = collect(h);
    expect(await h.whenReady(60)).toBe(false);
    const waiting = h.whenReady(30_000);
    release();
    expect(await waiting).toBe(true);
    // Subscribed means subscribed: a message published right away arrives.
    await backend.eventPublish("right.away", "1");
    await waitFor(() => events.some((e) => e.event === "bus" && e.data.topic === "right.away"));
    expect(await h.whenReady(0)).toBe(true);
  });

  it("a worker changed right after whenReady is a frame: the baseline was taken before", async () => {
    await backend.workerRegister("scraper", "wr-1", { hostname: "h" });
    await backend.workerSetState("scraper", "wr-1", "RUNNING", null, clock);
    // Many hubs started cold, each changed at once after ready: none may fold the change into its baseline.
    for (let round = 0; round < 3; round++) {
      // A first snapshot that is slow to start reading (a worker thread starting on a busy
      // machine): the subscription is in place long before the baseline is.
      const h = makeHub(backend, {
        snapshotSource: () => {
          const inner = new InlineSnapshotSource(async () => backend, 60);
          return {
            kind: "inline",
            baselines: 1,
            poll: async (now: number, names: Parameters<InlineSnapshotSource["poll"]>[1]) => {
              await sleep(150);
              return inner.poll(now, names);
            },
            close: () => inner.close(),
          };
        },
      });
      const { events } = collect(h);
      expect(await h.whenReady(30_000)).toBe(true);
      const state = round % 2 === 0 ? "ERROR" : "IDLE";
      await backend.workerSetState("scraper", "wr-1", state, state === "ERROR" ? `boom ${round}` : null, clock);
      await waitFor(() =>
        events.some((e) => e.event === "workers" && e.data.changed.some((w: { worker_id: string; state: string }) => w.worker_id === "wr-1" && w.state === state)),
      );
      await h.close();
    }
  });

  it("hands worker changes to the feed in epochs: begun with the baseline, ended by a failed read and by stopping", async () => {
    await backend.workerRegister("scraper", "fd-1", { hostname: "h" });
    await backend.workerSetState("scraper", "fd-1", "RUNNING", null, clock);
    const feed = new WorkerChangeFeed();
    let failing = false;
    const h = makeHub(backend, {
      workerFeed: feed,
      snapshotSource: () => {
        const inner = new InlineSnapshotSource(async () => backend, 60);
        return {
          kind: "inline",
          baselines: 1,
          poll: async (now: number, names: Parameters<InlineSnapshotSource["poll"]>[1]) => {
            if (failing) throw new Error("read failed");
            return inner.poll(now, names);
          },
          close: () => inner.close(),
        };
      },
    });
    expect(feed.epoch()).toBeNull();
    const { detach } = collect(h);
    expect(await h.whenReady(30_000)).toBe(true);
    const first = feed.epoch();
    expect(first).not.toBeNull();
    await backend.workerSetState("scraper", "fd-1", "ERROR", "boom", clock);
    const taken: string[] = [];
    await waitFor(() => {
      for (const c of feed.take()) for (const w of c.changed) taken.push(`${w.worker_id}:${w.status}:${w.last_error}`);
      return taken.length > 0;
    });
    expect(taken).toEqual(["fd-1:error:boom"]);
    // a failed read may have lost a change: the epoch ends, and a new one begins with the next good read
    failing = true;
    await waitFor(() => feed.epoch() === null);
    failing = false;
    await waitFor(() => feed.epoch() !== null);
    expect(feed.epoch()).toBeGreaterThan(first!);
    detach();
    await waitFor(() => !h.status().running);
    expect(feed.epoch()).toBeNull();
  });

  it("keeps serving the others when one listener throws", async () => {
    const h = makeHub();
    h.attach(() => {
      throw new Error("bad listener");
    });
    const { events } = collect(h);
    await waitFor(() => h.status().subscribed);
    await backend.eventPublish("t", "1");
    await waitFor(() => events.some((e) => e.event === "bus"));
    expect(logs).toContain("an event listener threw");
  });
});
