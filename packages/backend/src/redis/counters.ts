// Counters (fleet:counter:<name>) over Redis: the CountersBackend part of the contract.
import { parseIntStrict, decodeUtf8 } from "../codec";
import { CorruptDataError, checkCounterValue } from "../errors";
import { keys } from "../keys";
import type { CountersBackend, CounterSummary } from "../types";
import { mapRedisError } from "./connection";
import { scanKeys, type RedisContext } from "./context";
import { asBuffer } from "./replies";

export function redisCounters(ctx: RedisContext): CountersBackend {
  return {
    async counterIncr(name: string, by: number): Promise<number> {
      return ctx.run(async (r) => {
        try {
          return await r.incrby(keys.counter(name), by);
        } catch (err) {
          const mapped = mapRedisError(ctx.rawUrl, err);
          if (mapped instanceof Error && /not an integer|overflow/i.test(mapped.message)) {
            throw new CorruptDataError(`counter ${name} does not hold an integer`);
          }
          throw mapped;
        }
      });
    },

    async counterGet(name: string): Promise<number> {
      return ctx.run(async (r) => {
        const raw = await r.getBuffer(keys.counter(name));
        if (raw === null) return 0;
        const text = decodeUtf8(raw);
        const n = text === null ? null : parseIntStrict(text);
        if (n === null) throw new CorruptDataError(`counter ${name} does not hold an integer`);
        return n;
      });
    },

    async counterSet(name: string, value: number): Promise<void> {
      checkCounterValue(value);
      await ctx.run((r) => r.set(keys.counter(name), String(value)));
    },

    async counterDel(name: string): Promise<boolean> {
      return ctx.run(async (r) => (await r.del(keys.counter(name))) > 0);
    },

    async counterList(): Promise<CounterSummary[]> {
      return ctx.run(async (r) => {
        const found = await scanKeys(r, "fleet:counter:*");
        if (found.length === 0) return [];
        const p = r.pipeline();
        for (const k of found) p.getBuffer(k);
        const res = await ctx.conn.exec(p);
        const out: CounterSummary[] = [];
        found.forEach((k, i) => {
          const [err, v] = res[i]!;
          const raw = err ? Buffer.alloc(0) : asBuffer(v);
          if (raw === null) return;
          const text = err ? null : decodeUtf8(raw);
          out.push({ name: k.slice("fleet:counter:".length), value: text === null ? null : parseIntStrict(text), raw });
        });
        return out;
      });
    },

    async counterSummaries(names: string[]): Promise<CounterSummary[]> {
      if (names.length === 0) return [];
      return ctx.run(async (r) => {
        const p = r.pipeline();
        for (const n of names) p.getBuffer(keys.counter(n));
        const res = await ctx.conn.exec(p);
        const out: CounterSummary[] = [];
        names.forEach((name, i) => {
          const [err, v] = res[i]!;
          // a key of another type (GET answers WRONGTYPE) is a counter that does not hold an integer
          const raw = err ? Buffer.alloc(0) : asBuffer(v);
          if (raw === null) return;
          const text = err ? null : decodeUtf8(raw);
          out.push({ name, value: text === null ? null : parseIntStrict(text), raw });
        });
        return out;
      });
    },
  };
}
