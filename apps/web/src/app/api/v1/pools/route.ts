import { PageQuerySchema, PoolListSchema } from "@fleet/schema";

import { page } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toPoolSummary } from "@/server/api/serialize";
import { getDiscovery } from "@/server/backend";
import { livePools } from "@/server/live-names";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/pools",
  role: "viewer",
  query: PageQuerySchema,
  response: PoolListSchema,
  handler: async ({ backend, query }) => {
    const pools = await livePools(backend, await getDiscovery());
    return { total: pools.length, pools: page(pools, query).map(toPoolSummary) };
  },
});
