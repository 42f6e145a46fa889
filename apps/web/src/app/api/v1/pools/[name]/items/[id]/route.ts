import { DeletedSchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { announceAdmin } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Removes the item and its claim. */
export const DELETE = route({
  path: "/pools/[name]/items/[id]",
  role: "operator",
  response: DeletedSchema,
  handler: async ({ backend, params }) => {
    // checked first: Python's pool_remove also drops a stray claim of a missing item,
    // and a 404 must leave Redis as it was
    const items = await backend.poolItems(params.name);
    if (!items.some((i) => i.id === params.id)) throw notFound(`Pool '${params.name}' has no item '${params.id}'.`);
    const removed = await backend.poolRemove(params.name, params.id);
    if (!removed) throw notFound(`Pool '${params.name}' has no item '${params.id}'.`);
    await announceAdmin(backend, "pool.item.delete", { pool: params.name, item_id: params.id });
    return { deleted: true };
  },
});
