// One live stream per browser, not per tab. Chromium opens at most six HTTP/1.1
// connections per host, and an EventSource holds one for good: six console tabs used to
// leave nothing for the seventh tab's requests. So the tabs elect a leader with a Web Lock
// (held for the tab's lifetime; the browser hands it to the next waiting tab when the
// leader closes or crashes), the leader alone holds the EventSource and re-broadcasts
// every frame and its status on a BroadcastChannel, and every tab applies the frames to
// its own cache. Without Web Locks or BroadcastChannel a tab streams on its own ("solo").
//
// Nothing here knows React or TanStack Query: the tab's side is a `TabSink`, the stream
// an injected `openStream`, so the election runs under Node in the tests.
import { SessionInfoSchema } from "@fleet/schema";

import { decodeTabMessage, type LiveKind, type LiveStatus, type TabMessage } from "./live-frames";

/** Bumped when TabMessage changes, so tabs of an older build never lead newer ones. */
export const LIVE_CHANNEL = "fleet-console-live-v1";
export const LIVE_LOCK = "fleet-console-live-v1";

/** The leader repeats its status this often: a follower that missed one catches up. */
export const STATUS_REPEAT_MS = 5_000;
/** A leader reconnects at most this often when tabs ask it to (hello, poke). */
export const POKE_MIN_INTERVAL_MS = 2_000;

export type Role = "starting" | "follower" | "leader" | "solo";

export interface TabSink {
  frame(kind: LiveKind, id: string, data: string): void;
  status(status: LiveStatus): void;
}

export interface StreamHandlers {
  frame(kind: LiveKind, id: string, data: string): void;
  status(status: LiveStatus): void;
}
export interface StreamDriver {
  /** Drops the connection (if any) and connects at once. */
  reconnectNow(): void;
  close(): void;
}
/**
 * `lastEventId`: the id of the last frame this tab saw (its own or the leader's before it), so
 * that the server can give back what was missed while nobody held the stream.
 */
export type OpenStream = (handlers: StreamHandlers, start?: { lastEventId: string | null }) => StreamDriver;

/** The part of `navigator.locks` we use. */
export interface LockManagerLike {
  request(name: string, options: { signal?: AbortSignal }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}
export interface ChannelLike {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((ev: MessageEvent) => void) | null;
}

export interface LiveTabsOptions {
  sink: TabSink;
  openStream: OpenStream;
  /** Default: `navigator.locks` when present. null forces solo. */
  locks?: LockManagerLike | null;
  /** Default: `new BroadcastChannel(name)` when present. null forces solo. */
  makeChannel?: ((name: string) => ChannelLike) | null;
  /** Namespaces the lock and channel (tests run several "browsers" in one process). */
  name?: string;
  now?: () => number;
}

export interface LiveTabs {
  role(): Role;
  /** Asks the stream to reconnect now (whichever tab holds it). */
  poke(reason: "auth" | "session-ok"): void;
  stop(): void;
}

function defaultLocks(): LockManagerLike | null {
  if (typeof navigator === "undefined") return null;
  const locks = (navigator as Navigator & { locks?: LockManagerLike }).locks;
  return locks && typeof locks.request === "function" ? locks : null;
}

function defaultChannel(): ((name: string) => ChannelLike) | null {
  if (typeof BroadcastChannel === "undefined") return null;
  return (name) => new BroadcastChannel(name) as unknown as ChannelLike;
}

export function startLiveTabs(options: LiveTabsOptions): LiveTabs {
  const { sink, openStream } = options;
  const locks = options.locks === undefined ? defaultLocks() : options.locks;
  const makeChannel = options.makeChannel === undefined ? defaultChannel() : options.makeChannel;
  const now = options.now ?? Date.now;
  const channelName = options.name ? `${LIVE_CHANNEL}:${options.name}` : LIVE_CHANNEL;
  const lockName = options.name ? `${LIVE_LOCK}:${options.name}` : LIVE_LOCK;

  let role: Role = "starting";
  let stopped = false;
  let driver: StreamDriver | null = null;
  let lastPoke = -Infinity;
  /** The newest frame id this tab has seen, from its own stream or the leader's. */
  let lastEventId: string | null = null;
  const seen = (id: string) => {
    if (id) lastEventId = id;
  };

  const pokeDriver = () => {
    if (!driver) return;
    const t = now();
    if (t - lastPoke < POKE_MIN_INTERVAL_MS) return;
    lastPoke = t;
    driver.reconnectNow();
  };

  if (!locks || !makeChannel) {
    role = "solo";
    driver = openStream({ frame: (k, id, d) => sink.frame(k, id, d), status: (s) => sink.status(s) }, { lastEventId: null });
    return {
      role: () => role,
      poke: () => pokeDriver(),
      stop() {
        if (stopped) return;
        stopped = true;
        driver?.close();
        driver = null;
      },
    };
  }

  const channel = makeChannel(channelName);
  const post = (msg: TabMessage) => {
    if (stopped) return;
    try {
      channel.postMessage(msg);
    } catch {
      // closed underneath us (the tab is going away): nobody left to tell
    }
  };
  let leaderStatus: LiveStatus = "connecting";

  channel.onmessage = (ev: MessageEvent) => {
    if (stopped) return;
    const msg = decodeTabMessage(ev.data);
    if (!msg) return;
    if (role === "leader") {
      if (msg.t === "hello") {
        post({ t: "status", status: leaderStatus });
        // A new tab may come right after a sign-in: worth a try now, not at the next backoff.
        if (leaderStatus !== "live") pokeDriver();
      } else if (msg.t === "poke") {
        if (msg.reason === "auth" || leaderStatus !== "live") pokeDriver();
      }
      return;
    }
    if (msg.t === "frame") {
      seen(msg.id);
      sink.frame(msg.kind, msg.id, msg.data);
    } else if (msg.t === "status") sink.status(msg.status);
    // Until the next leader reports, frames may be missed: not "live".
    else if (msg.t === "bye") sink.status("reconnecting");
  };

  role = "follower";
  post({ t: "hello" });

  const abort = new AbortController();
  let release: (() => void) | null = null;
  let repeat: ReturnType<typeof setInterval> | null = null;

  const onPageHide = () => {
    if (role === "leader") post({ t: "bye" });
  };
  if (typeof window !== "undefined") window.addEventListener("pagehide", onPageHide);

  locks
    .request(lockName, { signal: abort.signal }, () => {
      if (stopped) return Promise.resolve();
      role = "leader";
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      leaderStatus = "connecting";
      sink.status("connecting");
      post({ t: "status", status: "connecting" });
      // From where this tab left off: the server gives back what the previous leader's
      // stream would have carried meanwhile (or tells every tab to refetch).
      driver = openStream(
        {
          frame(kind, id, data) {
            seen(id);
            sink.frame(kind, id, data);
            post({ t: "frame", kind, id, data });
          },
          status(status) {
            leaderStatus = status;
            sink.status(status);
            post({ t: "status", status });
          },
        },
        { lastEventId },
      );
      repeat = setInterval(() => post({ t: "status", status: leaderStatus }), STATUS_REPEAT_MS);
      return held;
    })
    .catch(() => {
      // AbortError: stopped while waiting for the lock
    });

  return {
    role: () => role,
    poke(reason) {
      if (role === "leader") {
        if (reason === "auth" || leaderStatus !== "live") pokeDriver();
      } else {
        post({ t: "poke", reason });
      }
    },
    stop() {
      if (stopped) return;
      if (role === "leader") post({ t: "bye" });
      stopped = true;
      abort.abort();
      if (repeat !== null) clearInterval(repeat);
      driver?.close();
      driver = null;
      if (typeof window !== "undefined") window.removeEventListener("pagehide", onPageHide);
      channel.onmessage = null;
      channel.close();
      (release as (() => void) | null)?.();
      role = "starting";
    },
  };
}

// ---------- the stream itself (the leader's, or a solo tab's)

export interface EventSourceStreamOptions {
  url: string;
  /** How long "reconnecting" may last before the stream counts as down. */
  downAfterMs: number;
  /**
   * Tells a 401 from other failures: EventSource never shows the status of an answer it
   * refused. Resolves true when nobody is signed in.
   */
  isSignedOut: () => Promise<boolean>;
}

/** How long an open stream may go without its sync frame before the tab refetches and calls it live anyway. */
export const SYNC_WAIT_MS = 5_000;

/**
 * A driver over a real EventSource: the browser's retries plus ours after a refused answer.
 * The stream counts as live once the server's `sync` frame arrives (after any frames it gave
 * back), not when the connection opens: until then the page may still miss something.
 * A new EventSource (ours, after a refused answer or a poke) names the last id seen in the
 * query; the browser's own reconnects send it as Last-Event-ID.
 */
export function eventSourceStream(opts: EventSourceStreamOptions): OpenStream {
  return (handlers, start) => {
    let source: EventSource | null = null;
    let lastEventId: string | null = start?.lastEventId ?? null;
    let syncTimer: ReturnType<typeof setTimeout> | null = null;
    let downTimer: ReturnType<typeof setTimeout> | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | null = null;
    let retryMs = 3_000;
    let status: LiveStatus = "connecting";
    let closed = false;
    /** Bumped per connection: late callbacks of a replaced EventSource are ignored. */
    let generation = 0;

    const set = (next: LiveStatus) => {
      if (closed || next === status) return;
      status = next;
      handlers.status(next);
    };
    const clearTimers = () => {
      if (downTimer !== null) clearTimeout(downTimer);
      if (retryTimer !== null) clearTimeout(retryTimer);
      if (syncTimer !== null) clearTimeout(syncTimer);
      downTimer = retryTimer = syncTimer = null;
    };
    const urlFrom = () => {
      if (!lastEventId) return opts.url;
      return `${opts.url}${opts.url.includes("?") ? "&" : "?"}last_event_id=${encodeURIComponent(lastEventId)}`;
    };

    const connect = () => {
      if (closed) return;
      const gen = ++generation;
      const es = new EventSource(urlFrom());
      source = es;
      es.onopen = () => {
        if (gen !== generation) return;
        clearTimers();
        retryMs = 3_000;
        // live once the sync frame comes; a server that never sends one is caught up on anyway
        syncTimer = setTimeout(() => {
          syncTimer = null;
          if (gen !== generation) return;
          handlers.frame("sync", "", JSON.stringify({ mode: "refetch", reason: "no sync frame" }));
          set("live");
        }, SYNC_WAIT_MS);
      };
      es.onerror = () => {
        if (gen !== generation) return;
        if (syncTimer !== null) clearTimeout(syncTimer);
        syncTimer = null;
        if (es.readyState === EventSource.CLOSED) {
          // The browser gave up (a non-200 answer): find out why, retry ourselves with backoff.
          es.close();
          if (downTimer !== null) clearTimeout(downTimer);
          downTimer = null;
          const wait = retryMs;
          retryMs = Math.min(retryMs * 2, 30_000);
          void opts.isSignedOut().then(
            (out) => {
              if (gen === generation) set(out ? "signed-out" : "down");
            },
            () => {
              if (gen === generation) set("down");
            },
          );
          retryTimer = setTimeout(connect, wait);
          return;
        }
        if (status !== "down" && status !== "signed-out") set("reconnecting");
        downTimer ??= setTimeout(() => {
          downTimer = null;
          if (gen === generation) set("down");
        }, opts.downAfterMs);
      };
      const forward = (kind: LiveKind) => (e: MessageEvent) => {
        if (gen !== generation || typeof e.data !== "string") return;
        if (e.lastEventId) lastEventId = e.lastEventId;
        handlers.frame(kind, e.lastEventId, e.data);
        if (kind === "sync") {
          if (syncTimer !== null) clearTimeout(syncTimer);
          syncTimer = null;
          set("live");
        }
      };
      es.addEventListener("bus", forward("bus"));
      es.addEventListener("workers", forward("workers"));
      es.addEventListener("queues", forward("queues"));
      es.addEventListener("pools", forward("pools"));
      es.addEventListener("streams", forward("streams"));
      es.addEventListener("sync", forward("sync"));
    };

    connect();
    return {
      reconnectNow() {
        if (closed) return;
        // The new connection names the last id seen: the server replays the gap (or says refetch).
        if (status === "live") set("reconnecting");
        generation++;
        source?.close();
        source = null;
        clearTimers();
        connect();
      },
      close() {
        closed = true;
        generation++;
        source?.close();
        source = null;
        clearTimers();
      },
    };
  };
}

/** For `isSignedOut`: asks the session endpoint (it needs no role). */
export async function sessionSignedOut(apiBase: string): Promise<boolean> {
  const res = await fetch(`${apiBase}/auth/session`, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } });
  if (res.status === 401) return true;
  if (!res.ok) return false;
  const info = SessionInfoSchema.safeParse(await res.json().catch(() => undefined));
  return info.success && info.data.mode === "auth" && info.data.user === null;
}
