// The console's watch over Redis (the WatchBackend part of the contract, ../watch-types.ts):
// queue probes in one pipeline, history rings, alert rules and alert state.
import type { Redis } from "ioredis";
import { parseIntStrict, toBuffer } from "../codec";
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
import { nowSeconds, toPx } from "../shared";
import { callScript, isWrongTypeError, mapRedisError } from "./connection";
import { EMPTY, type RedisContext } from "./context";
import { DEPTH_REPLIES, depthsFrom, queueDepthCommands } from "./queues";
import { asBuffer, asBufferArray, asNumber, hashRecord } from "./replies";

const WATCH_PRIORITIES: readonly Priority[] = ["high", "normal", "low"];

/** One queue-probe-1.lua reply: [length, tail, tail bytes, 1 + the mark found (0: none), its position]. */
function pendingListWatch(v: unknown): PendingListWatch {
  const [len, tail, tailBytes, found, pos] = Array.isArray(v) ? v : [];
  const mark = asNumber(found);
  return {
    length: asNumber(len) || 0,
    tail: asBuffer(tail),
    tailBytes: asNumber(tailBytes) || 0,
    found: mark > 0 ? { mark: mark - 1, position: asNumber(pos) } : null,
  };
}

export function redisWatch(ctx: RedisContext): WatchBackend {
  return {
    async queueWatch(queues: QueueWatchRequest[], opts: QueueWatchOptions): Promise<QueueWatch[]> {
      if (queues.length === 0) return [];
      const t = opts.now ?? nowSeconds();
      return ctx.run(async (r) => {
        // One pipeline for every queue: its depth reads and one probe script per pending list.
        const p = r.pipeline();
        for (const q of queues) {
          queueDepthCommands(p, q.name, t);
          for (const priority of WATCH_PRIORITIES) {
            const marks = q.marks?.[priority] ?? [];
            // queued on the pipeline: its answer comes back from exec() below
            void callScript(p as unknown as Redis, "queueProbe", [queueKeyForPriority(q.name, priority)], [String(opts.maxTailBytes), String(opts.maxScan), ...marks], {
              buffer: true,
            });
          }
        }
        const res = await ctx.conn.exec(p);
        const per = DEPTH_REPLIES + WATCH_PRIORITIES.length;
        return queues.map((q, i) => {
          const row = res.slice(i * per, i * per + per);
          const lists = {} as Record<Priority, PendingListWatch>;
          WATCH_PRIORITIES.forEach((priority, j) => {
            const [err, value] = row[DEPTH_REPLIES + j]!;
            // a pending list of another type (flagged corrupt by the depths) probes as empty
            if (err && !isWrongTypeError(err)) throw mapRedisError(ctx.rawUrl, err);
            lists[priority] = pendingListWatch(err ? null : value);
          });
          return { depths: depthsFrom(ctx.rawUrl, q.name, row.slice(0, DEPTH_REPLIES)), lists };
        });
      });
    },

    async historyWrite(slots: HistorySlotWrite[], opts: { ttlSeconds: number; latest?: Map<string, Buffer> }): Promise<void> {
      if (slots.length === 0 && !opts.latest) return;
      const ttlMs = String(toPx(opts.ttlSeconds));
      await ctx.run(async (r) => {
        const m = r.multi();
        const rings = new Set<string>();
        for (const s of slots) {
          const key = consoleKeys.history(s.tier, s.series);
          m.setrange(key, s.offset, s.bytes);
          rings.add(key);
        }
        for (const key of rings) m.pexpire(key, ttlMs);
        if (opts.latest) {
          m.del(consoleKeys.historyLatest);
          if (opts.latest.size > 0) m.hset(consoleKeys.historyLatest, opts.latest);
        }
        await ctx.conn.execValues(m);
      });
    },

    async historyRead(reads: HistoryRangeRead[]): Promise<Buffer[]> {
      if (reads.length === 0) return [];
      return ctx.run(async (r) => {
        const p = r.pipeline();
        for (const rd of reads) p.getrangeBuffer(consoleKeys.history(rd.tier, rd.series), rd.offset, rd.offset + Math.max(0, rd.length) - 1);
        const v = await ctx.conn.execValues(p);
        return v.map((x) => asBuffer(x) ?? EMPTY);
      });
    },

    async historyLatest(): Promise<Map<string, Buffer>> {
      return ctx.run(async (r) => new Map(Object.entries(hashRecord(await r.hgetallBuffer(consoleKeys.historyLatest)))));
    },

    async alertRulesGet(): Promise<{ doc: Buffer | null; gen: number }> {
      return ctx.run(async (r) => {
        const [doc, gen] = await r.hmgetBuffer(consoleKeys.alertRules, "doc", "gen");
        const n = gen ? parseIntStrict(gen.toString("utf8")) : 0;
        if (n === null) throw new CorruptDataError(`${consoleKeys.alertRules} has a generation that is not an integer`);
        return { doc: doc ?? null, gen: n };
      });
    },

    async alertRulesSet(doc: BytesLike, expectedGen: number): Promise<{ gen: number }> {
      return ctx.run(async (r) => {
        const [ok, gen] = (await callScript(r, "alertRulesSet", [consoleKeys.alertRules], [toBuffer(doc), String(expectedGen)])) as unknown[];
        if (asNumber(ok) !== 1) throw new StaleGenerationError(expectedGen, asNumber(gen));
        return { gen: asNumber(gen) };
      });
    },

    async alertStateRead(historyLimit: number): Promise<AlertStateRead> {
      return ctx.run(async (r) => {
        const p = r.pipeline().hgetallBuffer(consoleKeys.alertFiring).hgetallBuffer(consoleKeys.alertOutbox).llen(consoleKeys.alertHistory);
        if (historyLimit > 0) p.lrangeBuffer(consoleKeys.alertHistory, 0, historyLimit - 1);
        const [firing, outbox, total, history] = await ctx.conn.execValues(p);
        return {
          firing: new Map(Object.entries(hashRecord(firing))),
          outbox: new Map(Object.entries(hashRecord(outbox))),
          history: asBufferArray(history),
          historyTotal: asNumber(total),
        };
      });
    },

    async alertStateWrite(change: AlertStateChange): Promise<void> {
      await ctx.run(async (r) => {
        const m = r.multi();
        if (change.firingSet?.size) m.hset(consoleKeys.alertFiring, change.firingSet);
        if (change.firingDel?.length) m.hdel(consoleKeys.alertFiring, ...change.firingDel);
        if (change.outboxSet?.size) m.hset(consoleKeys.alertOutbox, change.outboxSet);
        if (change.outboxDel?.length) m.hdel(consoleKeys.alertOutbox, ...change.outboxDel);
        if (change.history?.length) {
          m.lpush(consoleKeys.alertHistory, ...change.history);
          m.ltrim(consoleKeys.alertHistory, 0, Math.max(1, change.historyMax) - 1);
        }
        await ctx.conn.execValues(m);
      });
    },
  };
}
