// Counters (fleet:counter:<name>) in memory: the CountersBackend part of the contract.

import { decodeUtf8, parseIntStrict } from "../codec";
import { CorruptDataError, checkCounterValue } from "../errors";
import { keys } from "../keys";
import type { CountersBackend, CounterSummary } from "../types";
import type { MemoryContext } from "./context";

export function memoryCounters(ctx: MemoryContext): CountersBackend {
  const { raw: store } = ctx;
  return {
    async counterIncr(name: string, by: number): Promise<number> {
      return store.incrBy(keys.counter(name), by);
    },

    async counterGet(name: string): Promise<number> {
      const raw = store.get(keys.counter(name));
      if (raw === null) return 0;
      const text = decodeUtf8(raw);
      const n = text === null ? null : parseIntStrict(text);
      if (n === null) throw new CorruptDataError(`${keys.counter(name)} does not hold an integer`);
      return n;
    },

    async counterSet(name: string, value: number): Promise<void> {
      checkCounterValue(value);
      store.set(keys.counter(name), String(value));
    },

    async counterDel(name: string): Promise<boolean> {
      return store.del(keys.counter(name)) > 0;
    },

    async counterList(): Promise<CounterSummary[]> {
      const prefix = keys.counter("");
      return store.keysWithPrefix(prefix).map((k) => {
        // a key of another type is listed unreadable (value null, no bytes), as Redis's GET fails on it
        if (store.type(k) !== "string") return { name: k.slice(prefix.length), value: null, raw: Buffer.alloc(0) };
        const raw = store.get(k)!;
        const text = decodeUtf8(raw);
        return { name: k.slice(prefix.length), value: text === null ? null : parseIntStrict(text), raw };
      });
    },

    async counterSummaries(names: string[]): Promise<CounterSummary[]> {
      const out: CounterSummary[] = [];
      for (const name of names) {
        const k = keys.counter(name);
        const type = store.type(k);
        if (type === "none") continue;
        // a key of another type is a counter that does not hold an integer, as on Redis
        const raw = type === "string" ? store.get(k)! : Buffer.alloc(0);
        const text = type === "string" ? decodeUtf8(raw) : null;
        out.push({ name, value: text === null ? null : parseIntStrict(text), raw });
      }
      return out;
    },
  };
}
