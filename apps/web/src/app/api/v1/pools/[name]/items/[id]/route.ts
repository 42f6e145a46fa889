import { DeletedSchema, PoolItemSchema, PreviewQuerySchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { announceAdmin } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toPoolItem } from "@/server/api/serialize";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * One item, as GET /pools/{name} lists it (an extension of API.md): the console fetches a
 * single payload in full with `preview_bytes` instead of a whole page of them. One HMGET and
 * the claim's PTTL, whatever the pool's size.
 */
export const GET = route({
  path: "/pools/[name]/items/[id]",
  role: "viewer",
  query: PreviewQuerySchema,
  response: PoolItemSchema,
  handler: async ({ backend, params, query }) => {
    const [item] = await backend.poolItemsByIds(params.name, [params.id]);
    if (!item) {
      throw notFound(
        (await backend.poolSize(params.name)) === 0 ? `There is no pool named '${params.name}'.` : `Pool '${params.name}' has no item '${params.id}' (removed or never there).`,
      );
    }
    return toPoolItem(item, query.preview_bytes);
  },
});

/** Removes the item and its claim. */
export const DELETE = route({
  path: "/pools/[name]/items/[id]",
  role: "operator",
  response: DeletedSchema,
  handler: async ({ backend, params }) => {
    // checked first: Python's pool_remove also drops a stray claim of a missing item,
    // and a 404 must leave Redis as it was
    if ((await backend.poolItemsByIds(params.name, [params.id])).length === 0) throw notFound(`Pool '${params.name}' has no item '${params.id}'.`);
    const removed = await backend.poolRemove(params.name, params.id);
    if (!removed) throw notFound(`Pool '${params.name}' has no item '${params.id}'.`);
    await announceAdmin(backend, "pool.item.delete", { pool: params.name, item_id: params.id });
    return { deleted: true };
  },
});
