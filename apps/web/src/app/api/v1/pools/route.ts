import { PageQuerySchema, PoolListSchema } from "@fleet/schema";

import { byString, page } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toPoolSummary } from "@/server/api/serialize";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/pools",
  role: "viewer",
  query: PageQuerySchema,
  response: PoolListSchema,
  handler: async ({ backend, query }) => {
    const names = (await backend.poolNames()).sort(byString);
    const summaries = await backend.poolSummaries(page(names, query));
    return { total: names.length, pools: summaries.map(toPoolSummary) };
  },
});
