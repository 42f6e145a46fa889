// The live-events hub: one per server process, shared by every SSE connection. It holds
// ONE bus subscription (Redis: one PSUBSCRIBE event:* connection) and ONE change-detection
// loop, and fans their frames out to a Set of listeners. It starts with the first listener
// and stops a grace period after the last one leaves, so a page reload (leave, then come
// back within a second) does not tear the subscription down and build it up again.
//
// Framework-free on purpose: tests build one over any Backend; `getEventHub()` in
// ./index wires the process-wide one to the app's backend and environment.
import type { Backend, BusMessage, Subscription } from "@fleet/backend";
import type { LiveEventName } from "@fleet/schema";

import { withTimeout } from "../timeout";
import type { DetectedChange, KnownNames } from "./change-detector";
import { busPayload, encodeFrame } from "./frames";
import { ReplayBuffer, type ReplayOptions, type Resume } from "./replay";
import { InlineSnapshotSource, type SnapshotSource } from "./snapshot-source";
import type { WorkerFeedSink } from "./worker-feed";

export interface HubEvent {
  /** Increasing within the process (the frame's `id:` is `<hub>-<id>`, ./replay.ts). */
  id: number;
  event: LiveEventName;
  /** The bus topic (channel without `event:`) for `bus` frames, else null. */
  topic: string | null;
  /** The whole SSE frame, encoded once and shared by every listener. */
  frame: Uint8Array;
}

export type HubListener = (event: HubEvent) => void;

export interface EventHubOptions {
  getBackend: () => Promise<Backend>;
  /**
   * The queue, pool and stream names the loop reads figures of, asked once per tick: the
   * console's name discovery, so that a tick never walks the key space.
   */
  names: () => Promise<KnownNames>;
  /** Told the topic of every bus message (the discovery learns stream names from `<type>.emit`). */
  onBusTopic?: (topic: string) => void;
  /** Period of the change-detection loop. */
  intervalMs: number;
  offlineAfterSeconds: number;
  /** How long the subscription and the loop outlive the last listener. Default 2000 ms. */
  graceMs?: number;
  /** A snapshot read that takes longer counts as a failure. Default max(10 s, 5 intervals). */
  snapshotTimeoutMs?: number;
  /** Pause before a failed subscribe is tried again, independent of the loop. Default 1000 ms. */
  subscribeRetryMs?: number;
  /**
   * Makes the loop's snapshot reader, once per start (closed on stop). Default: reads
   * inline through `getBackend`.
   */
  snapshotSource?: () => SnapshotSource;
  /**
   * Frames kept for reconnecting clients (Last-Event-ID, ./replay.ts). Default: none (every
   * reconnect refetches); the process-wide hub keeps the last minute.
   */
  replay?: ReplayOptions;
  /**
   * Told every worker change the loop finds, and when they can be trusted (./worker-feed.ts):
   * the watch's error recorder in this process reads them instead of the fleet.
   */
  workerFeed?: WorkerFeedSink;
  /** Unix seconds; injectable for tests. */
  now?: () => number;
  log?: (message: string, err?: unknown) => void;
}

export interface HubStatus {
  listeners: number;
  running: boolean;
  subscribed: boolean;
  /** Snapshots read since the hub (re)started. */
  ticks: number;
  /** True while the loop's last snapshot read failed. */
  failing: boolean;
  lastEventId: number;
  /** Duration of the last loop tick, in ms. */
  lastSnapshotMs: number;
  /** Where the loop reads its snapshots; null while stopped. */
  snapshots: "inline" | "thread" | null;
}

const defaultLog = (message: string, err?: unknown) => {
  if (err === undefined) console.warn(`[events] ${message}`);
  else console.error(`[events] ${message}:`, err instanceof Error ? err.message : err);
};

export class EventHub {
  private readonly listeners = new Set<HubListener>();
  private readonly opts: Required<Omit<EventHubOptions, "onBusTopic" | "workerFeed">> & Pick<EventHubOptions, "onBusTopic" | "workerFeed">;
  /** What a reconnecting client missed (./replay.ts). */
  readonly replay: ReplayBuffer;
  private source: SnapshotSource | null = null;
  /** The source baseline the worker feed's epoch began with; null: no epoch in progress. */
  private feedBaseline: number | null = null;

  private running = false;
  /** Bumped on every start and stop, so a tick or a subscribe of an earlier run ends quietly. */
  private generation = 0;
  private lastId = 0;
  private ticks = 0;
  private lastSnapshotMs = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private graceTimer: ReturnType<typeof setTimeout> | null = null;
  private subscribeRetryTimer: ReturnType<typeof setTimeout> | null = null;

  private subscription: { backend: Backend; sub: Subscription } | null = null;
  private subscribing: Promise<void> | null = null;
  /** Settles when every subscription this hub closed is closed: a new one waits for it. */
  private closing: Promise<void> = Promise.resolve();
  private sourceClosing: Promise<void> = Promise.resolve();

  /** Called once the hub is ready: subscribed, and its first snapshot taken (see whenReady). */
  private readonly readyWaiters = new Set<() => void>();

  // "Log once, keep trying": a Redis outage is one line in the log, and one on recovery.
  private loopFailing = false;
  private subscribeFailing = false;

  constructor(options: EventHubOptions) {
    this.opts = {
      graceMs: 2000,
      subscribeRetryMs: 1000,
      snapshotTimeoutMs: Math.max(10_000, options.intervalMs * 5),
      now: () => Date.now() / 1000,
      log: defaultLog,
      snapshotSource: () => new InlineSnapshotSource(options.getBackend, options.offlineAfterSeconds),
      replay: { windowMs: 0, maxFrames: 0, maxBytes: 0 },
      ...options,
    };
    this.replay = new ReplayBuffer(this.opts.replay, () => this.opts.now() * 1000);
  }

  /**
   * Attaches a listener after handing it what it missed since `lastEventId` (./replay.ts),
   * in one synchronous step: no frame falls between the replayed ones and the live ones.
   * `sync` is the frame to send after the replayed ones, numbered like every frame.
   */
  resume(lastEventId: string | null, listener: HubListener): { detach: () => void; resume: Resume; sync: Uint8Array } {
    const resume = this.replay.since(lastEventId, this.lastId);
    const detach = this.attach(listener);
    const seq = ++this.lastId;
    const data =
      resume.mode === "replayed"
        ? { mode: resume.mode, replayed: resume.frames.length }
        : resume.mode === "refetch"
          ? { mode: resume.mode, reason: resume.reason }
          : { mode: resume.mode };
    return { detach, resume, sync: encodeFrame(this.replay.wireId(seq), "sync", data) };
  }

  /** Adds a listener (starting the hub if it is idle); returns the function that removes it. */
  attach(listener: HubListener): () => void {
    this.listeners.add(listener);
    if (this.graceTimer) {
      clearTimeout(this.graceTimer);
      this.graceTimer = null;
    }
    if (!this.running) this.start();
    let attached = true;
    return () => {
      if (!attached) return;
      attached = false;
      this.detach(listener);
    };
  }

  /**
   * Resolves true once the hub is ready (at once when it is): the bus subscription is in
   * place and the change-detection loop has taken its first snapshot, the baseline later
   * changes are found against. False after `timeoutMs` (Redis down, or a slow start). The
   * SSE route waits on it, so a stream the browser sees open receives a message published,
   * or a frame about a worker changed, right after it opened (the page then catches up once
   * on what it fetched before).
   */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.isReady()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.readyWaiters.delete(onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.readyWaiters.add(onReady);
    });
  }

  private isReady(): boolean {
    return this.running && this.subscription !== null && this.ticks > 0;
  }

  private notifyIfReady(): void {
    if (this.isReady()) for (const fn of [...this.readyWaiters]) fn();
  }

  status(): HubStatus {
    return {
      listeners: this.listeners.size,
      running: this.running,
      subscribed: this.subscription !== null,
      ticks: this.ticks,
      failing: this.loopFailing,
      lastEventId: this.lastId,
      lastSnapshotMs: this.lastSnapshotMs,
      snapshots: this.source?.kind ?? null,
    };
  }

  /** Stops at once and closes the subscription (tests, process shutdown). Listeners are dropped. */
  async close(): Promise<void> {
    this.listeners.clear();
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = null;
    this.stop();
    await this.subscribing;
    await this.closing;
    await this.sourceClosing;
  }

  private detach(listener: HubListener): void {
    if (!this.listeners.delete(listener) || this.listeners.size > 0 || !this.running) return;
    this.graceTimer = setTimeout(() => {
      this.graceTimer = null;
      if (this.listeners.size === 0) this.stop();
    }, this.opts.graceMs);
    this.graceTimer.unref?.();
  }

  private start(): void {
    this.running = true;
    const gen = ++this.generation;
    this.ticks = 0;
    this.loopFailing = false;
    // Changes made while the hub did not run were never framed: no id from before can be replayed.
    this.replay.gap(++this.lastId);
    // A restarted hub compares against a fresh baseline (a new source): what changed
    // while nobody listened is not news to a client that loaded its page after that.
    this.source = this.opts.snapshotSource();
    void this.tick(gen);
  }

  private stop(): void {
    if (!this.running) return;
    this.running = false;
    this.generation++;
    this.feedGap();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.subscribeRetryTimer) clearTimeout(this.subscribeRetryTimer);
    this.subscribeRetryTimer = null;
    const source = this.source;
    this.source = null;
    if (source) {
      this.sourceClosing = this.sourceClosing.then(() => source.close()).catch((err: unknown) => this.opts.log("closing the snapshot source failed", err));
    }
    const current = this.subscription;
    this.subscription = null;
    if (current) this.closeLater(current.sub);
    // A subscribe still in flight sees `running` false when it lands and closes itself.
  }

  private closeLater(sub: Subscription): void {
    this.closing = this.closing.then(() => sub.close()).catch((err: unknown) => this.opts.log("closing the bus subscription failed", err));
  }

  private async tick(gen: number): Promise<void> {
    if (gen !== this.generation) return;
    const started = performance.now();
    try {
      const backend = await this.opts.getBackend();
      if (gen !== this.generation) return;
      this.ensureSubscribed(backend);
      const source = this.source;
      if (!source) return;
      const names = await this.opts.names();
      if (gen !== this.generation) return;
      const changes = await withTimeout(
        source.poll(this.opts.now(), names),
        this.opts.snapshotTimeoutMs,
        () => new Error(`snapshot read took longer than ${this.opts.snapshotTimeoutMs} ms`),
      );
      if (gen !== this.generation) return;
      this.ticks++;
      if (this.ticks === 1) this.notifyIfReady();
      if (this.loopFailing) {
        this.loopFailing = false;
        this.opts.log("change detection recovered");
      }
      this.feed(source, changes);
      for (const change of changes) this.emit(change.event, null, change.data);
    } catch (err) {
      if (gen !== this.generation) return; // stopped meanwhile: the failure is ours, not Redis's
      // a read that failed or timed out here may have moved the baseline all the same
      this.feedGap();
      if (!this.loopFailing) this.opts.log("change detection failed; retrying every interval", err);
      this.loopFailing = true;
      // getBackend itself may have failed before the subscription was even tried.
      if (!this.subscription) this.scheduleSubscribeRetry();
    } finally {
      if (gen === this.generation) {
        // A snapshot that takes longer than the interval (a very large fleet) spaces the
        // next one out by as much, so the loop never keeps Redis or this process more than
        // half busy, whatever the fleet's size.
        this.lastSnapshotMs = performance.now() - started;
        const delay = Math.max(this.opts.intervalMs, this.lastSnapshotMs);
        this.timer = setTimeout(() => void this.tick(gen), delay);
        this.timer.unref?.();
      }
    }
  }

  /** Hands a successful poll's worker changes to the feed, or begins its epoch. */
  private feed(source: SnapshotSource, changes: DetectedChange[]): void {
    const feed = this.opts.workerFeed;
    if (!feed) return;
    if (this.feedBaseline !== source.baselines) {
      // this poll set a new baseline (it found nothing against an old one): the epoch starts now
      this.feedBaseline = source.baselines;
      feed.begin();
      return;
    }
    for (const c of changes) if (c.event === "workers") feed.push(c.data);
  }

  private feedGap(): void {
    if (this.feedBaseline === null) return;
    this.feedBaseline = null;
    this.opts.workerFeed?.gap();
  }

  /**
   * Makes sure exactly one subscription exists, on the backend the app currently uses.
   * Called on every tick, so a subscribe that failed (Redis down at start) is retried.
   */
  private ensureSubscribed(backend: Backend): void {
    if (!this.running || this.subscribing !== null) return;
    if (this.subscription?.backend === backend) return;
    const stale = this.subscription;
    this.subscription = null;
    if (stale) this.closeLater(stale.sub);
    this.subscribing = (async () => {
      await this.closing;
      const sub = await backend.subscribeEvents((msg) => this.onBus(msg));
      if (!this.running) {
        this.closeLater(sub);
        return;
      }
      this.subscription = { backend, sub };
      this.notifyIfReady();
      if (this.subscribeFailing) {
        this.subscribeFailing = false;
        this.opts.log("bus subscription restored");
      }
    })()
      .catch((err: unknown) => {
        if (!this.subscribeFailing) this.opts.log("bus subscription failed; retrying", err);
        this.subscribeFailing = true;
        this.scheduleSubscribeRetry();
      })
      .finally(() => {
        this.subscribing = null;
      });
  }

  /**
   * The bus must not wait for the loop: with a long interval (or a slow snapshot) a failed
   * subscribe would otherwise stay failed until the next tick.
   */
  private scheduleSubscribeRetry(): void {
    if (!this.running || this.subscribeRetryTimer) return;
    this.subscribeRetryTimer = setTimeout(() => {
      this.subscribeRetryTimer = null;
      if (!this.running || this.subscription) return;
      this.opts.getBackend().then(
        (backend) => this.ensureSubscribed(backend),
        (err: unknown) => {
          if (!this.subscribeFailing) this.opts.log("bus subscription failed; retrying", err);
          this.subscribeFailing = true;
          this.scheduleSubscribeRetry();
        },
      );
    }, this.opts.subscribeRetryMs);
    this.subscribeRetryTimer.unref?.();
  }

  private onBus(msg: BusMessage): void {
    if (!this.running) return;
    try {
      this.opts.onBusTopic?.(msg.topic);
    } catch (err) {
      this.opts.log("onBusTopic threw", err);
    }
    this.emit("bus", msg.topic, { topic: msg.topic, payload: busPayload(msg.payload), received_at: this.opts.now() });
  }

  private emit(event: LiveEventName, topic: string | null, data: unknown): void {
    // Frames are kept for replay even while nobody listens (a reload, a reconnect).
    if (this.listeners.size === 0 && !this.replay.enabled) return;
    const id = ++this.lastId;
    const hubEvent: HubEvent = { id, event, topic, frame: encodeFrame(this.replay.wireId(id), event, data) };
    this.replay.push(id, topic, hubEvent.frame);
    for (const listener of this.listeners) {
      try {
        listener(hubEvent);
      } catch (err) {
        this.opts.log("an event listener threw", err);
      }
    }
  }
}
