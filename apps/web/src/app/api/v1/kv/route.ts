import { KvNamespaceListSchema, PageQuerySchema } from "@fleet/schema";

import { page } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { getDiscovery } from "@/server/backend";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/kv",
  role: "viewer",
  query: PageQuerySchema,
  response: KvNamespaceListSchema,
  // Counted by the name discovery's walk (plus the console's own writes since): no request
  // walks the key space. See apps/web/README.md for how current the counts are.
  // One DBSIZE beside it (O(1)) so that a down Redis answers 503, not the last counts.
  handler: async ({ backend, query }) => {
    const [namespaces] = await Promise.all([getDiscovery().then((d) => d.kvNamespaces()), backend.keyCount()]);
    return { total: namespaces.length, namespaces: page(namespaces, query) };
  },
});
