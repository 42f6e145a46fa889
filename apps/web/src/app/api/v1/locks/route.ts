import { LockListSchema, PageQuerySchema } from "@fleet/schema";

import { byString, page } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/locks",
  role: "viewer",
  query: PageQuerySchema,
  response: LockListSchema,
  handler: async ({ backend, query }) => {
    const locks = (await backend.lockList()).sort((a, b) => byString(a.name, b.name));
    return { total: locks.length, locks: page(locks, query).map((l) => ({ name: l.name, ttl_ms: l.ttlMs })) };
  },
});
