// The console's watch (issue 15): in every console process, a follower trying for the lead;
// in exactly one, the leader, which every 10 s records queue history (../history/writer.ts),
// evaluates the alert rules and delivers what is due (../alerts/engine.ts) and records the
// workers' error history (./worker-errors.ts). The one write the console makes without being
// asked, and only to its own keys (fleet:console:history:…, fleet:console:alerts:…,
// fleet:console:worker-errors:…) and its lock (fleet:lock:fleet-console-watch).
//
// Ticks are aligned to the 10 s slots (a little after each boundary), so two leaders in turn
// (a hand-over) write the same slots, not slots shifted by a few seconds.
//
// Framework-free: src/server/watch/index.ts wires the process-wide one; tests and the
// hand-over test's child processes build their own.
import type { Backend, QueueDepths } from "@fleet/backend";

import { AlertEngine } from "../alerts/engine";
import { HistoryWriter, type WatchTick } from "../history/writer";
import { Leadership } from "./leader";
import type { WorkerFeedReader } from "../events/worker-feed";
import { WorkerErrorRecorder } from "./worker-errors";

export const WATCH_LOCK = "fleet-console-watch";

const isEmpty = (d: QueueDepths) => d.pending.total === 0 && d.processing === 0 && d.scheduled === 0 && d.dead === 0;
export const DEFAULT_HOLD_SECONDS = 30;
export const TICK_MS = 10_000;
/** How far past a slot boundary a tick runs (reads settle; no two ticks per slot). */
const TICK_OFFSET_MS = 500;

export interface WatchServiceOptions {
  getBackend: () => Promise<Backend>;
  /** The queues to record: the app's one list of queue names (src/server/watch/index.ts). */
  queueNames: (backend: Backend) => Promise<string[]>;
  /** The pools alert rules look at: the app's one list of pool names (src/server/watch/index.ts); default Backend.poolNames (a walk of the key space: tests). */
  poolNames?: (backend: Backend) => Promise<string[]>;
  /** Told the queues a tick found with every figure at zero (they may be gone: forget those). */
  forgetQueues?: (backend: Backend, zero: string[]) => Promise<void>;
  offlineAfterSeconds: number;
  lockName?: string;
  holdSeconds?: number;
  /** Period of ticks (10 s in production; the 10 s slots do not change with it). */
  tickMs?: number;
  /** False: ticks run only when called (tests drive them with tickNow). */
  timers?: boolean;
  alerts?: boolean;
  /** False: no worker error history (fleet:console:worker-errors:…). Default true. */
  workerErrors?: boolean;
  /** The live-events loop's worker changes in this process (../events/worker-feed.ts), read instead of the fleet while it runs. */
  workerFeed?: WorkerFeedReader;
  fetch?: typeof fetch;
  deliveryTimeoutMs?: number;
  /** Unix seconds. */
  now?: () => number;
  log?: (line: string) => void;
  /** Told of every tick's result (tests, the child processes of the hand-over test). */
  onTick?: (tick: WatchTick) => void;
}

export interface WatchStatus {
  leader: boolean;
  terms: number;
  ticks: number;
  lastTickAt: number | null;
  lastError: string | null;
}

export class WatchService {
  readonly leadership: Leadership;
  private readonly writer: HistoryWriter;
  private readonly alerts: AlertEngine | null;
  private readonly workerErrors: WorkerErrorRecorder | null;
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  private readonly tickMs: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private ticks = 0;
  private lastTickAt: number | null = null;
  private lastError: string | null = null;

  constructor(private readonly opts: WatchServiceOptions) {
    this.now = opts.now ?? (() => Date.now() / 1000);
    this.log = opts.log ?? (() => {});
    this.tickMs = opts.tickMs ?? TICK_MS;
    this.writer = new HistoryWriter({ log: (m) => this.log(`history: ${m}`) });
    this.alerts =
      opts.alerts === false
        ? null
        : new AlertEngine({
            fetch: opts.fetch,
            timeoutMs: opts.deliveryTimeoutMs,
            offlineAfterSeconds: opts.offlineAfterSeconds,
            poolNames: opts.poolNames,
            log: (m) => this.log(m),
          });
    this.workerErrors = opts.workerErrors === false ? null : new WorkerErrorRecorder({ offlineAfterSeconds: opts.offlineAfterSeconds, feed: opts.workerFeed });
    this.leadership = new Leadership({
      getBackend: opts.getBackend,
      lockName: opts.lockName ?? WATCH_LOCK,
      holdSeconds: opts.holdSeconds ?? DEFAULT_HOLD_SECONDS,
      log: (m) => this.log(`watch: ${m}`),
      // A new term starts from what Redis holds, never from what an earlier term remembered.
      onStepDown: () => {
        this.writer.reset();
        this.workerErrors?.reset();
      },
      onLead: () => {
        this.writer.reset();
        this.workerErrors?.reset();
      },
    });
  }

  start(): void {
    this.leadership.start();
    if (this.opts.timers !== false) this.schedule();
  }

  status(): WatchStatus {
    return { leader: this.leadership.isLeader, terms: this.leadership.terms, ticks: this.ticks, lastTickAt: this.lastTickAt, lastError: this.lastError };
  }

  private schedule(): void {
    if (this.stopped) return;
    const nowMs = this.now() * 1000;
    const wait = this.tickMs - (nowMs % this.tickMs) + Math.min(TICK_OFFSET_MS, this.tickMs / 4);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.tickNow().finally(() => this.schedule());
    }, wait);
    this.timer.unref?.();
  }

  /** One tick now, when leading (else nothing); concurrent calls share one. */
  tickNow(): Promise<void> {
    this.running ??= this.tick().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async tick(): Promise<void> {
    if (this.stopped || !this.leadership.isLeader) return;
    const confirm = () => this.leadership.confirm();
    try {
      const backend = await this.opts.getBackend();
      const now = this.now();
      const names = await this.opts.queueNames(backend);
      // a term that ended while the names were read writes nothing
      if (!this.leadership.isLeader) return;
      const tick = await this.writer.tick(backend, names, now);
      this.ticks++;
      this.lastTickAt = now;
      this.opts.onTick?.(tick);
      const zero = tick.queues.filter((q) => isEmpty(q.depths)).map((q) => q.name);
      if (zero.length > 0 && this.opts.forgetQueues) await this.opts.forgetQueues(backend, zero);
      if (this.alerts) {
        await this.alerts.evaluate(backend, tick, now, confirm);
        await this.alerts.deliver(backend, now, confirm);
      }
      // last: alerts are not delayed by a large fleet's read
      if (this.workerErrors) await this.workerErrors.tick(backend, now, () => this.leadership.isLeader);
      if (this.lastError !== null) this.log("watch: ticks work again");
      this.lastError = null;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (this.lastError === null) this.log(`watch: a tick failed (retrying every tick): ${message}`);
      this.lastError = message;
    }
  }

  /** Stops ticking and releases the lead (a clean shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.leadership.stop();
  }

  /** As a crash: stops without releasing the lock (tests). */
  async kill(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.leadership.kill();
  }
}
