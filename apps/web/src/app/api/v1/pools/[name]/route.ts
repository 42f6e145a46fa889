import { CorruptDataError, type PoolItemRecord } from "@fleet/backend";
import { PageQuerySchema, PoolDeletedSchema, PoolDetailSchema, PreviewQuerySchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { announceAdmin, page, requireExistingOrKnown } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toPoolItem } from "@/server/api/serialize";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/pools/[name]",
  role: "viewer",
  query: PageQuerySchema.extend(PreviewQuerySchema.shape),
  response: PoolDetailSchema,
  handler: async ({ backend, params, query }) => {
    let items: PoolItemRecord[];
    try {
      items = await backend.poolItems(params.name);
    } catch (err) {
      // a key of another type: an empty pool marked corrupt, as the list shows it
      const [summary] = err instanceof CorruptDataError ? await backend.poolSummaries([params.name]) : [];
      if (!summary?.corrupt) throw err;
      return { total: 0, items: [], corrupt: summary.corrupt };
    }
    if (items.length === 0) await requireExistingOrKnown(backend, "pool", params.name, false);
    return { total: items.length, items: page(items, query).map((i) => toPoolItem(i, query.preview_bytes)) };
  },
});

/** Removes the pool hash and every claim key of its items. */
export const DELETE = route({
  path: "/pools/[name]",
  role: "admin",
  response: PoolDeletedSchema,
  handler: async ({ backend, params }) => {
    if ((await backend.poolSize(params.name)) === 0) throw notFound(`There is no pool named '${params.name}'.`);
    const result = await backend.poolDelete(params.name);
    await announceAdmin(backend, "pool.delete", { pool: params.name, items: result.items });
    return result;
  },
});
