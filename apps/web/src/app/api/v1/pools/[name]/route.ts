import { CorruptDataError, POOL_EXACT_UP_TO, type PoolItemRecord } from "@fleet/backend";
import { PoolDeletedSchema, PoolDetailSchema, PoolItemsQuerySchema, PreviewQuerySchema, type PoolDetail } from "@fleet/schema";

import { badRequest, notFound } from "@/server/api/errors";
import { announceAdmin, requireExistingOrKnown } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toPoolItem } from "@/server/api/serialize";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * One page of a pool's items, never the whole pool (issue 19.8). A pool of up to
 * POOL_EXACT_UP_TO items is paged by its sorted ids (the ids alone, then the page's items), by
 * offset or by an offset cursor (`o<n>`); a larger one only by an HSCAN cursor (`s<n>`), a
 * page at a time, each page sorted within itself. `total` is the pool's size (HLEN).
 */
export const GET = route({
  path: "/pools/[name]",
  role: "viewer",
  query: PoolItemsQuerySchema.extend(PreviewQuerySchema.shape),
  response: PoolDetailSchema,
  handler: async ({ backend, params, query }): Promise<PoolDetail> => {
    const { name } = params;
    const { cursor, limit } = query;
    const serialize = (items: PoolItemRecord[]) => items.map((i) => toPoolItem(i, query.preview_bytes));
    let size: number;
    try {
      size = await backend.poolSize(name);
    } catch (err) {
      // a key of another type: an empty pool marked corrupt, as the list shows it
      const [summary] = err instanceof CorruptDataError ? await backend.poolSummaries([name]) : [];
      if (!summary?.corrupt) throw err;
      return { total: 0, items: [], corrupt: summary.corrupt, ...(cursor !== undefined ? { next_cursor: null } : {}) };
    }
    if (size === 0) {
      await requireExistingOrKnown(backend, "pool", name, false);
      return cursor === undefined ? { total: 0, items: [] } : { total: 0, items: [], next_cursor: null };
    }
    if (cursor === undefined || cursor === "0" || cursor.startsWith("o")) {
      const ids = size <= POOL_EXACT_UP_TO ? await backend.poolItemIds(name, POOL_EXACT_UP_TO) : null;
      if (ids !== null) {
        const offset = cursor === undefined ? query.offset : cursor === "0" ? 0 : Number(cursor.slice(1));
        const pageIds = ids.slice(offset, offset + limit);
        const items = await backend.poolItemsByIds(name, pageIds);
        // an item removed between the two reads is left out, and out of the count
        const body: PoolDetail = { total: ids.length - (pageIds.length - items.length), items: serialize(items) };
        if (cursor !== undefined) body.next_cursor = offset + limit < ids.length ? `o${offset + limit}` : null;
        return body;
      }
      if (cursor?.startsWith("o")) throw badRequest(`The pool '${name}' grew too large for offsets while it was paged: start again with cursor=0.`);
      if (cursor === undefined && query.offset > 0) {
        throw badRequest(`The pool '${name}' has ${size} items: page it with cursor=0 and then each answer's next_cursor, not with offset.`);
      }
    }
    const from = cursor?.startsWith("s") ? cursor.slice(1) : "0";
    let page: Awaited<ReturnType<typeof backend.poolItemsScan>>;
    try {
      page = await backend.poolItemsScan(name, from, limit);
    } catch (err) {
      if (err instanceof RangeError) throw badRequest("cursor is not a next_cursor of an earlier answer.");
      throw err;
    }
    return { total: size, items: serialize(page.items), next_cursor: page.cursor === "0" ? null : `s${page.cursor}` };
  },
});

/**
 * Removes the pool hash and every claim key of its items: the pool is gone at once (renamed
 * in one step), its claim keys removed in chunks (Backend.poolDelete).
 */
export const DELETE = route({
  path: "/pools/[name]",
  role: "admin",
  response: PoolDeletedSchema,
  handler: async ({ backend, params }) => {
    if ((await backend.poolSize(params.name)) === 0) throw notFound(`There is no pool named '${params.name}'.`);
    const result = await backend.poolDelete(params.name);
    if (!result.deleted) throw notFound(`There is no pool named '${params.name}'.`);
    await announceAdmin(backend, "pool.delete", { pool: params.name, items: result.items });
    return result;
  },
});
