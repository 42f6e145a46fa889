// The catalog of automation types (fleet:catalog, a hash) over Redis: the CatalogBackend part of the contract.
import { toBuffer } from "../codec";
import { CATALOG_HASH } from "../keys";
import type { CatalogBackend, BytesLike } from "../types";
import type { RedisContext } from "./context";
import { hashRecord } from "./replies";

export function redisCatalog(ctx: RedisContext): CatalogBackend {
  return {
    async catalogSet(automationType: string, doc: BytesLike): Promise<void> {
      await ctx.run((r) => r.hset(CATALOG_HASH, automationType, toBuffer(doc)));
    },

    async catalogGet(automationType: string): Promise<Buffer | null> {
      return ctx.run((r) => r.hgetBuffer(CATALOG_HASH, automationType));
    },

    async catalogTypes(): Promise<string[]> {
      return ctx.run(async (r) => (await r.hkeys(CATALOG_HASH)).sort());
    },

    async catalogAll(): Promise<Map<string, Buffer>> {
      return ctx.run(async (r) => {
        const rec = hashRecord(await r.hgetallBuffer(CATALOG_HASH));
        return new Map(
          Object.keys(rec)
            .sort()
            .map((k) => [k, rec[k]!]),
        );
      });
    },

    async catalogDelete(automationType: string): Promise<boolean> {
      return ctx.run(async (r) => (await r.hdel(CATALOG_HASH, automationType)) > 0);
    },

    async catalogReplace(entries: Map<string, BytesLike>): Promise<void> {
      await ctx.run(async (r) => {
        const m = r.multi().del(CATALOG_HASH);
        if (entries.size > 0) m.hset(CATALOG_HASH, new Map([...entries].map(([k, v]) => [k, toBuffer(v)])));
        const res = await m.exec();
        const failed = res?.find(([err]) => err);
        if (!res || failed) throw failed?.[0] ?? new Error("catalog replace was aborted");
      });
    },
  };
}
