// Key-value entries (fleet:kv:<ns>:<key>) over Redis: the KvBackend part of the contract.
import { escapeGlob, toBuffer } from "../codec";
import { keys, kvPartsOfKey } from "../keys";
import type { KvBackend, BytesLike, KvKeySummary, KvKeysPage, KvNamespaceSummary } from "../types";
import { toPx } from "../shared";
import { scanKeys, ttlMsOf, type RedisContext } from "./context";
import { asBuffer, asNumber } from "./replies";

/** SCAN COUNT ceiling and the slots one kv page may look at (a few milliseconds of Redis in all). */
const KV_PAGE_MAX_COUNT = 10_000;
const KV_PAGE_SCAN_BUDGET = 200_000;

export function redisKv(ctx: RedisContext): KvBackend {
  const api: KvBackend = {
    async kvSet(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<void> {
      const k = keys.kv(ns, key);
      await ctx.run(async (r) => {
        if (ttlSeconds != null && ttlSeconds > 0) await r.set(k, toBuffer(value), "PX", toPx(ttlSeconds));
        else await r.set(k, toBuffer(value));
      });
    },

    async kvSetNx(ns: string, key: string, value: BytesLike, ttlSeconds?: number | null): Promise<boolean> {
      const k = keys.kv(ns, key);
      return ctx.run(async (r) => {
        const res = ttlSeconds != null && ttlSeconds > 0 ? await r.set(k, toBuffer(value), "PX", toPx(ttlSeconds), "NX") : await r.set(k, toBuffer(value), "NX");
        return res === "OK";
      });
    },

    async kvGet(ns: string, key: string): Promise<Buffer | null> {
      return ctx.run((r) => r.getBuffer(keys.kv(ns, key)));
    },

    async kvDel(ns: string, key: string): Promise<boolean> {
      return ctx.run(async (r) => (await r.del(keys.kv(ns, key))) > 0);
    },

    async kvGetEntry(ns: string, key: string): Promise<{ value: Buffer; ttlMs: number | null } | null> {
      const k = keys.kv(ns, key);
      return ctx.run(async (r) => {
        const [value, pttl] = await ctx.conn.execValues(r.pipeline().getBuffer(k).pttl(k));
        const buf = asBuffer(value);
        return buf === null ? null : { value: buf, ttlMs: ttlMsOf(pttl) };
      });
    },

    async kvNamespaces(): Promise<KvNamespaceSummary[]> {
      return ctx.run(async (r) => {
        const counts = new Map<string, number>();
        for (const k of await scanKeys(r, "fleet:kv:*")) {
          const parts = kvPartsOfKey(k);
          if (parts) counts.set(parts.ns, (counts.get(parts.ns) ?? 0) + 1);
        }
        return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([ns, n]) => ({ ns, keys: n }));
      });
    },

    async kvKeys(ns: string): Promise<KvKeySummary[]> {
      return ctx.run(async (r) => {
        const found = (await scanKeys(r, `fleet:kv:${escapeGlob(ns)}:*`)).filter((k) => kvPartsOfKey(k)?.ns === ns);
        if (found.length === 0) return [];
        const p = r.pipeline();
        for (const k of found) p.pttl(k).strlen(k);
        const res = await ctx.conn.exec(p);
        const out: KvKeySummary[] = [];
        found.forEach((k, i) => {
          const [pErr, pttl] = res[2 * i]!;
          const [sErr, len] = res[2 * i + 1]!;
          if (pErr || asNumber(pttl) === -2) return; // vanished between SCAN and read
          out.push({ key: kvPartsOfKey(k)!.key, ttlMs: ttlMsOf(pttl), bytes: sErr ? 0 : asNumber(len) });
        });
        return out;
      });
    },

    async kvKeySummaries(ns: string, names: string[]): Promise<KvKeySummary[]> {
      if (names.length === 0) return [];
      return ctx.run(async (r) => {
        const p = r.pipeline();
        for (const key of names) p.pttl(keys.kv(ns, key)).strlen(keys.kv(ns, key));
        const res = await ctx.conn.exec(p);
        const out: KvKeySummary[] = [];
        names.forEach((key, i) => {
          const [pErr, pttl] = res[2 * i]!;
          const [sErr, len] = res[2 * i + 1]!;
          if (pErr || asNumber(pttl) === -2) return;
          out.push({ key, ttlMs: ttlMsOf(pttl), bytes: sErr ? 0 : asNumber(len) });
        });
        return out;
      });
    },

    async kvKeysPage(ns: string, cursor: string, limit: number, opts: { budget?: number; density?: number } = {}): Promise<KvKeysPage> {
      const budget = opts.budget ?? KV_PAGE_SCAN_BUDGET;
      if (!/^\d+$/.test(cursor)) throw new RangeError(`not a kv page cursor: '${cursor}'`);
      const match = `fleet:kv:${escapeGlob(ns)}:*`;
      const found = new Set<string>();
      let next = cursor;
      await ctx.run(async (r) => {
        // A dense namespace fills the page in a step or two; a sparse one grows the step
        // (fewer round trips) up to KV_PAGE_MAX_COUNT, and the page ends after
        // KV_PAGE_SCAN_BUDGET slots looked at, answering what it has and where to go on.
        const density = opts.density !== undefined && opts.density > 0 ? Math.min(1, opts.density) : 1;
        let count = Math.max(10, Math.min(Math.ceil(limit / density), KV_PAGE_MAX_COUNT, budget));
        let looked = 0;
        do {
          const [c, batch] = await r.scan(next, "MATCH", match, "COUNT", count);
          next = c;
          looked += count;
          for (const k of batch) {
            const parts = kvPartsOfKey(k);
            if (parts?.ns === ns) found.add(parts.key);
          }
          if (batch.length < count / 4) count = Math.min(count * 4, KV_PAGE_MAX_COUNT);
        } while (next !== "0" && found.size < limit && looked < budget);
      });
      const sorted = [...found].sort();
      return { keys: await api.kvKeySummaries(ns, sorted), cursor: next };
    },
  };
  return api;
}
