// Streams (stream:<name>, a zset scored by push time) in memory: the StreamsBackend part of the contract.

import { keys } from "../keys";
import { pyFloatRepr } from "../pyjson";
import type { StreamsBackend, BytesLike, StreamEntry, StreamSummary } from "../types";
import { cmp, nowSeconds } from "../shared";
import { wrongTypeAs, type MemoryContext } from "./context";

export function memoryStreams(ctx: MemoryContext): StreamsBackend {
  const { raw } = ctx;
  return {
    async streamPush(name: string, envelope: BytesLike, opts: { score: number; maxLen: number; ttlSeconds: number }): Promise<void> {
      const k = keys.stream(name);
      raw.zadd(k, opts.score, envelope);
      if (opts.ttlSeconds > 0) raw.zremRangeByScore(k, 0, opts.score - opts.ttlSeconds);
      if (opts.maxLen > 0) raw.zkeepNewest(k, opts.maxLen);
      ctx.publish(`${name}.emit`, Buffer.from(pyFloatRepr(opts.score)));
    },

    async streamPop(name: string, n: number): Promise<Buffer[]> {
      return raw.zpopmin(keys.stream(name), n).map((e) => e.member);
    },

    async streamPeek(name: string, n: number): Promise<Buffer[]> {
      return n > 0
        ? raw
            .zrange(keys.stream(name))
            .slice(0, n)
            .map((e) => e.member)
        : [];
    },

    async streamLength(name: string): Promise<number> {
      return raw.zcard(keys.stream(name));
    },

    async streamTrim(name: string, opts: { maxLen: number; ttlSeconds: number }): Promise<void> {
      const k = keys.stream(name);
      if (opts.ttlSeconds > 0) raw.zremRangeByScore(k, 0, nowSeconds() - opts.ttlSeconds);
      if (opts.maxLen > 0) raw.zkeepNewest(k, opts.maxLen);
    },

    async streamNames(): Promise<string[]> {
      const prefix = keys.stream("");
      return raw
        .keysWithPrefix(prefix)
        .map((k) => k.slice(prefix.length))
        .filter((n) => n.length > 0)
        .sort(cmp);
    },

    async streamSummaries(names: string[]): Promise<StreamSummary[]> {
      return names.map((name) => {
        const all = wrongTypeAs(null, () => raw.zrange(keys.stream(name)));
        if (all === null) return { name, length: 0, oldest: null, newest: null, corrupt: ["entries"] };
        return { name, length: all.length, oldest: all[0]?.score ?? null, newest: all[all.length - 1]?.score ?? null };
      });
    },

    async streamRange(name: string, limit: number, order: "newest" | "oldest"): Promise<StreamEntry[]> {
      if (limit <= 0) return [];
      const all = raw.zrange(keys.stream(name));
      const picked = order === "newest" ? all.reverse().slice(0, limit) : all.slice(0, limit);
      return picked.map((e) => ({ score: e.score, envelope: e.member }));
    },
  };
}
