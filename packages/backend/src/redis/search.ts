// queueScan for Redis (issue 14; the contract is in ../types.ts, SearchBackend): one chunk
// per call, LRANGE / ZRANGE by rank of at most QUEUE_SCAN_MAX entries (a fraction of a
// millisecond of Redis each), the length in the same round trip.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";

import { consoleKeys, keys, queueKeyForPriority } from "../keys";
import { QUEUE_SCAN_MAX, type BulkJobRecord, type QueueScanChunk, type QueueScanPart, type TakeMatchesChunk, type TakeMatchesResult } from "../types";
import { callScript, isWrongTypeError, type RedisConnection } from "./connection";
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

// ---- bulk jobs (issue 14.2)

/** Job records kept in the index; older ones are dropped from it (their hashes expire). */
export const BULK_JOBS_KEPT = 200;

export function bulkJobFromHash(id: string, h: Record<string, Buffer> | Map<string, Buffer>): BulkJobRecord | null {
  const get = (f: string) => (h instanceof Map ? h.get(f) : h[f]);
  const state = get("state");
  if (!state) return null;
  const num = (f: string) => {
    const v = Number(get(f)?.toString("utf8") ?? "0");
    return Number.isFinite(v) ? v : 0;
  };
  return {
    id,
    doc: get("doc") ?? null,
    state: state.toString("utf8"),
    owner: get("owner")?.toString("utf8") ?? "",
    part: num("part"),
    cursor: num("cursor"),
    scanned: num("scanned"),
    done: num("done"),
    missing: num("missing"),
    note: get("note")?.toString("utf8") ?? "",
    scan: get("scan")?.toString("utf8") ?? "",
  };
}

export async function redisBulkJobCreate(conn: RedisConnection, r: Redis, id: string, doc: Buffer, nowMs: number): Promise<void> {
  const key = consoleKeys.bulkJob(id);
  await conn.execValues(
    r
      .multi()
      .hset(key, { doc, state: "running", owner: "", part: "0", cursor: "0", scanned: "0", done: "0", missing: "0", note: "", scan: "" })
      .zadd(consoleKeys.bulkJobs, String(nowMs), id)
      .zremrangebyrank(consoleKeys.bulkJobs, 0, -(BULK_JOBS_KEPT + 1)),
  );
}

export async function redisBulkJobGet(conn: RedisConnection, r: Redis, ids: string[]): Promise<Array<BulkJobRecord | null>> {
  if (ids.length === 0) return [];
  const p = r.pipeline();
  for (const id of ids) p.hgetallBuffer(consoleKeys.bulkJob(id));
  const res = await conn.exec(p);
  return ids.map((id, i) => {
    const [err, v] = res[i]!;
    if (err) {
      if (isWrongTypeError(err)) return null;
      throw err;
    }
    return bulkJobFromHash(id, (v ?? {}) as Record<string, Buffer>);
  });
}

export async function redisBulkJobIds(r: Redis, limit: number): Promise<string[]> {
  if (limit <= 0) return [];
  return r.zrevrange(consoleKeys.bulkJobs, 0, limit - 1);
}

export async function redisBulkJobSet(r: Redis, id: string, fields: Record<string, string>, opts: { ifState?: string; keepSeconds?: number }): Promise<boolean> {
  const args = [opts.ifState ?? "", String(Math.max(0, Math.floor(opts.keepSeconds ?? 0)))];
  for (const [k, v] of Object.entries(fields)) args.push(k, v);
  return asNumber(await callScript(r, "bulkJobSet", [consoleKeys.bulkJob(id)], args)) === 1;
}

export async function redisQueueTakeMatches(r: Redis, name: string, c: TakeMatchesChunk): Promise<TakeMatchesResult> {
  const src = c.part === "dead" ? keys.queueDead(name) : queueKeyForPriority(name, c.part);
  const tomb = Buffer.from(`\u0000fleet-console-tombstone:${randomBytes(16).toString("hex")}`);
  const args: Array<string | Buffer> = [c.action, c.owner, tomb, String(c.start), String(c.read), String(c.partIndex), c.partDone ? "1" : "0", c.scan ?? ""];
  for (const it of c.items) args.push(String(it.index), it.body, it.replacement);
  const res = (await callScript(r, "queueTakeMatches", [src, keys.queue(name), consoleKeys.bulkJob(c.jobId)], args)) as unknown[];
  const unknown = Array.isArray(res[4]) ? (res[4] as unknown[]).map(asNumber) : [];
  return { ok: asNumber(res[0]) === 1, taken: asNumber(res[1]), missing: asNumber(res[2]), cursor: asNumber(res[3]), unknown };
}
