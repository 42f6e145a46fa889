import { PoolReleasedSchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { announceAdmin } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Drops the item's claim; `released` says whether there was one. */
export const POST = route({
  path: "/pools/[name]/items/[id]/release",
  role: "operator",
  response: PoolReleasedSchema,
  handler: async ({ backend, params }) => {
    if ((await backend.poolItemsByIds(params.name, [params.id])).length === 0) throw notFound(`Pool '${params.name}' has no item '${params.id}'.`);
    const released = await backend.poolRelease(params.name, params.id);
    if (released) await announceAdmin(backend, "pool.item.release", { pool: params.name, item_id: params.id });
    return { released };
  },
});
