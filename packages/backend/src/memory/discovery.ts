// Name discovery primitives in memory (the DiscoveryBackend part of the contract): a cursor
// over the key space in code-unit order; no keyspace notifications, no key tracking.

import type { DiscoveryBackend, KeyScanPage, KeyspaceEvents, Subscription } from "../types";
import { cmp } from "../shared";
import type { MemoryContext } from "./context";

export function memoryDiscovery(ctx: MemoryContext): DiscoveryBackend {
  const { raw } = ctx;
  return {
    async keyScan(cursor: string, count: number): Promise<KeyScanPage> {
      // Keys in code-unit order after the cursor ("0", or "k" + the last key answered): a
      // key that exists for the whole walk is answered once, as SCAN guarantees.
      if (cursor !== "0" && !cursor.startsWith("k")) throw new RangeError(`not a SCAN cursor: '${cursor}'`);
      const after = cursor === "0" ? null : cursor.slice(1);
      const all = raw
        .keys()
        .filter((k) => (k.startsWith("fleet:") || k.startsWith("stream:")) && (after === null || k > after))
        .sort(cmp);
      const page = all.slice(0, Math.max(1, Math.floor(count)));
      return { cursor: all.length > page.length ? `k${page[page.length - 1]!}` : "0", keys: page };
    },

    async keyCount(): Promise<number> {
      return raw.keys().length;
    },

    async subscribeKeyspace(): Promise<KeyspaceEvents | null> {
      return null;
    },

    async trackKeys(): Promise<Subscription | null> {
      return null;
    },
  };
}
