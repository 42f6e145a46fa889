// Queue history's storage format (issue 15.1): per queue (and once for the whole fleet) two
// rings of fixed-size records in Redis strings, `fleet:console:history:10s:<queue>` (a point
// every 10 s, 24 h) and `fleet:console:history:5m:<queue>` (every 5 min, 30 days). A record
// lives at slot (ts / step) mod slots, so a ring never grows past slots x RECORD_BYTES: its
// size is fixed by construction, overwriting the oldest point as it goes. A slot whose stored
// ts is not the one a read expects (an older lap, or never written) is a gap.
//
// Pure: encoding, slot arithmetic, aggregation and downsampling, shared by the writer, the
// read routes and the tests.

/** u32 little-endian fields of one record, in this order. */
export const FIELDS = [
  "ts",
  "high",
  "normal",
  "low",
  "processing",
  "overdue",
  "scheduled",
  "dead",
  /** Reservations that ended during the record's interval (summed when aggregated). */
  "finished",
  /** Seconds the oldest pending task has waited, at least (max when aggregated); NONE when not known. */
  "oldest",
  /** 10-second samples the record aggregates (1 in the 10 s tier). */
  "samples",
  /** FLAG_* bits. */
  "flags",
] as const;
export type Field = (typeof FIELDS)[number];
export const RECORD_BYTES = FIELDS.length * 4;
/** "Not known" for a u32 field (an oldest age nobody measured). */
export const NONE = 0xffffffff;
const MAX = 0xfffffffe;
/** `finished` is a lower bound: during the interval no earlier-seen task could be found in a pending list. */
export const FLAG_FINISHED_AT_LEAST = 1;

export type Tier = "10s" | "5m";
export interface TierSpec {
  step: number;
  slots: number;
}
export const TIERS: Record<Tier, TierSpec> = {
  "10s": { step: 10, slots: 8640 }, // 24 h
  "5m": { step: 300, slots: 8640 }, // 30 days
};
/** Bytes of one queue's history in Redis: both rings, full (README states it). */
export const BYTES_PER_QUEUE = (TIERS["10s"].slots + TIERS["5m"].slots) * RECORD_BYTES;
/** Rings outlive their last write by the longest span, then expire. */
export const RING_TTL_SECONDS = TIERS["5m"].step * TIERS["5m"].slots + 86_400;

export interface HistoryRecord {
  ts: number;
  high: number;
  normal: number;
  low: number;
  processing: number;
  overdue: number;
  scheduled: number;
  dead: number;
  finished: number;
  /** Null when not known. */
  oldest: number | null;
  samples: number;
  flags: number;
}

const u32 = (v: number) => (Number.isFinite(v) ? Math.min(MAX, Math.max(0, Math.round(v))) : 0);

export function encodeRecord(r: HistoryRecord): Buffer {
  const out = Buffer.alloc(RECORD_BYTES);
  FIELDS.forEach((f, i) => {
    const v = f === "oldest" ? (r.oldest === null ? NONE : u32(r.oldest)) : u32(r[f] as number);
    out.writeUInt32LE(v, i * 4);
  });
  return out;
}

/** Null for an unwritten (all-zero) record. */
export function decodeRecord(buf: Buffer, at = 0): HistoryRecord | null {
  if (buf.length < at + RECORD_BYTES) return null;
  const v = FIELDS.map((_, i) => buf.readUInt32LE(at + i * 4));
  if (v[0] === 0) return null;
  const rec = Object.fromEntries(FIELDS.map((f, i) => [f, v[i]])) as unknown as HistoryRecord;
  rec.oldest = v[FIELDS.indexOf("oldest")] === NONE ? null : rec.oldest;
  return rec;
}

/** Start of the step a time falls in. */
export function slotTime(tier: Tier, t: number): number {
  const { step } = TIERS[tier];
  return Math.floor(t / step) * step;
}

export function slotIndex(tier: Tier, t: number): number {
  const { step, slots } = TIERS[tier];
  return Math.floor(t / step) % slots;
}

export function slotOffset(tier: Tier, t: number): number {
  return slotIndex(tier, t) * RECORD_BYTES;
}

/**
 * The byte ranges (one, or two when the window wraps around the ring's end) holding the
 * slots of [from, to], and the slot times they hold in order. The window is cut to the
 * ring's span: older slots were overwritten.
 */
export function ringRanges(tier: Tier, from: number, to: number): { ranges: Array<{ offset: number; length: number }>; times: number[] } {
  const { step, slots } = TIERS[tier];
  const last = slotTime(tier, to);
  const first = Math.max(slotTime(tier, from), last - (slots - 1) * step);
  const times: number[] = [];
  for (let t = first; t <= last; t += step) times.push(t);
  if (times.length === 0) return { ranges: [], times };
  const a = slotIndex(tier, first);
  const b = slotIndex(tier, last);
  const ranges =
    a <= b
      ? [{ offset: a * RECORD_BYTES, length: (b - a + 1) * RECORD_BYTES }]
      : [
          { offset: a * RECORD_BYTES, length: (slots - a) * RECORD_BYTES },
          { offset: 0, length: (b + 1) * RECORD_BYTES },
        ];
  return { ranges, times };
}

/**
 * The bytes read for `ranges` as one buffer: a ring shorter than a range (written only up to
 * some slot; Redis cuts GETRANGE at the string's end) is padded with zeros, never shifted.
 */
export function joinRanges(chunks: Buffer[], ranges: Array<{ length: number }>): Buffer {
  return Buffer.concat(
    ranges.map((r, i) => {
      const c = chunks[i] ?? Buffer.alloc(0);
      return c.length >= r.length ? c.subarray(0, r.length) : Buffer.concat([c, Buffer.alloc(r.length - c.length)]);
    }),
  );
}

/** The records of `times` from the bytes of their ranges, joined; a slot holding another time is a gap (null). */
export function recordsAt(bytes: Buffer, times: number[]): Array<HistoryRecord | null> {
  return times.map((t, i) => {
    const r = decodeRecord(bytes, i * RECORD_BYTES);
    return r !== null && r.ts === t ? r : null;
  });
}

// ---- aggregation

/** A running aggregate of 10-second records into one coarser record. */
export class Aggregate {
  private sums = { high: 0, normal: 0, low: 0, processing: 0, overdue: 0, scheduled: 0, dead: 0 };
  private finished = 0;
  private oldest: number | null = null;
  private samples = 0;
  private flags = 0;

  constructor(readonly ts: number) {}

  add(r: HistoryRecord): void {
    const n = Math.max(1, r.samples);
    for (const k of Object.keys(this.sums) as Array<keyof Aggregate["sums"]>) this.sums[k] += r[k] * n;
    this.finished += r.finished;
    if (r.oldest !== null) this.oldest = Math.max(this.oldest ?? 0, r.oldest);
    this.samples += n;
    this.flags |= r.flags;
  }

  get count(): number {
    return this.samples;
  }

  /** Gauges as the mean of their samples, `finished` summed, `oldest` the max. */
  record(): HistoryRecord {
    const n = Math.max(1, this.samples);
    const mean = (v: number) => v / n;
    return {
      ts: this.ts,
      high: mean(this.sums.high),
      normal: mean(this.sums.normal),
      low: mean(this.sums.low),
      processing: mean(this.sums.processing),
      overdue: mean(this.sums.overdue),
      scheduled: mean(this.sums.scheduled),
      dead: mean(this.sums.dead),
      finished: this.finished,
      oldest: this.oldest,
      samples: this.samples,
      flags: this.flags,
    };
  }
}

/**
 * Records (one per `step` of their tier, gaps null) merged into buckets of `bucket` seconds
 * aligned to multiples of it: every bucket of [from, to] is present, null when it held no record.
 */
export function downsample(times: number[], records: Array<HistoryRecord | null>, bucket: number): Array<{ ts: number; record: HistoryRecord | null }> {
  if (times.length === 0) return [];
  const out: Array<{ ts: number; record: HistoryRecord | null }> = [];
  let agg: Aggregate | null = null;
  let current = Math.floor(times[0]! / bucket) * bucket;
  const flush = () => {
    out.push({ ts: current, record: agg && agg.count > 0 ? agg.record() : null });
    agg = null;
  };
  times.forEach((t, i) => {
    const b = Math.floor(t / bucket) * bucket;
    while (b > current) {
      flush();
      current += bucket;
    }
    const r = records[i];
    if (r) (agg ??= new Aggregate(current)).add(r);
  });
  flush();
  return out;
}

// ---- the ranges the console offers

export type HistoryRange = "1h" | "24h" | "30d";
export const RANGES: Record<HistoryRange, { seconds: number; tier: Tier; bucket: number }> = {
  "1h": { seconds: 3600, tier: "10s", bucket: 10 }, // 360 points
  "24h": { seconds: 86_400, tier: "10s", bucket: 120 }, // 720 points
  "30d": { seconds: 30 * 86_400, tier: "5m", bucket: 3600 }, // 720 points
};

// ---- figures derived from points

/**
 * Seconds until `pending` reaches zero at the trend of the given (time, pending) points (the
 * least-squares slope): 0 when empty, Infinity when not falling (growing or flat), null when
 * too few points to say.
 */
export function drainSeconds(points: Array<{ ts: number; pending: number }>, pending: number): number | null {
  if (pending <= 0) return 0;
  if (points.length < 3) return null;
  const n = points.length;
  const mt = points.reduce((s, p) => s + p.ts, 0) / n;
  const mp = points.reduce((s, p) => s + p.pending, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.ts - mt) * (p.pending - mp);
    den += (p.ts - mt) ** 2;
  }
  if (den === 0) return null;
  const slope = num / den; // tasks per second
  if (!(slope < 0)) return Number.POSITIVE_INFINITY;
  return pending / -slope;
}
