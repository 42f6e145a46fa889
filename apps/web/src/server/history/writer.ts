// The queue history writer: run by the watch leader every 10 s (src/server/watch/service.ts).
// One tick is one pipelined read of every known queue (depths and pending-list probes,
// Backend.queueWatch) and one atomic write (Backend.historyWrite): per queue a 10 s record
// and the running 5 min record, the same for the whole fleet, and the latest figures that
// /metrics and other replicas read. In-memory state (marks, the 5 min aggregates, recent
// points, counters) is the leader's; a new leader seeds what it can from Redis on its first
// tick of a term (the current 5 min records, the last 5 min of points, the counters).
//
// Framework-free: tests and the hand-over test's child processes use it as is.
import { pyJsonBytes, type Backend, type HistoryRangeRead, type HistorySlotWrite, type Priority, type QueueDepths, type QueueWatch } from "@fleet/backend";

import {
  Aggregate,
  decodeRecord,
  drainSeconds,
  encodeRecord,
  FLAG_FINISHED_AT_LEAST,
  joinRanges,
  RECORD_BYTES,
  recordsAt,
  RING_TTL_SECONDS,
  ringRanges,
  slotOffset,
  slotTime,
  TIERS,
  type HistoryRecord,
} from "./format";
import { PendingListTracker } from "./sightings";

const PRIORITIES: readonly Priority[] = ["high", "normal", "low"];
/** The window the current rate and the drain trend are taken over. */
export const RATE_WINDOW_SECONDS = 300;
export const DEFAULT_MAX_SCAN = 100_000;
export const DEFAULT_MAX_TAIL_BYTES = 4096;

/** What one tick found for one queue: the record written, and figures derived from the recent ones. */
export interface QueueFigures {
  name: string;
  depths: QueueDepths;
  record: HistoryRecord;
  /** Reservations ended per minute over the last 5 minutes (null until a minute of points). */
  finishedPerMinute: number | null;
  /** Counted since the counter began (monotonic while the ring's latest hash lives). */
  finishedTotal: number;
  /** Seconds the oldest pending task has waited, at least; null when not known. */
  oldestPendingAge: number | null;
  /** Seconds to an empty queue at the trend of the last 5 minutes: Infinity when not falling, null when not known yet. */
  drainSeconds: number | null;
  /** True when `finished` figures are lower bounds. */
  atLeast: boolean;
}

export interface WatchTick {
  /** Slot time (unix seconds, a multiple of 10). */
  ts: number;
  queues: QueueFigures[];
}

interface QueueState {
  lists: Record<Priority, PendingListTracker>;
  prevProcessing: number | null;
  prevPending: number | null;
  finishedTotal: number;
  coarse: Aggregate | null;
  /** The last RATE_WINDOW_SECONDS of 10 s records. */
  recent: HistoryRecord[];
  seeded: boolean;
}

export interface HistoryWriterOptions {
  maxScan?: number;
  maxTailBytes?: number;
  log?: (message: string) => void;
}

/** The latest figures of one queue, as stored in fleet:console:history:latest (JSON). */
export interface LatestFigures {
  ts: number;
  finished_total: number;
  finished_per_minute: number | null;
  oldest_pending_age_seconds: number | null;
  drain_seconds: number | null;
  at_least: boolean;
}

export function parseLatest(buf: Buffer): LatestFigures | null {
  try {
    const v = JSON.parse(buf.toString("utf8")) as Partial<LatestFigures>;
    if (typeof v.ts !== "number" || typeof v.finished_total !== "number") return null;
    return {
      ts: v.ts,
      finished_total: v.finished_total,
      finished_per_minute: typeof v.finished_per_minute === "number" ? v.finished_per_minute : null,
      oldest_pending_age_seconds: typeof v.oldest_pending_age_seconds === "number" ? v.oldest_pending_age_seconds : null,
      drain_seconds: typeof v.drain_seconds === "number" ? v.drain_seconds : null,
      at_least: v.at_least === true,
    };
  } catch {
    return null;
  }
}

export class HistoryWriter {
  private readonly queues = new Map<string, QueueState>();
  private fleetCoarse: Aggregate | null = null;
  private readonly maxScan: number;
  private readonly maxTailBytes: number;
  private readonly log: (m: string) => void;
  private latestSeeded: Map<string, LatestFigures> | null = null;
  private lastSlot = 0;

  constructor(opts: HistoryWriterOptions = {}) {
    this.maxScan = opts.maxScan ?? DEFAULT_MAX_SCAN;
    this.maxTailBytes = opts.maxTailBytes ?? DEFAULT_MAX_TAIL_BYTES;
    this.log = opts.log ?? (() => {});
  }

  /** Forgets everything in memory (the lead was lost: a later term starts over and seeds again). */
  reset(): void {
    this.queues.clear();
    this.fleetCoarse = null;
    this.latestSeeded = null;
    this.lastSlot = 0;
  }

  private stateOf(name: string): QueueState {
    let s = this.queues.get(name);
    if (!s) {
      s = {
        lists: { high: new PendingListTracker(this.maxScan), normal: new PendingListTracker(this.maxScan), low: new PendingListTracker(this.maxScan) },
        prevProcessing: null,
        prevPending: null,
        finishedTotal: 0,
        coarse: null,
        recent: [],
        seeded: false,
      };
      this.queues.set(name, s);
    }
    return s;
  }

  /**
   * One tick: read every queue of `names` (one round trip), write their records (one MULTI).
   * A second tick in the same 10 s slot replaces the slot's record (its `finished` adds up).
   */
  async tick(backend: Backend, names: string[], now: number): Promise<WatchTick> {
    const ts = slotTime("10s", now);
    this.latestSeeded ??= await this.readLatest(backend);
    const unseeded = names.filter((n) => !this.stateOf(n).seeded);
    if (unseeded.length > 0) await this.seed(backend, unseeded, now);

    const watch = await backend.queueWatch(
      names.map((name) => {
        const s = this.stateOf(name);
        return { name, marks: { high: s.lists.high.probe(), normal: s.lists.normal.probe(), low: s.lists.low.probe() } };
      }),
      { now, maxScan: this.maxScan, maxTailBytes: this.maxTailBytes },
    );

    const figures = watch.map((w) => this.figuresOf(w, ts, now));
    // Queues no longer listed are forgotten (their rings expire on their own).
    const listed = new Set(names);
    for (const name of [...this.queues.keys()]) if (!listed.has(name)) this.queues.delete(name);

    const fleet = this.fleetRecord(ts, figures);
    const slots: HistorySlotWrite[] = [];
    for (const f of figures) {
      const s = this.queues.get(f.name)!;
      slots.push({ series: f.name, tier: "10s", offset: slotOffset("10s", ts), bytes: encodeRecord(f.record) });
      slots.push({ series: f.name, tier: "5m", offset: slotOffset("5m", ts), bytes: encodeRecord(s.coarse!.record()) });
    }
    slots.push({ series: null, tier: "10s", offset: slotOffset("10s", ts), bytes: encodeRecord(fleet) });
    this.fleetCoarse = rollCoarse(this.fleetCoarse, ts, fleet, this.lastSlot === ts);
    slots.push({ series: null, tier: "5m", offset: slotOffset("5m", ts), bytes: encodeRecord(this.fleetCoarse.record()) });
    this.lastSlot = ts;

    const latest = new Map<string, Buffer>();
    for (const f of figures) {
      const l: LatestFigures = {
        ts,
        finished_total: f.finishedTotal,
        finished_per_minute: f.finishedPerMinute,
        oldest_pending_age_seconds: f.oldestPendingAge,
        drain_seconds: f.drainSeconds === null || !Number.isFinite(f.drainSeconds) ? null : Math.round(f.drainSeconds),
        at_least: f.atLeast,
      };
      latest.set(f.name, pyJsonBytes(l));
    }
    await backend.historyWrite(slots, { ttlSeconds: RING_TTL_SECONDS, latest });
    return { ts, queues: figures };
  }

  private figuresOf(w: QueueWatch, ts: number, now: number): QueueFigures {
    const s = this.stateOf(w.depths.name);
    let left = 0;
    let atLeast = false;
    let oldest: number | null = null;
    for (const p of PRIORITIES) {
      const u = s.lists[p].update(w.lists[p], now);
      left += u.left;
      atLeast ||= u.leftAtLeast;
      if (u.oldest !== null) oldest = Math.max(oldest ?? 0, u.oldest);
    }
    const d = w.depths;
    // Tasks flowing through lists empty at both looks (workers take each at once) are not
    // seen at all: while anything is in flight there, what is counted is only a lower bound.
    const unseen = PRIORITIES.every((p) => w.lists[p].length === 0) && s.prevPending === 0 && (d.processing > 0 || (s.prevProcessing ?? 0) > 0);
    atLeast ||= unseen;
    s.prevPending = d.pending.total;
    // Reservations that ended = those made (left a pending list) minus the growth of those in flight.
    const finished = s.prevProcessing === null ? 0 : Math.max(0, left - (d.processing - s.prevProcessing));
    s.prevProcessing = d.processing;
    const sameSlot = s.recent.length > 0 && s.recent[s.recent.length - 1]!.ts === ts;
    const prevInSlot = sameSlot ? s.recent[s.recent.length - 1]!.finished : 0;
    const record: HistoryRecord = {
      ts,
      high: d.pending.high,
      normal: d.pending.normal,
      low: d.pending.low,
      processing: d.processing,
      overdue: d.overdue,
      scheduled: d.scheduled,
      dead: d.dead,
      finished: finished + prevInSlot,
      oldest,
      samples: 1,
      flags: atLeast ? FLAG_FINISHED_AT_LEAST : 0,
    };
    s.finishedTotal += finished;
    if (sameSlot) s.recent[s.recent.length - 1] = record;
    else s.recent.push(record);
    while (s.recent.length > 0 && s.recent[0]!.ts <= ts - RATE_WINDOW_SECONDS) s.recent.shift();
    s.coarse = rollCoarse(s.coarse, ts, record, sameSlot);

    const span = s.recent.length > 1 ? ts - s.recent[0]!.ts + TIERS["10s"].step : 0;
    const finishedPerMinute = span >= 60 ? (s.recent.reduce((sum, r) => sum + r.finished, 0) * 60) / span : null;
    const drain = drainSeconds(
      s.recent.map((r) => ({ ts: r.ts, pending: r.high + r.normal + r.low })),
      d.pending.total,
    );
    return {
      name: d.name,
      depths: d,
      record,
      finishedPerMinute,
      finishedTotal: s.finishedTotal,
      oldestPendingAge: oldest,
      drainSeconds: drain,
      atLeast: s.recent.some((r) => (r.flags & FLAG_FINISHED_AT_LEAST) !== 0),
    };
  }

  private fleetRecord(ts: number, figures: QueueFigures[]): HistoryRecord {
    const r: HistoryRecord = { ts, high: 0, normal: 0, low: 0, processing: 0, overdue: 0, scheduled: 0, dead: 0, finished: 0, oldest: null, samples: 1, flags: 0 };
    for (const f of figures) {
      const q = f.record;
      r.high += q.high;
      r.normal += q.normal;
      r.low += q.low;
      r.processing += q.processing;
      r.overdue += q.overdue;
      r.scheduled += q.scheduled;
      r.dead += q.dead;
      r.finished += q.finished;
      if (q.oldest !== null) r.oldest = Math.max(r.oldest ?? 0, q.oldest);
      r.flags |= q.flags;
    }
    return r;
  }

  private async readLatest(backend: Backend): Promise<Map<string, LatestFigures>> {
    const out = new Map<string, LatestFigures>();
    for (const [name, buf] of await backend.historyLatest()) {
      const l = parseLatest(buf);
      if (l) out.set(name, l);
    }
    return out;
  }

  /**
   * A queue first seen in this term: its counter from the latest hash, the 5 min record
   * being filled (another leader's samples of this bucket) and the last 5 minutes of points
   * (for the rate and the drain trend), in one pipelined read for all such queues.
   */
  private async seed(backend: Backend, names: string[], now: number): Promise<void> {
    const ts = slotTime("10s", now);
    const recent = ringRanges("10s", ts - RATE_WINDOW_SECONDS + TIERS["10s"].step, ts - TIERS["10s"].step);
    const reads: HistoryRangeRead[] = names.flatMap((name): HistoryRangeRead[] => [
      { series: name, tier: "5m", offset: slotOffset("5m", ts), length: RECORD_BYTES },
      ...recent.ranges.map((r): HistoryRangeRead => ({ series: name, tier: "10s", ...r })),
    ]);
    if (!this.fleetCoarse) reads.push({ series: null, tier: "5m", offset: slotOffset("5m", ts), length: RECORD_BYTES });
    let got: Buffer[] = [];
    try {
      got = await backend.historyRead(reads);
    } catch (err) {
      this.log(`seeding from stored history failed, starting afresh: ${err instanceof Error ? err.message : String(err)}`);
    }
    const per = 1 + recent.ranges.length;
    names.forEach((name, i) => {
      const s = this.stateOf(name);
      s.seeded = true;
      s.finishedTotal = this.latestSeeded?.get(name)?.finished_total ?? 0;
      if (got.length === 0) return;
      const coarse = decodeRecord(got[i * per]!);
      if (coarse && coarse.ts === slotTime("5m", ts)) {
        s.coarse = new Aggregate(coarse.ts);
        s.coarse.add(coarse);
      }
      const bytes = joinRanges(got.slice(i * per + 1, i * per + per), recent.ranges);
      s.recent = recordsAt(bytes, recent.times).filter((r): r is HistoryRecord => r !== null);
    });
    if (!this.fleetCoarse && got.length > 0) {
      const coarse = decodeRecord(got[got.length - 1]!);
      if (coarse && coarse.ts === slotTime("5m", ts)) {
        this.fleetCoarse = new Aggregate(coarse.ts);
        this.fleetCoarse.add(coarse);
      }
    }
  }
}

/**
 * The 5 min aggregate after adding a 10 s record: a new bucket starts a new aggregate; a
 * record replacing one of the same slot (a second tick in 10 s) is not counted twice
 * (approximated by skipping it: its figures differ by one tick at most).
 */
function rollCoarse(agg: Aggregate | null, ts: number, record: HistoryRecord, sameSlot: boolean): Aggregate {
  const bucket = slotTime("5m", ts);
  if (!agg || agg.ts !== bucket) {
    const next = new Aggregate(bucket);
    next.add(record);
    return next;
  }
  if (!sameSlot) agg.add(record);
  return agg;
}
