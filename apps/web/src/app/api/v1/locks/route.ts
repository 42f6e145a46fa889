import { LockListSchema, PageQuerySchema } from "@fleet/schema";

import { page } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { getDiscovery } from "@/server/backend";
import { liveLocks } from "@/server/live-names";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/locks",
  role: "viewer",
  query: PageQuerySchema,
  response: LockListSchema,
  handler: async ({ backend, query }) => {
    const locks = await liveLocks(backend, await getDiscovery());
    return { total: locks.length, locks: page(locks, query).map((l) => ({ name: l.name, ttl_ms: l.ttlMs })) };
  },
});
