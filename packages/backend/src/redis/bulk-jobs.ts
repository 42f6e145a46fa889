// Bulk actions on a search's matches over Redis (issue 14.2; the BulkJobsBackend part of the
// contract): job records under fleet:console:bulk: (bulk-job-set-1.lua) and one atomic chunk of
// a job per queue-take-matches-3.lua call.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";

import { toBuffer } from "../codec";
import { consoleKeys, keys, queueKeyForPriority } from "../keys";
import type { BulkJobRecord, BulkJobsBackend, BytesLike, TakeMatchesChunk } from "../types";
import { callScript, isWrongTypeError, type RedisConnection } from "./connection";
import type { RedisContext } from "./context";
import { asNumber } from "./replies";

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
  };
}

export async function redisBulkJobCreate(conn: RedisConnection, r: Redis, id: string, doc: Buffer, nowMs: number): Promise<void> {
  const key = consoleKeys.bulkJob(id);
  await conn.execValues(
    r
      .multi()
      .hset(key, { doc, state: "running", owner: "", part: "0", cursor: "0", scanned: "0", done: "0", missing: "0", note: "" })
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

export async function redisQueueTakeMatches(r: Redis, name: string, c: TakeMatchesChunk): Promise<{ ok: boolean; taken: number; missing: number; cursor: number }> {
  const src = c.part === "dead" ? keys.queueDead(name) : queueKeyForPriority(name, c.part);
  const tomb = Buffer.from(`\u0000fleet-console-tombstone:${randomBytes(16).toString("hex")}`);
  const args: Array<string | Buffer> = [c.action, c.owner, tomb, String(c.start), String(c.read), String(c.partIndex), c.partDone ? "1" : "0"];
  for (const it of c.items) args.push(String(it.index), it.body, it.replacement);
  const res = (await callScript(r, "queueTakeMatches", [src, keys.queue(name), consoleKeys.bulkJob(c.jobId)], args)) as unknown[];
  return { ok: asNumber(res[0]) === 1, taken: asNumber(res[1]), missing: asNumber(res[2]), cursor: asNumber(res[3]) };
}

export function redisBulkJobs(ctx: RedisContext): BulkJobsBackend {
  return {
    async bulkJobCreate(id: string, doc: BytesLike, nowMs: number = Date.now()): Promise<void> {
      await ctx.run((r) => redisBulkJobCreate(ctx.conn, r, id, toBuffer(doc), nowMs));
    },

    async bulkJobGet(ids: string[]): Promise<Array<BulkJobRecord | null>> {
      return ctx.run((r) => redisBulkJobGet(ctx.conn, r, ids));
    },

    async bulkJobIds(limit: number): Promise<string[]> {
      return ctx.run((r) => redisBulkJobIds(r, limit));
    },

    async bulkJobSet(id: string, fields: Record<string, string>, opts: { ifState?: string; keepSeconds?: number } = {}): Promise<boolean> {
      return ctx.run((r) => redisBulkJobSet(r, id, fields, opts));
    },

    async queueTakeMatches(name: string, chunk: TakeMatchesChunk): Promise<{ ok: boolean; taken: number; missing: number; cursor: number }> {
      return ctx.run((r) => redisQueueTakeMatches(r, name, chunk));
    },
  };
}
