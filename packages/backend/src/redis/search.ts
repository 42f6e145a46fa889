// Search inside a queue over Redis (issue 14; the SearchBackend part of the contract): one chunk
// per call, LRANGE / ZRANGE by rank of at most QUEUE_SCAN_MAX entries (a fraction of a
// millisecond of Redis each), the length in the same round trip.
import type { Redis } from "ioredis";

import { keys, queueKeyForPriority } from "../keys";
import { QUEUE_SCAN_MAX, type QueueScanChunk, type QueueScanPart, type SearchBackend } from "../types";
import { isWrongTypeError, type RedisConnection } from "./connection";
import type { RedisContext } from "./context";
import { asBufferArray, asNumber, scoredPairs } from "./replies";

export async function redisQueueScan(conn: RedisConnection, r: Redis, name: string, part: QueueScanPart, start: number, count: number): Promise<QueueScanChunk> {
  const from = Math.max(0, Math.floor(start));
  const n = Math.max(0, Math.min(QUEUE_SCAN_MAX, Math.floor(count)));
  const corrupt: QueueScanChunk = { total: 0, entries: [], corrupt: true };
  if (part === "processing" || part === "scheduled") {
    const key = part === "processing" ? keys.queueProcessing(name) : keys.queueScheduled(name);
    const p = r.pipeline().zcard(key);
    if (n > 0) p.zrangeBuffer(key, from, String(from + n - 1), "WITHSCORES");
    const rest = await conn.exec(p);
    const [err, total] = rest.shift()!;
    if (err) {
      if (isWrongTypeError(err)) return corrupt;
      throw err;
    }
    const pairs = n > 0 ? scoredPairs(rest[0]![1]) : [];
    if (part === "scheduled") return { total: asNumber(total), entries: pairs.map(([body, score], i) => ({ index: from + i, body, score })) };
    if (pairs.length === 0) return { total: asNumber(total), entries: [] };
    let bodies: Array<Buffer | null>;
    try {
      bodies = await r.hmgetBuffer(keys.queueProcessingBody(name), ...pairs.map(([id]) => id));
    } catch (e) {
      if (!isWrongTypeError(e)) throw e;
      bodies = [];
    }
    return {
      total: asNumber(total),
      entries: pairs.flatMap(([id, score], i) => {
        const body = bodies[i];
        return body ? [{ index: from + i, body, id: id.toString("utf8"), score }] : [];
      }),
    };
  }
  const key = part === "dead" ? keys.queueDead(name) : queueKeyForPriority(name, part);
  const p = r.pipeline().llen(key);
  if (n > 0) p.lrangeBuffer(key, from, from + n - 1);
  const rest = await conn.exec(p);
  const [err, total] = rest.shift()!;
  if (err) {
    if (isWrongTypeError(err)) return corrupt;
    throw err;
  }
  const bodies = n > 0 ? asBufferArray(rest[0]![1]) : [];
  return { total: asNumber(total), entries: bodies.map((body, i) => ({ index: from + i, body })) };
}

export function redisSearch(ctx: RedisContext): SearchBackend {
  return {
    async queueScan(name: string, part: QueueScanPart, start: number, count: number): Promise<QueueScanChunk> {
      return ctx.run((r) => redisQueueScan(ctx.conn, r, name, part, start, count));
    },
  };
}
