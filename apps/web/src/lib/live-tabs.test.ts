// The tab election over Node's real BroadcastChannel and a lock manager that keeps the Web
// Locks semantics the election relies on: one holder per name, waiters served in order,
// the lock released when the holder's promise settles, a waiting request cancelled by its
// signal. Each test is its own "browser" (a unique name).
import { randomBytes } from "node:crypto";

import { afterEach, describe, expect, it } from "vitest";

import type { LiveKind, LiveStatus } from "./live-frames";
import { POKE_MIN_INTERVAL_MS, startLiveTabs, type LiveTabs, type LockManagerLike, type StreamHandlers } from "./live-tabs";

class Locks implements LockManagerLike {
  private readonly held = new Set<string>();
  private readonly queue = new Map<string, Array<() => void>>();

  request(name: string, options: { signal?: AbortSignal }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const run = () => {
        this.held.add(name);
        void Promise.resolve()
          .then(() => callback({ name }))
          .then(resolve, reject)
          .finally(() => {
            this.held.delete(name);
            this.queue.get(name)?.shift()?.();
          });
      };
      if (!this.held.has(name)) return run();
      const waiting = this.queue.get(name) ?? [];
      this.queue.set(name, waiting);
      waiting.push(run);
      options.signal?.addEventListener("abort", () => {
        const i = waiting.indexOf(run);
        if (i >= 0) waiting.splice(i, 1);
        reject(new DOMException("aborted", "AbortError"));
      });
    });
  }
}

/** One fake stream per leader: records the handlers so the test can play the server. */
class Streams {
  readonly opened: Array<{ handlers: StreamHandlers; closed: boolean; reconnects: number; lastEventId: string | null }> = [];
  open = (handlers: StreamHandlers, start?: { lastEventId: string | null }) => {
    const s = { handlers, closed: false, reconnects: 0, lastEventId: start?.lastEventId ?? null };
    this.opened.push(s);
    return {
      reconnectNow: () => void s.reconnects++,
      close: () => void (s.closed = true),
    };
  };
  get current() {
    const open = this.opened.filter((s) => !s.closed);
    expect(open).toHaveLength(1);
    return open[0]!;
  }
}

interface Tab {
  tabs: LiveTabs;
  frames: Array<[LiveKind, string, string]>;
  statuses: LiveStatus[];
}

const started: LiveTabs[] = [];
afterEach(() => {
  for (const t of started.splice(0)) t.stop();
});

function browser(opts: { now?: () => number } = {}) {
  const name = randomBytes(6).toString("hex");
  const locks = new Locks();
  const streams = new Streams();
  const open = (): Tab => {
    const tab: Tab = { frames: [], statuses: [], tabs: null as unknown as LiveTabs };
    tab.tabs = startLiveTabs({
      name,
      locks,
      openStream: streams.open,
      ...(opts.now ? { now: opts.now } : {}),
      sink: {
        frame: (k, id, d) => void tab.frames.push([k, id, d]),
        status: (s) => void tab.statuses.push(s),
      },
    });
    started.push(tab.tabs);
    return tab;
  };
  return { open, streams };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `cond`; 20 s: a guard against hanging, generous for a loaded machine. */
async function until(cond: () => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await pause(5);
  }
}

describe("live tabs", () => {
  it("elects one leader that holds the only stream; every tab gets every frame and the status", async () => {
    const b = browser();
    const tabs = Array.from({ length: 8 }, () => b.open());
    await until(() => tabs.filter((t) => t.tabs.role() === "leader").length === 1);
    expect(b.streams.opened).toHaveLength(1);
    expect(tabs.filter((t) => t.tabs.role() === "follower")).toHaveLength(7);

    const stream = b.streams.current;
    stream.handlers.status("live");
    stream.handlers.frame("bus", "7", '{"topic":"a","payload":1,"received_at":1}');
    stream.handlers.frame("workers", "8", '{"changed":[],"removed":[]}');
    await until(() => tabs.every((t) => t.frames.length === 2));
    for (const t of tabs) {
      expect(t.frames).toEqual([
        ["bus", "7", '{"topic":"a","payload":1,"received_at":1}'],
        ["workers", "8", '{"changed":[],"removed":[]}'],
      ]);
      expect(t.statuses.at(-1)).toBe("live");
    }
    // still the only stream, and one leader, now that messages went round every tab
    expect(b.streams.opened).toHaveLength(1);
    expect(tabs.filter((t) => t.tabs.role() === "leader")).toHaveLength(1);
  });

  it("hands the stream to another tab when the leader goes; followers stop saying live meanwhile", async () => {
    const b = browser();
    const tabs = [b.open(), b.open(), b.open()];
    await until(() => tabs.some((t) => t.tabs.role() === "leader"));
    b.streams.current.handlers.status("live");
    await until(() => tabs.every((t) => t.statuses.at(-1) === "live"));

    const leader = tabs.find((t) => t.tabs.role() === "leader")!;
    const first = b.streams.current;
    leader.tabs.stop();
    expect(first.closed).toBe(true);
    const rest = tabs.filter((t) => t !== leader);
    await until(() => rest.some((t) => t.tabs.role() === "leader"));
    expect(rest.filter((t) => t.tabs.role() === "leader")).toHaveLength(1);
    // Between the bye and the next leader's live, nobody claims live. A tab opened now is
    // answered by the new leader: once it has its answer, what was sent before it has arrived.
    const witness = b.open();
    await until(() => witness.statuses.length > 0);
    for (const t of [...rest, witness]) expect(t.statuses.at(-1)).not.toBe("live");

    const next = b.streams.current;
    expect(next).not.toBe(first);
    next.handlers.status("live");
    next.handlers.frame("queues", "1", '{"queues":[]}');
    await until(() => rest.every((t) => t.frames.length === 1 && t.statuses.at(-1) === "live"));
    expect(leader.frames).toHaveLength(0);
  });

  it("a tab taking the stream over opens it from the last frame id it saw (the server gives back the gap)", async () => {
    const b = browser();
    const tabs = [b.open(), b.open()];
    await until(() => tabs.some((t) => t.tabs.role() === "leader"));
    const first = b.streams.current;
    expect(first.lastEventId).toBeNull();
    first.handlers.status("live");
    first.handlers.frame("bus", "beef01-41", '{"topic":"a","payload":1,"received_at":1}');
    first.handlers.frame("sync", "", '{"mode":"fresh"}'); // no id: does not move the position
    first.handlers.frame("queues", "beef01-42", '{"queues":[]}');
    const follower = tabs.find((t) => t.tabs.role() === "follower")!;
    await until(() => follower.frames.length === 3);
    tabs.find((t) => t.tabs.role() === "leader")!.tabs.stop();
    await until(() => follower.tabs.role() === "leader");
    expect(b.streams.current.lastEventId).toBe("beef01-42");
  });

  it("answers a new tab with the status, and asks the stream to retry when a tab comes while it is not live", async () => {
    const b = browser();
    const first = b.open();
    await until(() => first.tabs.role() === "leader");
    const stream = b.streams.current;
    stream.handlers.status("live");
    const late = b.open();
    await until(() => late.statuses.at(-1) === "live");
    expect(stream.reconnects).toBe(0);

    stream.handlers.status("signed-out");
    await until(() => late.statuses.at(-1) === "signed-out");
    b.open(); // e.g. a tab opened right after signing in again
    await until(() => stream.reconnects === 1);
  });

  it("routes a follower's poke to the leader: an auth poke always, a session-ok poke only while not live", async () => {
    // a clock that moves a whole poke interval at every reading: the leader's rate limit never
    // hides a reconnect, so each one a poke causes is counted
    let clock = 0;
    const b = browser({ now: () => (clock += POKE_MIN_INTERVAL_MS) });
    const leader = b.open();
    await until(() => leader.tabs.role() === "leader");
    const follower = b.open();
    const stream = b.streams.current;
    stream.handlers.status("live");
    await until(() => follower.statuses.at(-1) === "live");

    // the follower's pokes reach the leader in order: once the two auth pokes sent after it
    // made their two reconnects, the session-ok poke before them was handled, and made none
    follower.tabs.poke("session-ok");
    follower.tabs.poke("auth");
    follower.tabs.poke("auth");
    await until(() => stream.reconnects >= 2);
    expect(stream.reconnects).toBe(2);
  });

  it("streams on its own without Web Locks or BroadcastChannel", async () => {
    const streams = new Streams();
    const statuses: LiveStatus[] = [];
    const a = startLiveTabs({ locks: null, openStream: streams.open, sink: { frame: () => {}, status: (s) => void statuses.push(s) } });
    const b = startLiveTabs({ makeChannel: null, locks: new Locks(), openStream: streams.open, sink: { frame: () => {}, status: () => {} } });
    started.push(a, b);
    expect(a.role()).toBe("solo");
    expect(b.role()).toBe("solo");
    expect(streams.opened).toHaveLength(2);
    streams.opened[0]!.handlers.status("live");
    expect(statuses).toEqual(["live"]);
  });
});
