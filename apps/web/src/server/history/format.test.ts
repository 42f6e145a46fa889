// Queue history's format: records, ring slots and their bounds, aggregation, downsampling,
// the drain trend. Pure, no Redis.
import { describe, expect, it } from "vitest";

import {
  Aggregate,
  BYTES_PER_QUEUE,
  decodeRecord,
  downsample,
  drainSeconds,
  encodeRecord,
  joinRanges,
  RANGES,
  RECORD_BYTES,
  recordsAt,
  ringRanges,
  slotIndex,
  slotOffset,
  slotTime,
  TIERS,
  type HistoryRecord,
} from "./format";

const rec = (ts: number, over: Partial<HistoryRecord> = {}): HistoryRecord => ({
  ts,
  high: 1,
  normal: 2,
  low: 3,
  processing: 4,
  overdue: 0,
  scheduled: 5,
  dead: 6,
  finished: 7,
  oldest: 8,
  samples: 1,
  flags: 0,
  ...over,
});

/** A ring as Redis holds it: records written at their slots. */
function ringWith(tier: "10s" | "5m", records: HistoryRecord[]): Buffer {
  const ring = Buffer.alloc(TIERS[tier].slots * RECORD_BYTES);
  for (const r of records) encodeRecord(r).copy(ring, slotOffset(tier, r.ts));
  return ring;
}

function read(ring: Buffer, tier: "10s" | "5m", from: number, to: number) {
  const { ranges, times } = ringRanges(tier, from, to);
  const bytes = Buffer.concat(ranges.map((r) => ring.subarray(r.offset, r.offset + r.length)));
  return { times, records: recordsAt(bytes, times) };
}

describe("records", () => {
  it("round-trip, with 'not known' oldest ages and values clamped to u32", () => {
    const r = rec(1_700_000_000, { oldest: null, dead: 2 ** 40, high: -5, normal: 2.6 });
    const back = decodeRecord(encodeRecord(r))!;
    expect(back).toEqual({ ...r, oldest: null, dead: 0xfffffffe, high: 0, normal: 3 });
    expect(encodeRecord(r).length).toBe(RECORD_BYTES);
  });

  it("an all-zero slot is no record", () => {
    expect(decodeRecord(Buffer.alloc(RECORD_BYTES))).toBeNull();
  });
});

describe("rings are bounded", () => {
  it("each tier has a fixed number of slots; the byte size per queue is what the README states", () => {
    expect(TIERS["10s"].slots * TIERS["10s"].step).toBe(86_400);
    expect(TIERS["5m"].slots * TIERS["5m"].step).toBe(30 * 86_400);
    expect(BYTES_PER_QUEUE).toBe(829_440);
  });

  it("slot offsets never pass the ring's end, whatever the time", () => {
    for (const tier of ["10s", "5m"] as const) {
      for (const t of [0, 9, 10, 86_399, 86_400, 1_700_000_123, 4_000_000_000]) {
        expect(slotOffset(tier, t)).toBeLessThanOrEqual((TIERS[tier].slots - 1) * RECORD_BYTES);
        expect(slotIndex(tier, t)).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("a point a full lap later overwrites the same slot, and reads see only the newer one", () => {
    const t = 1_700_000_000;
    const lap = TIERS["10s"].slots * TIERS["10s"].step;
    expect(slotOffset("10s", t)).toBe(slotOffset("10s", t + lap));
    const ring = ringWith("10s", [rec(slotTime("10s", t), { dead: 1 }), rec(slotTime("10s", t + lap), { dead: 2 })]);
    const old = read(ring, "10s", t, t);
    expect(old.records).toEqual([null]); // that slot now holds the later lap's point
    const recent = read(ring, "10s", t + lap, t + lap);
    expect(recent.records[0]?.dead).toBe(2);
  });

  it("a window longer than the ring is cut to the ring's span", () => {
    const to = 1_700_000_000;
    const { times, ranges } = ringRanges("10s", to - 10 * 86_400, to);
    expect(times.length).toBe(TIERS["10s"].slots);
    expect(ranges.reduce((n, r) => n + r.length, 0)).toBe(TIERS["10s"].slots * RECORD_BYTES);
  });

  it("a window across the ring's end is two byte ranges, read in time order", () => {
    const lap = TIERS["10s"].slots * TIERS["10s"].step;
    const end = lap * 19_676 + 20; // slot 2 of a lap: the window starts in the previous lap
    const from = end - 60;
    const { ranges, times } = ringRanges("10s", from, end);
    expect(ranges).toHaveLength(2);
    expect(ranges[1]!.offset).toBe(0);
    const ring = ringWith(
      "10s",
      times.map((t, i) => rec(t, { dead: i })),
    );
    expect(read(ring, "10s", from, end).records.map((r) => r?.dead)).toEqual(times.map((_, i) => i));
  });

  it("a ring written only up to some slot reads short (GETRANGE stops at its end): padded, never shifted", () => {
    const to = slotTime("10s", 1_700_000_000);
    const { ranges, times } = ringRanges("10s", to - 86_400, to); // the whole ring: two ranges
    expect(ranges).toHaveLength(2);
    const ring = ringWith("10s", [rec(to, { dead: 42 })]);
    // the string ends right after the one slot written, as Redis keeps it
    const short = ring.subarray(0, slotOffset("10s", to) + RECORD_BYTES);
    const chunks = ranges.map((r) => short.subarray(Math.min(r.offset, short.length), Math.min(r.offset + r.length, short.length)));
    const records = recordsAt(joinRanges(chunks, ranges), times);
    expect(records.filter((r) => r !== null).map((r) => [r!.ts, r!.dead])).toEqual([[to, 42]]);
    expect(records[records.length - 1]?.dead).toBe(42);
  });

  it("slots never written are gaps", () => {
    const t = slotTime("10s", 1_700_000_000);
    const ring = ringWith("10s", [rec(t - 20), rec(t)]);
    expect(read(ring, "10s", t - 20, t).records.map((r) => (r ? r.ts : null))).toEqual([t - 20, null, t]);
  });
});

describe("aggregation and downsampling", () => {
  it("a 5-minute aggregate takes the mean of gauges, the sum of finished, the max of the oldest age", () => {
    const a = new Aggregate(300);
    a.add(rec(300, { normal: 10, finished: 3, oldest: 50 }));
    a.add(rec(310, { normal: 20, finished: 4, oldest: null }));
    a.add(rec(320, { normal: 30, finished: 5, oldest: 70 }));
    expect(a.record()).toMatchObject({ ts: 300, normal: 20, finished: 12, oldest: 70, samples: 3 });
  });

  it("merging a stored partial aggregate weighs it by its samples", () => {
    const a = new Aggregate(300);
    a.add(rec(300, { normal: 10, samples: 3, finished: 9 })); // another leader's three samples
    a.add(rec(330, { normal: 50, finished: 1 }));
    expect(a.record()).toMatchObject({ normal: 20, samples: 4, finished: 10 });
  });

  it("downsampling covers every bucket of the window, empty ones as null, and sums finished", () => {
    const times = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110].map((t) => 1_700_000_040 + t);
    const records = times.map((t, i) => (i >= 6 && i < 9 ? null : rec(t, { finished: 1, normal: i })));
    const out = downsample(times, records, 30);
    // 1_700_000_040 is a multiple of 30: buckets of three points, the third one empty
    expect(out.map((b) => b.ts)).toEqual([1_700_000_040, 1_700_000_070, 1_700_000_100, 1_700_000_130]);
    expect(out.map((b) => b.record?.finished ?? null)).toEqual([3, 3, null, 3]);
    expect(out.map((b) => b.record?.normal ?? null)).toEqual([1, 4, null, 10]);
  });

  it("each offered range is at most 720 points", () => {
    for (const [, r] of Object.entries(RANGES)) {
      expect(r.seconds / r.bucket).toBeLessThanOrEqual(720);
      expect(r.bucket % TIERS[r.tier].step).toBe(0);
      expect(r.seconds).toBeLessThanOrEqual(TIERS[r.tier].slots * TIERS[r.tier].step);
    }
  });
});

describe("drain trend", () => {
  it("a falling backlog drains at its slope; rising or flat never; too few points are not known", () => {
    const falling = [0, 10, 20, 30].map((ts) => ({ ts, pending: 100 - ts })); // 1 task/s
    expect(drainSeconds(falling, 70)).toBeCloseTo(70);
    expect(
      drainSeconds(
        [0, 10, 20].map((ts) => ({ ts, pending: ts })),
        20,
      ),
    ).toBe(Number.POSITIVE_INFINITY);
    expect(
      drainSeconds(
        [0, 10, 20].map((ts) => ({ ts, pending: 5 })),
        5,
      ),
    ).toBe(Number.POSITIVE_INFINITY);
    expect(drainSeconds([{ ts: 0, pending: 9 }], 9)).toBeNull();
    expect(drainSeconds([], 0)).toBe(0);
  });
});
