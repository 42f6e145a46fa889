import { PoolItemSchema, PreviewQuerySchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { route } from "@/server/api/route";
import { toPoolItem } from "@/server/api/serialize";
import { noteAction } from "@/server/audit/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * One item with what looks like a secret NOT masked (src/server/api/secrets.ts): an operator's
 * deliberate act, a POST so that it is recorded in the audit trail (pool.item.reveal, with
 * the paths that were masked; never the values). Viewers get 403 and only ever see masks.
 */
export const POST = route({
  path: "/pools/[name]/items/[id]/reveal",
  role: "operator",
  query: PreviewQuerySchema,
  response: PoolItemSchema,
  handler: async ({ backend, params, query }) => {
    const [item] = await backend.poolItemsByIds(params.name, [params.id]);
    if (!item) throw notFound(`Pool '${params.name}' has no item '${params.id}'.`);
    noteAction({ pool: params.name, item_id: params.id, masked: toPoolItem(item, 0).masked ?? [] });
    return toPoolItem(item, query.preview_bytes, { reveal: true });
  },
});
