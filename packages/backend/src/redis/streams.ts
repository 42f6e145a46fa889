// Streams (stream:<name>, a zset scored by push time) over Redis: the StreamsBackend part of the contract.
import { toBuffer } from "../codec";
import { keys } from "../keys";
import { pyFloatRepr } from "../pyjson";
import type { StreamsBackend, BytesLike, StreamEntry, StreamSummary } from "../types";
import { nowSeconds } from "../shared";
import { isWrongTypeError, mapRedisError } from "./connection";
import { scanKeys, type RedisContext } from "./context";
import { asNumber, scoredPairs } from "./replies";

export function redisStreams(ctx: RedisContext): StreamsBackend {
  return {
    async streamPush(name: string, envelope: BytesLike, opts: { score: number; maxLen: number; ttlSeconds: number }): Promise<void> {
      const key = keys.stream(name);
      const score = pyFloatRepr(opts.score);
      await ctx.run(async (r) => {
        const m = r.multi().zadd(key, score, toBuffer(envelope));
        if (opts.ttlSeconds > 0) m.zremrangebyscore(key, 0, pyFloatRepr(opts.score - opts.ttlSeconds));
        if (opts.maxLen > 0) m.zremrangebyrank(key, 0, -(opts.maxLen + 1));
        // Python publishes str(score): repr of the float.
        m.publish(keys.event(`${name}.emit`), score);
        await ctx.conn.execValues(m);
      });
    },

    async streamPop(name: string, n: number): Promise<Buffer[]> {
      if (n <= 0) return [];
      return ctx.run(async (r) => scoredPairs(await r.zpopminBuffer(keys.stream(name), n)).map(([m]) => m));
    },

    async streamPeek(name: string, n: number): Promise<Buffer[]> {
      if (n <= 0) return [];
      return ctx.run((r) => r.zrangeBuffer(keys.stream(name), 0, String(n - 1)));
    },

    async streamLength(name: string): Promise<number> {
      return ctx.run((r) => r.zcard(keys.stream(name)));
    },

    async streamTrim(name: string, opts: { maxLen: number; ttlSeconds: number }): Promise<void> {
      const key = keys.stream(name);
      if (opts.ttlSeconds <= 0 && opts.maxLen <= 0) return;
      await ctx.run(async (r) => {
        const m = r.multi();
        if (opts.ttlSeconds > 0) m.zremrangebyscore(key, 0, pyFloatRepr(nowSeconds() - opts.ttlSeconds));
        if (opts.maxLen > 0) m.zremrangebyrank(key, 0, -(opts.maxLen + 1));
        await ctx.conn.execValues(m);
      });
    },

    async streamNames(): Promise<string[]> {
      return ctx.run(async (r) => (await scanKeys(r, "stream:*")).map((k) => k.slice("stream:".length)).filter((n) => n.length > 0));
    },

    async streamSummaries(names: string[]): Promise<StreamSummary[]> {
      if (names.length === 0) return [];
      return ctx.run(async (r) => {
        const p = r.pipeline();
        for (const n of names) p.zcard(keys.stream(n)).zrange(keys.stream(n), 0, "0", "WITHSCORES").zrange(keys.stream(n), -1, "-1", "WITHSCORES");
        const res = await ctx.conn.exec(p);
        const v = res.map(([, x]) => x);
        return names.map((name, i) => {
          const err = res[3 * i]![0];
          if (err) {
            // a key of another type reads as an empty stream, marked, rather than failing the page
            if (!isWrongTypeError(err)) throw mapRedisError(ctx.rawUrl, err);
            return { name, length: 0, oldest: null, newest: null, corrupt: ["entries"] };
          }
          const oldest = scoredPairs(v[3 * i + 1])[0];
          const newest = scoredPairs(v[3 * i + 2])[0];
          return { name, length: asNumber(v[3 * i]), oldest: oldest ? oldest[1] : null, newest: newest ? newest[1] : null };
        });
      });
    },

    async streamRange(name: string, limit: number, order: "newest" | "oldest"): Promise<StreamEntry[]> {
      if (limit <= 0) return [];
      const key = keys.stream(name);
      return ctx.run(async (r) => {
        const reply = order === "newest" ? await r.zrangeBuffer(key, 0, String(limit - 1), "REV", "WITHSCORES") : await r.zrangeBuffer(key, 0, String(limit - 1), "WITHSCORES");
        return scoredPairs(reply).map(([envelope, score]) => ({ score, envelope }));
      });
    },
  };
}
