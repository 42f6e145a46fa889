import { KvKeyListSchema, PageQuerySchema } from "@fleet/schema";
import { z } from "zod";

import { KvNamespaceParamSchema, byString, page, requireExistingOrKnown } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/kv/[ns]",
  role: "viewer",
  params: z.object({ ns: KvNamespaceParamSchema }),
  query: PageQuerySchema,
  response: KvKeyListSchema,
  handler: async ({ backend, params, query }) => {
    const keys = (await backend.kvKeys(params.ns)).sort((a, b) => byString(a.key, b.key));
    if (keys.length === 0) await requireExistingOrKnown(backend, "kv namespace", params.ns, false);
    return {
      total: keys.length,
      keys: page(keys, query).map((k) => ({ key: k.key, ttl_ms: k.ttlMs, bytes: k.bytes })),
    };
  },
});
