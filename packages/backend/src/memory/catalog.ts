// The catalog of automation types (fleet:catalog) in memory: the CatalogBackend part of the contract.

import { CATALOG_HASH } from "../keys";
import type { CatalogBackend, BytesLike } from "../types";
import { cmp } from "../shared";
import type { MemoryContext } from "./context";

export function memoryCatalog(ctx: MemoryContext): CatalogBackend {
  const { raw } = ctx;
  return {
    async catalogSet(automationType: string, doc: BytesLike): Promise<void> {
      raw.hset(CATALOG_HASH, { [automationType]: doc });
    },

    async catalogGet(automationType: string): Promise<Buffer | null> {
      return raw.hget(CATALOG_HASH, automationType);
    },

    async catalogTypes(): Promise<string[]> {
      return raw.type(CATALOG_HASH) === "hash" ? [...raw.hgetall(CATALOG_HASH).keys()].sort(cmp) : [];
    },

    async catalogAll(): Promise<Map<string, Buffer>> {
      // sorted by type, as the Redis implementation returns them
      return new Map([...raw.hgetall(CATALOG_HASH)].sort(([a], [b]) => cmp(a, b)));
    },

    async catalogDelete(automationType: string): Promise<boolean> {
      return raw.hdel(CATALOG_HASH, automationType) > 0;
    },

    async catalogReplace(entries: Map<string, BytesLike>): Promise<void> {
      raw.del(CATALOG_HASH);
      if (entries.size > 0) raw.hset(CATALOG_HASH, new Map(entries));
    },
  };
}
