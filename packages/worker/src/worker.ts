// One Fleet worker: registration, heartbeats and stats frames, config generations, and
// N slots running an automation. The protocol lives in ../shared/spec (README.md, backend.py).
import { EventEmitter } from "node:events";
import type { Backend, BusMessage, JsonObject } from "@fleet/backend";
import { isJsonObject, parseJsonBytes, pyFloat } from "@fleet/backend";
import { queueOf, type Automation, type RuntimeConfig, type Task } from "./automation";
import { abortReason, sleep, systemClock, type Clock } from "./clock";
import { createContext, emitToStream, type ContextDeps } from "./context";
import { sharedBus } from "./event-bus";
import { cpuMeter, detectHardware } from "./hardware";
import { errorText, parseTaskBody, retryDelayMs, withFailure } from "./task-body";

export type WorkerState = "IDLE" | "RUNNING" | "ERROR";

/** The bus topic the console publishes after a config write: `{"automation_type", "worker_id", "config_gen"}`. */
export const CONFIG_TOPIC = "fleet.config";

export interface WorkerOptions {
  backend: Backend;
  automation: Automation;
  workerId: string;
  /** Reported as `hardware.hostname`; defaults to the machine's. */
  hostname?: string;
  /** Merged over the detected hardware (simulated hosts). */
  hardware?: JsonObject;
  /** State + last_seen + stats frame period. */
  heartbeatMs?: number;
  /** Fallback config poll period; the `event:fleet.config` bus message triggers a read at once. */
  configPollMs?: number;
  clock?: Clock;
  /** How long one reserve call waits for a task (0: one attempt). */
  reserveTimeoutSeconds?: number;
  /** Pause after an empty reserve, doubling from min to max while the queue stays empty (keeps idle slots cheap on Redis). */
  idlePollMs?: { min: number; max: number };
  /** Consecutive crashes of one slot that turn the worker to ERROR. */
  errorAfterCrashes?: number;
  /** Delay before a crashed slot runs again: doubles per consecutive crash up to max. */
  crashBackoffMs?: { base: number; max: number };
  /** Longest a graceful stop waits for in-flight tasks before nacking them. */
  stopGraceMs?: number;
  /** Adds or replaces fields of each stats frame (simulated hosts report their own cpu/memory). */
  stats?: (frame: JsonObject) => JsonObject;
  /** Stats history cap (`wkr:...:stats:history`). */
  statsHistoryMax?: number;
  log?: (line: string) => void;
  random?: () => number;
}

export interface WorkerCounters {
  tasksDone: number;
  /** Failed attempts (each nack or dead-letter). */
  tasksFailed: number;
  tasksRetried: number;
  tasksDead: number;
  /** In-flight tasks put back by a graceful stop. */
  tasksRequeued: number;
  /** Slot crashes (continuous run errors, backend errors). */
  crashes: number;
  configsApplied: number;
  configsIgnored: number;
  configsRejected: number;
  heartbeats: number;
  /** Tasks whose reservation was gone when this worker extended, acked or gave them back: left to their new holder. */
  leasesLost: number;
}

export interface WorkerSnapshot extends WorkerCounters {
  automationType: string;
  workerId: string;
  state: WorkerState;
  lastError: string | null;
  configGen: number;
  config: RuntimeConfig & JsonObject;
  slotsTarget: number;
  slotsRunning: number;
  slotsBusy: number;
  /** Ids of tasks being run right now. */
  inFlight: string[];
  phase: "running" | "stopping" | "stopped" | "killed";
}

export interface WorkerHandle {
  readonly automationType: string;
  readonly workerId: string;
  /** Emits "change" (snapshot), "config" ({gen, applied, reason}), "task" ({id, outcome}), "crash" (error). */
  readonly events: EventEmitter;
  snapshot(): WorkerSnapshot;
  /** Resolves with the first snapshot matching `predicate`; rejects after `timeoutMs`. */
  waitFor(predicate: (s: WorkerSnapshot) => boolean, timeoutMs?: number): Promise<WorkerSnapshot>;
  /** Offers a config at a generation; applied only when `gen` is newer than the current one. */
  pushConfig(config: JsonObject, gen: number): boolean;
  /** Reads config + gen from the backend and applies them when newer. */
  refreshConfig(): Promise<boolean>;
  /** Writes state, last_seen and a stats frame now. */
  heartbeat(): Promise<void>;
  /** Graceful: takes no more work, finishes in-flight tasks (nacks what outlasts the grace), reports IDLE. */
  stop(opts?: { graceMs?: number }): Promise<void>;
  /** A crash: abandons in-flight reservations (the sweep recovers them) and stops heartbeating, writing nothing. */
  kill(): Promise<void>;
  /**
   * Aborts busy slots mid-task as a crash would, abandoning their reservations; fresh slots
   * replace them. `which`: how many, or which task ids. Returns the abandoned task ids.
   */
  killBusySlots(which?: number | ((taskId: string) => boolean)): string[];
}

const SLOT_KILLED = "slot killed";
const WORKER_KILLED = "worker killed";
const STOPPING = "worker stopping";
const RETIRED = "slot retired";
const LEASE_LOST = "lease lost";

interface Slot {
  index: number;
  controller: AbortController;
  retiring: boolean;
  /** The task being run, with its own controller (timeouts, stop grace). */
  busy: { id: string; controller: AbortController; startedAt: number } | null;
  crashes: number;
  done: Promise<void>;
}

class TaskAbort extends Error {
  constructor(readonly kind: "timeout" | "stop" | "kill" | "lease") {
    super(kind === "timeout" ? "task timed out" : kind === "stop" ? STOPPING : kind === "lease" ? LEASE_LOST : SLOT_KILLED);
    this.name = kind === "timeout" ? "TimeoutError" : "AbortError";
  }
}

/**
 * Keeps a running task's reservation: every third of the visibility window it pushes the
 * deadline out, so a healthy long task is never swept and run twice. When the reservation
 * is gone (swept while this process stalled, then perhaps reserved by another holder) it
 * calls `onLost` once and stops. `stop()` waits for an extension in flight, so `lease`
 * is the current one when the holder acks.
 */
class LeaseKeeper {
  lease: string;
  lost = false;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly extend: (lease: string) => Promise<string | null>,
    lease: string,
    private readonly everyMs: number,
    private readonly onLost: () => void,
    private readonly onError: (err: unknown) => void,
  ) {
    this.lease = lease;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.inFlight = this.tick().finally(() => {
        this.inFlight = null;
        this.schedule();
      });
    }, this.everyMs);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const next = await this.extend(this.lease);
      if (next === null) {
        this.lost = true;
        this.stopped = true;
        this.onLost();
      } else {
        this.lease = next;
      }
    } catch (err) {
      // Redis unreachable for a moment: try again next tick; the deadline still has two thirds left
      this.onError(err);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.inFlight !== null) await this.inFlight;
  }
}

/** Rejects as soon as `signal` aborts, whether or not `p` honours it. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/**
 * The backend as a task sees it: once the task's signal aborts (killed, timed out, nacked
 * by a stop) every call fails, so code that ignores the signal cannot act on a task the
 * runtime has already given up, as a killed process could not.
 */
function fencedBackend(backend: Backend, signal: AbortSignal): Backend {
  return new Proxy(backend, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        if (signal.aborted) return Promise.reject(abortReason(signal));
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

class Worker implements WorkerHandle {
  readonly automationType: string;
  readonly workerId: string;
  readonly events = new EventEmitter();
  private readonly backend: Backend;
  private readonly automation: Automation;
  private readonly queue: string;
  private readonly clock: Clock;
  private readonly heartbeatMs: number;
  private readonly configPollMs: number;
  private readonly reserveTimeoutSeconds: number;
  private readonly idlePoll: { min: number; max: number };
  private readonly errorAfterCrashes: number;
  private readonly crashBackoff: { base: number; max: number };
  private readonly stopGraceMs: number;
  private readonly statsHistoryMax: number;
  private readonly random: () => number;
  private readonly log: (line: string) => void;
  private readonly cpu = cpuMeter();
  private readonly startedAt: number;
  private readonly counters: WorkerCounters = {
    tasksDone: 0,
    tasksFailed: 0,
    tasksRetried: 0,
    tasksDead: 0,
    tasksRequeued: 0,
    leasesLost: 0,
    crashes: 0,
    configsApplied: 0,
    configsIgnored: 0,
    configsRejected: 0,
    heartbeats: 0,
  };

  private config: RuntimeConfig & JsonObject;
  private gen = -1;
  private configError: string | null = null;
  private crashError: string | null = null;
  private phase: WorkerSnapshot["phase"] = "running";
  private readonly slots = new Map<number, Slot>();
  private lastBusyAt = 0;
  private latencies: number[] = [];
  private lastWrittenState: { state: WorkerState; lastError: string | null } | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private heartbeatInFlight: Promise<void> | null = null;
  private activeRefresh: Promise<boolean> | null = null;
  private queuedRefresh: Promise<boolean> | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly options: WorkerOptions;

  constructor(opts: WorkerOptions) {
    this.options = opts;
    this.backend = opts.backend;
    this.automation = opts.automation;
    this.automationType = opts.automation.type;
    this.workerId = opts.workerId;
    this.queue = queueOf(opts.automation);
    this.clock = opts.clock ?? systemClock;
    this.heartbeatMs = opts.heartbeatMs ?? 3000;
    this.configPollMs = opts.configPollMs ?? 15_000;
    this.reserveTimeoutSeconds = opts.reserveTimeoutSeconds ?? 0;
    this.idlePoll = opts.idlePollMs ?? { min: 100, max: 1000 };
    this.errorAfterCrashes = opts.errorAfterCrashes ?? 3;
    this.crashBackoff = opts.crashBackoffMs ?? { base: 250, max: 5000 };
    this.stopGraceMs = opts.stopGraceMs ?? 10_000;
    this.statsHistoryMax = opts.statsHistoryMax ?? 240;
    this.random = opts.random ?? Math.random;
    const log = opts.log;
    this.log = log ? (line) => log(`[${opts.automation.type}/${opts.workerId}] ${line}`) : () => {};
    this.startedAt = this.clock.now();
    this.config = this.automation.config.parse({}) as RuntimeConfig & JsonObject;
    if (!opts.workerId || opts.workerId.includes("|")) throw new TypeError(`worker id ${JSON.stringify(opts.workerId)} must be non-empty and without '|'`);
  }

  // ---------------------------------------------------------------- lifecycle

  async start(): Promise<void> {
    const hardware = detectHardware(this.startedAt, {
      ...(this.options.hostname ? { hostname: this.options.hostname } : {}),
      ...this.options.hardware,
    });
    await this.backend.workerRegister(this.automationType, this.workerId, hardware);
    // listen before the first read so a config written in between is not missed
    this.unlisten = await sharedBus(this.backend).listen(CONFIG_TOPIC, (m) => this.onConfigEvent(m));
    await this.refreshConfig();
    await this.heartbeat();
    this.heartbeatTimer = setInterval(() => void this.heartbeat().catch((e: unknown) => this.log(`heartbeat failed: ${errorText(e)}`)), this.heartbeatMs);
    this.pollTimer = setInterval(() => void this.refreshConfig().catch((e: unknown) => this.log(`config poll failed: ${errorText(e)}`)), this.configPollMs);
    this.heartbeatTimer.unref?.();
    this.pollTimer.unref?.();
  }

  private clearTimers(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.heartbeatTimer = this.pollTimer = null;
  }

  private async detach(): Promise<void> {
    const un = this.unlisten;
    this.unlisten = null;
    if (un) await un().catch(() => {});
  }

  async stop(opts?: { graceMs?: number }): Promise<void> {
    if (this.phase !== "running") return;
    this.phase = "stopping";
    this.clearTimers();
    await this.detach();
    const graceMs = opts?.graceMs ?? this.stopGraceMs;
    for (const slot of this.slots.values()) this.retire(slot);
    this.changed();
    const all = Promise.all([...this.slots.values()].map((s) => s.done));
    const timer = setTimeout(() => {
      for (const slot of this.slots.values()) {
        slot.busy?.controller.abort(new TaskAbort("stop"));
        slot.controller.abort(new Error(STOPPING));
      }
    }, graceMs);
    try {
      await all;
    } finally {
      clearTimeout(timer);
    }
    if (this.heartbeatInFlight !== null) await this.heartbeatInFlight.catch(() => {});
    this.phase = "stopped";
    await this.writeHeartbeat();
    this.changed();
  }

  async kill(): Promise<void> {
    if (this.phase === "killed" || this.phase === "stopped") return;
    this.phase = "killed";
    this.clearTimers();
    for (const slot of this.slots.values()) {
      slot.busy?.controller.abort(new TaskAbort("kill"));
      slot.controller.abort(new Error(WORKER_KILLED));
    }
    await this.detach();
    await Promise.all([...this.slots.values()].map((s) => s.done));
    this.changed();
  }

  killBusySlots(which?: number | ((taskId: string) => boolean)): string[] {
    const n = typeof which === "number" ? which : Number.POSITIVE_INFINITY;
    const pick = typeof which === "function" ? which : () => true;
    const ids: string[] = [];
    for (const slot of this.slots.values()) {
      if (ids.length >= n) break;
      if (!slot.busy || slot.controller.signal.aborted || !pick(slot.busy.id)) continue;
      ids.push(slot.busy.id);
      slot.busy.controller.abort(new TaskAbort("kill"));
      slot.controller.abort(new Error(SLOT_KILLED));
    }
    return ids;
  }

  // ---------------------------------------------------------------- observation

  snapshot(): WorkerSnapshot {
    const live = [...this.slots.values()].filter((s) => !s.retiring);
    const busy = [...this.slots.values()].filter((s) => s.busy);
    return {
      ...this.counters,
      automationType: this.automationType,
      workerId: this.workerId,
      state: this.computeState(),
      lastError: this.lastError(),
      configGen: this.gen,
      config: this.config,
      slotsTarget: this.slotTarget(),
      slotsRunning: live.length,
      slotsBusy: busy.length,
      inFlight: busy.map((s) => s.busy!.id),
      phase: this.phase,
    };
  }

  waitFor(predicate: (s: WorkerSnapshot) => boolean, timeoutMs = 10_000): Promise<WorkerSnapshot> {
    const now = this.snapshot();
    if (predicate(now)) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const check = () => {
        const s = this.snapshot();
        if (predicate(s)) {
          cleanup();
          resolve(s);
        }
      };
      // counters also move without a "change" event, so poll as well
      const poll = setInterval(check, 20);
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`waitFor timed out after ${timeoutMs} ms; last snapshot ${JSON.stringify(this.snapshot())}`));
      }, timeoutMs);
      const cleanup = () => {
        clearInterval(poll);
        clearTimeout(timer);
        this.events.off("change", check);
      };
      this.events.on("change", check);
    });
  }

  private changed(): void {
    this.events.emit("change", this.snapshot());
    // a state or last_error change is written at once rather than at the next heartbeat
    if (this.phase === "running" && this.lastWrittenState) {
      const state = this.computeState();
      const lastError = this.lastError();
      if (state !== this.lastWrittenState.state || lastError !== this.lastWrittenState.lastError) {
        void this.writeState().catch((e: unknown) => this.log(`state write failed: ${errorText(e)}`));
      }
    }
  }

  private lastError(): string | null {
    return this.crashError ?? this.configError;
  }

  private computeState(): WorkerState {
    if (this.phase === "stopped" || this.phase === "stopping") return "IDLE";
    if ([...this.slots.values()].some((s) => s.crashes >= this.errorAfterCrashes)) return "ERROR";
    if (this.slotTarget() === 0) return "IDLE";
    if (this.automation.kind === "continuous") return "RUNNING";
    const busy = [...this.slots.values()].some((s) => s.busy);
    // a batch worker is RUNNING while it has had work recently, so it does not blink IDLE between tasks
    return busy || Date.now() - this.lastBusyAt < this.heartbeatMs * 2 ? "RUNNING" : "IDLE";
  }

  // ---------------------------------------------------------------- heartbeat + stats

  heartbeat(): Promise<void> {
    if (this.phase === "killed") return Promise.resolve();
    // never two at once: a slow Redis must not pile up heartbeats
    if (this.heartbeatInFlight !== null) return this.heartbeatInFlight;
    this.heartbeatInFlight = this.writeHeartbeat().finally(() => {
      this.heartbeatInFlight = null;
    });
    return this.heartbeatInFlight;
  }

  private async writeState(): Promise<void> {
    const state = this.computeState();
    const lastError = this.lastError();
    this.lastWrittenState = { state, lastError };
    await this.backend.workerSetState(this.automationType, this.workerId, state, lastError, this.clock.now());
  }

  private statsFrame(now: number): JsonObject {
    const s = this.snapshot();
    const lat = this.latencies;
    this.latencies = [];
    const sorted = [...lat].sort((a, b) => a - b);
    const mean = lat.length ? lat.reduce((a, b) => a + b, 0) / lat.length : null;
    const p95 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]! : null;
    const frame: JsonObject = {
      ts: pyFloat(now),
      state: s.state,
      slots_running: s.slotsRunning,
      slots_busy: s.slotsBusy,
      slots_target: s.slotsTarget,
      tasks_done: s.tasksDone,
      tasks_failed: s.tasksFailed,
      tasks_retried: s.tasksRetried,
      tasks_dead: s.tasksDead,
      crashes: s.crashes,
      latency_ms: mean === null ? null : Math.round(mean * 10) / 10,
      latency_p95_ms: p95 === null ? null : Math.round(p95 * 10) / 10,
      memory_mb: Math.round((process.memoryUsage().rss / 1048576) * 10) / 10,
      cpu_pct: this.cpu(),
      config_gen: s.configGen,
      uptime_s: Math.round(now - this.startedAt),
    };
    return this.options.stats ? this.options.stats(frame) : frame;
  }

  private async writeHeartbeat(): Promise<void> {
    const now = this.clock.now();
    await this.writeState();
    const frame = this.statsFrame(now);
    await this.backend.workerSetStats(this.automationType, this.workerId, frame);
    await this.backend.workerStatsPush(this.automationType, this.workerId, now, frame, { maxEntries: this.statsHistoryMax });
    this.counters.heartbeats++;
  }

  // ---------------------------------------------------------------- config generations

  pushConfig(config: JsonObject, gen: number): boolean {
    if (!Number.isSafeInteger(gen) || gen <= this.gen) {
      this.counters.configsIgnored++;
      this.events.emit("config", { gen, applied: false, reason: "stale" });
      this.changed();
      return false;
    }
    const parsed = this.automation.config.safeParse(config);
    this.gen = gen;
    if (!parsed.success) {
      // keep running on the last good config; the generation is spent so it is not retried
      this.counters.configsRejected++;
      this.configError = `config gen ${gen} rejected: ${parsed.error.message.slice(0, 500)}`;
      this.events.emit("config", { gen, applied: false, reason: "invalid" });
      this.changed();
      return false;
    }
    this.configError = null;
    this.config = parsed.data as RuntimeConfig & JsonObject;
    this.counters.configsApplied++;
    this.events.emit("config", { gen, applied: true, reason: "newer" });
    this.reconcile();
    this.changed();
    return true;
  }

  refreshConfig(): Promise<boolean> {
    // a read already queued behind the running one will see any write made before this call
    if (this.queuedRefresh !== null) return this.queuedRefresh;
    if (!this.activeRefresh) {
      this.activeRefresh = this.readAndApplyConfig().finally(() => {
        this.activeRefresh = null;
      });
      return this.activeRefresh;
    }
    // the running read may have been answered before the write that prompted this call
    this.queuedRefresh = this.activeRefresh
      .catch(() => false)
      .then(() => {
        this.queuedRefresh = null;
        return this.refreshConfig();
      });
    return this.queuedRefresh;
  }

  private async readAndApplyConfig(): Promise<boolean> {
    const { config, gen } = await this.backend.workerGetConfig(this.automationType, this.workerId);
    if (this.phase === "killed") return false;
    if (gen > this.gen) return this.pushConfig(config, gen);
    if (gen < this.gen) {
      // the stored generation went backwards (Redis lost data, a stale master): ignore it
      this.counters.configsIgnored++;
      this.events.emit("config", { gen, applied: false, reason: "stale" });
    }
    return false;
  }

  private onConfigEvent(msg: BusMessage): void {
    if (this.phase !== "running") return;
    const parsed = parseJsonBytes(msg.payload);
    if (!parsed.ok || !isJsonObject(parsed.value)) return;
    const { automation_type, worker_id, config_gen } = parsed.value;
    if (automation_type !== undefined && automation_type !== this.automationType) return;
    if (worker_id !== undefined && worker_id !== null && worker_id !== this.workerId) return;
    if (typeof config_gen === "number" && config_gen <= this.gen) {
      this.counters.configsIgnored++;
      this.events.emit("config", { gen: config_gen, applied: false, reason: "stale" });
      return;
    }
    void this.refreshConfig().catch((e: unknown) => this.log(`config refresh failed: ${errorText(e)}`));
  }

  // ---------------------------------------------------------------- slots

  private slotTarget(): number {
    if (this.phase !== "running") return 0;
    const n = Number(this.config.slots);
    return Number.isFinite(n) ? Math.max(0, Math.floor(n)) : 1;
  }

  private retire(slot: Slot): void {
    if (slot.retiring) return;
    slot.retiring = true;
    // a continuous run has no natural end, so it is interrupted; a batch task is let finish
    if (this.automation.kind === "continuous") slot.controller.abort(new Error(RETIRED));
  }

  private reconcile(): void {
    if (this.phase !== "running") return;
    const target = this.slotTarget();
    const live = [...this.slots.values()].filter((s) => !s.retiring).sort((a, b) => a.index - b.index);
    for (const slot of live.slice(target).reverse()) this.retire(slot);
    for (let n = live.length; n < target; n++) {
      let index = 0;
      while (this.slots.has(index)) index++;
      this.spawn(index);
    }
  }

  private spawn(index: number): void {
    const slot: Slot = { index, controller: new AbortController(), retiring: false, busy: null, crashes: 0, done: Promise.resolve() };
    this.slots.set(index, slot);
    const loop = this.automation.kind === "batch" ? this.batchLoop(slot) : this.continuousLoop(slot);
    slot.done = loop
      .catch((e: unknown) => this.log(`slot ${index} ended abnormally: ${errorText(e)}`))
      .finally(() => {
        this.slots.delete(index);
        this.changed();
        // a killed slot is replaced, as a supervisor restarts a crashed process
        if (this.phase === "running") this.reconcile();
      });
    this.changed();
  }

  private slotActive(slot: Slot): boolean {
    return this.phase === "running" && !slot.retiring && !slot.controller.signal.aborted;
  }

  private contextDeps(backend: Backend): ContextDeps {
    const output = this.automation.output;
    return {
      backend,
      automationType: this.automationType,
      workerId: this.workerId,
      clock: this.clock,
      checkOutput: output ? (d) => output.parse(d) : undefined,
      log: this.log,
    };
  }

  private async crash(slot: Slot, err: unknown): Promise<void> {
    slot.crashes++;
    this.counters.crashes++;
    this.crashError = `slot ${slot.index}: ${errorText(err)}`;
    this.log(`crash ${this.crashError}`);
    this.events.emit("crash", err);
    this.changed();
    const delay = Math.min(this.crashBackoff.max, this.crashBackoff.base * 2 ** Math.min(16, slot.crashes - 1));
    await sleep(delay, slot.controller.signal).catch(() => {});
  }

  private healthy(slot: Slot): void {
    if (slot.crashes === 0) return;
    slot.crashes = 0;
    if (![...this.slots.values()].some((s) => s.crashes > 0)) this.crashError = null;
    this.changed();
  }

  private async continuousLoop(slot: Slot): Promise<void> {
    const automation = this.automation;
    if (automation.kind !== "continuous") throw new Error("unreachable: continuous loop on a batch automation");
    while (this.slotActive(slot)) {
      const signal = slot.controller.signal;
      const ctx = createContext(this.contextDeps(fencedBackend(this.backend, signal)), slot.index, this.config, signal);
      try {
        const out = await raceAbort(automation.run(ctx as never) as Promise<unknown>, signal);
        if (!this.slotActive(slot)) return;
        if (out !== undefined) await emitToStream(this.contextDeps(this.backend), out);
        this.counters.tasksDone++;
        this.lastBusyAt = Date.now();
        this.healthy(slot);
      } catch (err) {
        if (signal.aborted) return;
        await this.crash(slot, err);
      }
      // yield so a run() that never awaits cannot starve heartbeats
      await new Promise((r) => setImmediate(r));
    }
  }

  private async batchLoop(slot: Slot): Promise<void> {
    let idleMs = 0;
    while (this.slotActive(slot)) {
      // idle: wait for a push (the backend wakes every waiter at once), at most idleMs, which
      // grows to idlePoll.max so an idle slot still calls the reserve about once a second
      // (due retries in :scheduled wake nobody: they are drained by that reserve)
      if (idleMs > 0) await raceAbort(this.backend.queueWait(this.queue, idleMs / 1000), slot.controller.signal).catch(() => {});
      if (!this.slotActive(slot)) return;
      let body: Buffer | null;
      let lease: string | null = null;
      try {
        const reserved = await this.backend.queueReserveLease(this.queue, this.reserveTimeoutSeconds, this.config.visibility_seconds);
        body = reserved?.body ?? null;
        lease = reserved?.lease ?? null;
      } catch (err) {
        if (slot.controller.signal.aborted) return;
        await this.crash(slot, err);
        continue;
      }
      // a killed slot abandons what it reserved: the reservation expires and the sweep re-queues it
      if (slot.controller.signal.aborted && this.phase !== "stopping") return;
      if (body !== null && slot.controller.signal.aborted) {
        // the stop grace ran out while this reserve was waiting: give the task straight back
        const id = parseTaskBody(body)?.id;
        if (id) {
          await this.backend.queueNack(this.queue, id, body, { delaySeconds: 0, lease });
          this.counters.tasksRequeued++;
        }
        return;
      }
      if (body === null) {
        this.healthy(slot);
        idleMs = Math.min(this.idlePoll.max, Math.max(this.idlePoll.min, idleMs * 2));
        continue;
      }
      idleMs = 0;
      try {
        await this.handleTask(slot, body, lease);
        this.healthy(slot);
      } catch (err) {
        if (slot.controller.signal.aborted && this.phase !== "stopping") return;
        await this.crash(slot, err);
      }
    }
  }

  private async handleTask(slot: Slot, body: Buffer, lease: string | null): Promise<void> {
    const parsed = parseTaskBody(body);
    if (!parsed) {
      // no usable id: the reserve left it unregistered, so nack/ack cannot address it; keep it visible in the DLQ
      await this.backend.queueDead(this.queue, body);
      this.counters.tasksFailed++;
      this.counters.tasksDead++;
      this.events.emit("task", { id: null, outcome: "dead" });
      return;
    }
    const { id, doc } = parsed;
    const config = this.config;
    const attempts = parsed.attempts + 1;
    let keeper: LeaseKeeper | null = null;
    /** The lease to act with: the keeper's latest once it is stopped, else the reserve's. */
    const currentLease = async (): Promise<string | null> => {
      if (!keeper) return lease;
      await keeper.stop();
      return keeper.lease;
    };
    const leaseLost = (): void => {
      this.counters.leasesLost++;
      this.events.emit("task", { id, outcome: "lease-lost" });
      this.changed();
    };
    const fail = async (error: string, final: boolean): Promise<void> => {
      const newBody = withFailure(doc, attempts, error);
      const held = await currentLease();
      this.counters.tasksFailed++;
      if (final || attempts >= config.max_attempts) {
        if (!(await this.backend.queueFail(this.queue, id, newBody, { lease: held })) && held) return leaseLost();
        this.counters.tasksDead++;
        this.events.emit("task", { id, outcome: "dead", error });
      } else {
        const delayMs = Math.min(config.retry_max_ms, retryDelayMs(attempts, config.retry_base_ms, config.retry_max_ms, this.random));
        if (!(await this.backend.queueNack(this.queue, id, newBody, { delaySeconds: delayMs / 1000, lease: held }))) return leaseLost();
        this.counters.tasksRetried++;
        this.events.emit("task", { id, outcome: "retry", error, delayMs });
      }
      this.changed();
    };

    const automation = this.automation;
    if (automation.kind !== "batch") throw new Error("unreachable: batch loop on a continuous automation");
    let payload: unknown = parsed.payload;
    if (automation.taskPayload) {
      const check = (automation.taskPayload as { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { message: string } } }).safeParse(payload);
      if (!check.success) {
        // a payload that does not match will never match: no point retrying it
        await fail(`invalid payload: ${check.error?.message.slice(0, 500) ?? "does not match task_payload"}`, true);
        return;
      }
      payload = check.data;
    }

    const controller = new AbortController();
    const onSlotAbort = () => controller.abort(slot.controller.signal.reason);
    slot.controller.signal.addEventListener("abort", onSlotAbort, { once: true });
    const timeoutMs = typeof config.timeout_ms === "number" && config.timeout_ms > 0 ? config.timeout_ms : 0;
    const timer = timeoutMs ? setTimeout(() => controller.abort(new TaskAbort("timeout")), timeoutMs) : null;
    const startedAt = performance.now();
    if (lease) {
      const visibility = config.visibility_seconds;
      keeper = new LeaseKeeper(
        (l) => this.backend.queueExtend(this.queue, id, l, visibility),
        lease,
        Math.max(100, (visibility * 1000) / 3),
        () => controller.abort(new TaskAbort("lease")),
        (err) => this.log(`${this.automationType}/${this.workerId}: could not extend the lease of task ${id}: ${errorText(err)}`),
      );
    }
    slot.busy = { id, controller, startedAt };
    this.lastBusyAt = Date.now();
    this.changed();
    try {
      const task: Task<unknown> = { id, payload, attempts: parsed.attempts, lastError: parsed.lastError, body: doc, raw: body };
      const ctx = createContext(this.contextDeps(fencedBackend(this.backend, controller.signal)), slot.index, config, controller.signal);
      let out: unknown;
      try {
        out = await raceAbort(automation.run(ctx as never, task as never) as Promise<unknown>, controller.signal);
        if (out !== undefined) await emitToStream(this.contextDeps(this.backend), out);
      } catch (err) {
        const reason: unknown = controller.signal.aborted ? controller.signal.reason : null;
        if (reason instanceof TaskAbort && reason.kind === "kill") return;
        if (controller.signal.aborted && this.phase === "killed") return;
        // the reservation is somebody else's now: leave the task to them
        if (reason instanceof TaskAbort && reason.kind === "lease") return leaseLost();
        if (reason instanceof TaskAbort && reason.kind === "stop") {
          // a graceful stop gives the task back untouched: it did not fail
          if (!(await this.backend.queueNack(this.queue, id, body, { delaySeconds: 0, lease: await currentLease() }))) return leaseLost();
          this.counters.tasksRequeued++;
          this.events.emit("task", { id, outcome: "requeued" });
          return;
        }
        await fail(errorText(reason instanceof TaskAbort ? reason : err), false);
        return;
      }
      const held = await currentLease();
      const acked = await this.backend.queueAck(this.queue, id, { lease: held });
      if (!acked && held) this.counters.leasesLost++;
      this.counters.tasksDone++;
      this.latencies.push(performance.now() - startedAt);
      this.events.emit("task", { id, outcome: "done", acked });
    } finally {
      if (keeper) await keeper.stop();
      if (timer) clearTimeout(timer);
      slot.controller.signal.removeEventListener("abort", onSlotAbort);
      slot.busy = null;
      this.lastBusyAt = Date.now();
      this.changed();
    }
  }
}

/** Registers the worker, applies its stored config, writes a first heartbeat and starts its slots. */
export async function startWorker(opts: WorkerOptions): Promise<WorkerHandle> {
  const worker = new Worker(opts);
  try {
    await worker.start();
  } catch (err) {
    await worker.kill();
    throw err;
  }
  return worker;
}
