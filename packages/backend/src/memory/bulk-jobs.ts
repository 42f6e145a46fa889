// Bulk actions on a search's matches in memory (issue 14.2; the BulkJobsBackend part of the
// contract): the same steps as ../redis/bulk-jobs.ts and its scripts, each synchronous here,
// hence atomic.
import { toBuffer } from "../codec";
import { consoleKeys, keys, queueKeyForPriority } from "../keys";
import type { BulkJobRecord, BulkJobsBackend, BytesLike, TakeMatchesChunk } from "../types";
import type { MemoryContext } from "./context";
import { isWrongType } from "./search";
import type { MemoryStore } from "./store";

const BULK_JOBS_KEPT = 200;

function jobOf(raw: MemoryStore, id: string): BulkJobRecord | null {
  let h: Map<string, Buffer>;
  try {
    h = raw.hgetall(consoleKeys.bulkJob(id));
  } catch (err) {
    if (isWrongType(err)) return null;
    throw err;
  }
  const state = h.get("state");
  if (!state) return null;
  const num = (f: string) => {
    const v = Number(h.get(f)?.toString("utf8") ?? "0");
    return Number.isFinite(v) ? v : 0;
  };
  return {
    id,
    doc: h.get("doc") ?? null,
    state: state.toString("utf8"),
    owner: h.get("owner")?.toString("utf8") ?? "",
    part: num("part"),
    cursor: num("cursor"),
    scanned: num("scanned"),
    done: num("done"),
    missing: num("missing"),
    note: h.get("note")?.toString("utf8") ?? "",
  };
}

export function memoryBulkJobCreate(raw: MemoryStore, id: string, doc: Buffer, nowMs: number): void {
  raw.hset(consoleKeys.bulkJob(id), { doc, state: "running", owner: "", part: "0", cursor: "0", scanned: "0", done: "0", missing: "0", note: "" });
  raw.zadd(consoleKeys.bulkJobs, nowMs, id);
  raw.zkeepNewest(consoleKeys.bulkJobs, BULK_JOBS_KEPT);
}

export function memoryBulkJobGet(raw: MemoryStore, ids: string[]): Array<BulkJobRecord | null> {
  return ids.map((id) => jobOf(raw, id));
}

export function memoryBulkJobIds(raw: MemoryStore, limit: number): string[] {
  if (limit <= 0) return [];
  return raw
    .zrange(consoleKeys.bulkJobs)
    .map((m) => m.member.toString("utf8"))
    .reverse()
    .slice(0, limit);
}

export function memoryBulkJobSet(raw: MemoryStore, id: string, fields: Record<string, string>, opts: { ifState?: string; keepSeconds?: number }): boolean {
  const job = jobOf(raw, id);
  if (!job || (opts.ifState !== undefined && opts.ifState !== "" && job.state !== opts.ifState)) return false;
  if (Object.keys(fields).length > 0) raw.hset(consoleKeys.bulkJob(id), fields);
  if (opts.keepSeconds && opts.keepSeconds > 0) raw.expire(consoleKeys.bulkJob(id), opts.keepSeconds * 1000);
  return true;
}

export function memoryQueueTakeMatches(raw: MemoryStore, name: string, c: TakeMatchesChunk): { ok: boolean; taken: number; missing: number; cursor: number } {
  const job = jobOf(raw, c.jobId);
  if (job?.state !== "running" || job.owner !== c.owner) return { ok: false, taken: 0, missing: 0, cursor: 0 };
  const src = c.part === "dead" ? keys.queueDead(name) : queueKeyForPriority(name, c.part);
  const list = raw.lrange(src);
  const gone = new Set<number>();
  const pushed: Buffer[] = [];
  let drift = 0;
  let looks = 0;
  let missing = 0;
  for (const it of c.items) {
    const pos = it.index - drift;
    let found: number | null = null;
    if (pos >= 0 && pos < list.length && !gone.has(pos) && list[pos]!.equals(it.body)) found = pos;
    else if (looks < 16 && pos >= 0) {
      looks++;
      for (let j = Math.min(pos, list.length - 1); j >= Math.max(0, pos - 1000); j--) {
        if (!gone.has(j) && list[j]!.equals(it.body)) {
          found = j;
          break;
        }
      }
      if (found !== null) drift = it.index - found;
    }
    if (found === null) missing++;
    else {
      gone.add(found);
      if (c.action === "requeue") pushed.push(it.replacement);
    }
  }
  if (gone.size > 0)
    raw.lreplace(
      src,
      list.filter((_, i) => !gone.has(i)),
    );
  if (pushed.length > 0) raw.rpush(keys.queue(name), ...pushed);
  const part = c.partDone ? c.partIndex + 1 : c.partIndex;
  const cursor = c.partDone ? 0 : Math.max(0, c.start + c.read - gone.size - drift);
  raw.hset(consoleKeys.bulkJob(c.jobId), {
    part: String(part),
    cursor: String(cursor),
    done: String(job.done + gone.size),
    missing: String(job.missing + missing),
    scanned: String(job.scanned + c.read),
  });
  return { ok: true, taken: gone.size, missing, cursor };
}

export function memoryBulkJobs(ctx: MemoryContext): BulkJobsBackend {
  const { raw } = ctx;
  return {
    async bulkJobCreate(id: string, doc: BytesLike, nowMs: number = Date.now()): Promise<void> {
      memoryBulkJobCreate(raw, id, toBuffer(doc), nowMs);
    },

    async bulkJobGet(ids: string[]): Promise<Array<BulkJobRecord | null>> {
      return memoryBulkJobGet(raw, ids);
    },

    async bulkJobIds(limit: number): Promise<string[]> {
      return memoryBulkJobIds(raw, limit);
    },

    async bulkJobSet(id: string, fields: Record<string, string>, opts: { ifState?: string; keepSeconds?: number } = {}): Promise<boolean> {
      return memoryBulkJobSet(raw, id, fields, opts);
    },

    async queueTakeMatches(name: string, chunk: TakeMatchesChunk): Promise<{ ok: boolean; taken: number; missing: number; cursor: number }> {
      return memoryQueueTakeMatches(raw, name, chunk);
    },
  };
}
