import { KvNamespaceListSchema, PageQuerySchema } from "@fleet/schema";

import { byString, page } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/kv",
  role: "viewer",
  query: PageQuerySchema,
  response: KvNamespaceListSchema,
  handler: async ({ backend, query }) => {
    const namespaces = (await backend.kvNamespaces()).sort((a, b) => byString(a.ns, b.ns));
    return { total: namespaces.length, namespaces: page(namespaces, query) };
  },
});
