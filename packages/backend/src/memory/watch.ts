// The console's watch in memory (the WatchBackend part of the contract, ../watch-types.ts):
// queue probes, history rings, alert rules and alert state.

import { parseIntStrict } from "../codec";
import { CorruptDataError, StaleGenerationError } from "../errors";
import { consoleKeys, queueKeyForPriority, type Priority } from "../keys";
import type { BytesLike } from "../types";
import type {
  WatchBackend,
  AlertStateChange,
  AlertStateRead,
  HistoryRangeRead,
  HistorySlotWrite,
  PendingListWatch,
  QueueWatch,
  QueueWatchOptions,
  QueueWatchRequest,
} from "../watch-types";
import { queueDepthsOf } from "./queues";
import { nowSeconds } from "../shared";
import type { MemoryContext } from "./context";

export function memoryWatch(ctx: MemoryContext): WatchBackend {
  const { raw } = ctx;
  const api: WatchBackend = {
    async queueWatch(queues: QueueWatchRequest[], opts: QueueWatchOptions): Promise<QueueWatch[]> {
      const t = opts.now ?? nowSeconds();
      return queues.map((q) => {
        const lists = {} as Record<Priority, PendingListWatch>;
        for (const priority of ["high", "normal", "low"] as const) {
          const list = raw.lrange(queueKeyForPriority(q.name, priority));
          const tail = list.length > 0 ? list[list.length - 1]! : null;
          const scan = list.slice(0, Math.max(0, opts.maxScan));
          let found: PendingListWatch["found"] = null;
          const marks = q.marks?.[priority] ?? [];
          for (let i = 0; i < marks.length && found === null; i++) {
            const position = scan.findIndex((b) => b.equals(marks[i]!));
            if (position >= 0) found = { mark: i, position };
          }
          lists[priority] = {
            length: list.length,
            tail: tail !== null && tail.length <= opts.maxTailBytes ? Buffer.from(tail) : null,
            tailBytes: tail?.length ?? 0,
            found,
          };
        }
        return { depths: queueDepthsOf(ctx, q.name, t), lists };
      });
    },

    async historyWrite(slots: HistorySlotWrite[], opts: { ttlSeconds: number; latest?: Map<string, Buffer> }): Promise<void> {
      // Checked first, so that a wrong-typed key fails the whole write, as MULTI's caller sees it.
      for (const s of slots) raw.get(consoleKeys.history(s.tier, s.series));
      const rings = new Set<string>();
      for (const s of slots) {
        const key = consoleKeys.history(s.tier, s.series);
        const old = raw.get(key) ?? Buffer.alloc(0);
        const next = Buffer.alloc(Math.max(old.length, s.offset + s.bytes.length));
        old.copy(next);
        s.bytes.copy(next, s.offset);
        raw.set(key, next);
        rings.add(key);
      }
      for (const key of rings) raw.expire(key, Math.max(1, Math.round(opts.ttlSeconds * 1000)));
      if (opts.latest) {
        raw.del(consoleKeys.historyLatest);
        if (opts.latest.size > 0) raw.hset(consoleKeys.historyLatest, opts.latest);
      }
    },

    async historyRead(reads: HistoryRangeRead[]): Promise<Buffer[]> {
      return reads.map((rd) => {
        const ring = raw.get(consoleKeys.history(rd.tier, rd.series));
        if (!ring || rd.length <= 0) return Buffer.alloc(0);
        return Buffer.from(ring.subarray(Math.min(rd.offset, ring.length), Math.min(rd.offset + rd.length, ring.length)));
      });
    },

    async historyLatest(): Promise<Map<string, Buffer>> {
      return raw.hgetall(consoleKeys.historyLatest);
    },

    async alertRulesGet(): Promise<{ doc: Buffer | null; gen: number }> {
      const doc = raw.hget(consoleKeys.alertRules, "doc");
      const genText = raw.hget(consoleKeys.alertRules, "gen");
      const gen = genText === null ? 0 : parseIntStrict(genText.toString("utf8"));
      if (gen === null) throw new CorruptDataError(`${consoleKeys.alertRules} has a generation that is not an integer`);
      return { doc, gen };
    },

    async alertRulesSet(doc: BytesLike, expectedGen: number): Promise<{ gen: number }> {
      const { gen } = await api.alertRulesGet();
      if (gen !== expectedGen) throw new StaleGenerationError(expectedGen, gen);
      raw.hset(consoleKeys.alertRules, { doc, gen: String(gen + 1) });
      return { gen: gen + 1 };
    },

    async alertStateRead(historyLimit: number): Promise<AlertStateRead> {
      return {
        firing: raw.hgetall(consoleKeys.alertFiring),
        outbox: raw.hgetall(consoleKeys.alertOutbox),
        history: historyLimit > 0 ? raw.lrange(consoleKeys.alertHistory, 0, historyLimit - 1) : [],
        historyTotal: raw.llen(consoleKeys.alertHistory),
      };
    },

    async alertStateWrite(change: AlertStateChange): Promise<void> {
      // Types checked before anything is written: all or nothing, as MULTI's commands are.
      raw.hgetall(consoleKeys.alertFiring);
      raw.hgetall(consoleKeys.alertOutbox);
      raw.llen(consoleKeys.alertHistory);
      if (change.firingSet?.size) raw.hset(consoleKeys.alertFiring, change.firingSet);
      if (change.firingDel?.length) raw.hdel(consoleKeys.alertFiring, ...change.firingDel);
      if (change.outboxSet?.size) raw.hset(consoleKeys.alertOutbox, change.outboxSet);
      if (change.outboxDel?.length) raw.hdel(consoleKeys.alertOutbox, ...change.outboxDel);
      if (change.history?.length) {
        raw.lpush(consoleKeys.alertHistory, ...change.history);
        raw.ltrim(consoleKeys.alertHistory, 0, Math.max(1, change.historyMax) - 1);
      }
    },
  };
  return api;
}
