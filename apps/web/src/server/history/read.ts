// Reading queue history for GET /queues/{name}/history and GET /history: the range's ring
// slots in one or two GETRANGEs (one round trip), cut into at most 720 points, as columns.
import type { Backend, HistoryRangeRead } from "@fleet/backend";
import type { History, HistoryRangeName } from "@fleet/schema";

import { downsample, FLAG_FINISHED_AT_LEAST, joinRanges, RANGES, recordsAt, ringRanges } from "./format";
import { parseLatest } from "./writer";

export async function readHistory(backend: Backend, series: string | null, range: HistoryRangeName, now: number): Promise<History> {
  const spec = RANGES[range];
  const { ranges, times } = ringRanges(spec.tier, now - spec.seconds, now);
  const reads: HistoryRangeRead[] = ranges.map((r) => ({ series, tier: spec.tier, ...r }));
  const [chunks, latestAll] = await Promise.all([backend.historyRead(reads), series === null ? Promise.resolve(null) : backend.historyLatest()]);
  const records = recordsAt(joinRanges(chunks, ranges), times);
  const buckets = downsample(times, records, spec.bucket);
  const col = <T>(f: (r: NonNullable<(typeof buckets)[number]["record"]>) => T) => buckets.map((b) => (b.record ? f(b.record) : null));
  const latestBuf = series === null ? undefined : latestAll?.get(series);
  return {
    queue: series,
    range,
    step_seconds: spec.bucket,
    from: buckets[0]?.ts ?? now,
    to: buckets[buckets.length - 1]?.ts ?? now,
    points: {
      ts: buckets.map((b) => b.ts),
      pending_high: col((r) => round(r.high)),
      pending_normal: col((r) => round(r.normal)),
      pending_low: col((r) => round(r.low)),
      processing: col((r) => round(r.processing)),
      overdue: col((r) => round(r.overdue)),
      scheduled: col((r) => round(r.scheduled)),
      dead: col((r) => round(r.dead)),
      // finished over the bucket, per minute: the bucket's samples each stand for 10 s
      finished_per_minute: col((r) => round((r.finished * 60) / (Math.max(1, r.samples) * 10))),
      oldest_pending_age_seconds: col((r) => r.oldest),
      finished_at_least: col((r) => (r.flags & FLAG_FINISHED_AT_LEAST) !== 0),
    },
    latest: latestBuf ? parseLatest(latestBuf) : null,
  };
}

const round = (v: number) => Math.round(v * 10) / 10;
