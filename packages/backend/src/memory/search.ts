// Search inside a queue in memory (issue 14; the SearchBackend part of the contract).
import { CorruptDataError } from "../errors";
import { keys, queueKeyForPriority } from "../keys";
import { QUEUE_SCAN_MAX, type QueueScanChunk, type QueueScanPart, type SearchBackend } from "../types";
import type { MemoryContext } from "./context";
import type { MemoryStore } from "./store";

export function isWrongType(err: unknown): boolean {
  return err instanceof CorruptDataError && err.message.startsWith("WRONGTYPE");
}

export function memoryQueueScan(raw: MemoryStore, name: string, part: QueueScanPart, start: number, count: number): QueueScanChunk {
  const from = Math.max(0, Math.floor(start));
  const n = Math.max(0, Math.min(QUEUE_SCAN_MAX, Math.floor(count)));
  try {
    if (part === "processing") {
      const all = raw.zrange(keys.queueProcessing(name));
      const entries = all.slice(from, from + n).flatMap(({ member, score }, i) => {
        const id = member.toString("utf8");
        let body: Buffer | null = null;
        try {
          body = raw.hget(keys.queueProcessingBody(name), id);
        } catch (err) {
          if (!isWrongType(err)) throw err;
        }
        return body ? [{ index: from + i, body, id, score }] : [];
      });
      return { total: all.length, entries };
    }
    if (part === "scheduled") {
      const all = raw.zrange(keys.queueScheduled(name));
      return { total: all.length, entries: all.slice(from, from + n).map(({ member, score }, i) => ({ index: from + i, body: member, score })) };
    }
    const key = part === "dead" ? keys.queueDead(name) : queueKeyForPriority(name, part);
    const total = raw.llen(key);
    const bodies = n > 0 ? raw.lrange(key, from, from + n - 1) : [];
    return { total, entries: bodies.map((body, i) => ({ index: from + i, body })) };
  } catch (err) {
    if (isWrongType(err)) return { total: 0, entries: [], corrupt: true };
    throw err;
  }
}

export function memorySearch(ctx: MemoryContext): SearchBackend {
  return {
    async queueScan(name: string, part: QueueScanPart, start: number, count: number): Promise<QueueScanChunk> {
      return memoryQueueScan(ctx.raw, name, part, start, count);
    },
  };
}
