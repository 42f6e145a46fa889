// Key-value entries (fleet:kv:<ns>:<key>) in memory: the KvBackend part of the contract.

import { keys, kvPartsOfKey } from "../keys";
import type { KvBackend, BytesLike, KvKeySummary, KvKeysPage, KvNamespaceSummary } from "../types";
import { cmp } from "../shared";
import { ttlMs, type MemoryContext } from "./context";

function byteSize(ctx: MemoryContext, key: string): number {
  return ctx.raw.type(key) === "string" ? ctx.raw.strlen(key) : 0;
}

export function memoryKv(ctx: MemoryContext): KvBackend {
  const { raw } = ctx;
  const api: KvBackend = {
    async kvSet(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<void> {
      raw.set(keys.kv(ns, key), value, { ttlMs: ttlMs(ttlSeconds) });
    },

    async kvSetNx(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<boolean> {
      return raw.set(keys.kv(ns, key), value, { nx: true, ttlMs: ttlMs(ttlSeconds) });
    },

    async kvGet(ns: string, key: string): Promise<Buffer | null> {
      return raw.get(keys.kv(ns, key));
    },

    async kvDel(ns: string, key: string): Promise<boolean> {
      return raw.del(keys.kv(ns, key)) > 0;
    },

    async kvGetEntry(ns: string, key: string): Promise<{ value: Buffer; ttlMs: number | null } | null> {
      const k = keys.kv(ns, key);
      const value = raw.get(k);
      if (value === null) return null;
      const pttl = raw.pttl(k);
      return { value, ttlMs: pttl >= 0 ? pttl : null };
    },

    async kvNamespaces(): Promise<KvNamespaceSummary[]> {
      const counts = new Map<string, number>();
      for (const k of raw.keysWithPrefix("fleet:kv:")) {
        const parts = kvPartsOfKey(k);
        if (parts) counts.set(parts.ns, (counts.get(parts.ns) ?? 0) + 1);
      }
      return [...counts.entries()].sort(([a], [b]) => cmp(a, b)).map(([ns, n]) => ({ ns, keys: n }));
    },

    async kvKeys(ns: string): Promise<KvKeySummary[]> {
      const prefix = keys.kv(ns, "");
      return raw
        .keysWithPrefix(prefix)
        .filter((k) => kvPartsOfKey(k)?.ns === ns)
        .map((k) => {
          const pttl = raw.pttl(k);
          return { key: k.slice(prefix.length), ttlMs: pttl >= 0 ? pttl : null, bytes: byteSize(ctx, k) };
        })
        .sort((a, b) => cmp(a.key, b.key));
    },

    async kvKeySummaries(ns: string, names: string[]): Promise<KvKeySummary[]> {
      const out: KvKeySummary[] = [];
      for (const key of names) {
        const k = keys.kv(ns, key);
        if (!raw.exists(k)) continue;
        const pttl = raw.pttl(k);
        out.push({ key, ttlMs: pttl >= 0 ? pttl : null, bytes: byteSize(ctx, k) });
      }
      return out;
    },

    async kvKeysPage(ns: string, cursor: string, limit: number): Promise<KvKeysPage> {
      // The cursor is "0" or "k" + the last key answered: keys come in code-unit order.
      if (cursor !== "0" && !cursor.startsWith("k")) throw new RangeError(`not a kv page cursor: '${cursor}'`);
      const after = cursor === "0" ? null : cursor.slice(1);
      const prefix = keys.kv(ns, "");
      const all = raw
        .keysWithPrefix(prefix)
        .filter((k) => kvPartsOfKey(k)?.ns === ns)
        .map((k) => k.slice(prefix.length))
        .filter((k) => after === null || k > after)
        .sort(cmp);
      const page = all.slice(0, Math.max(1, limit));
      const more = all.length > page.length;
      return { keys: await api.kvKeySummaries(ns, page), cursor: more ? `k${page[page.length - 1]!}` : "0" };
    },
  };
  return api;
}
