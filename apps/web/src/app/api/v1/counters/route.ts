import { CounterListSchema, PageQuerySchema } from "@fleet/schema";

import { page, rawForDisplay } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { getDiscovery } from "@/server/backend";
import { liveCounters } from "@/server/live-names";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/counters",
  role: "viewer",
  query: PageQuerySchema,
  response: CounterListSchema,
  handler: async ({ backend, query }) => {
    const counters = await liveCounters(backend, await getDiscovery());
    return {
      total: counters.length,
      counters: page(counters, query).map((c) =>
        c.value === null ? { name: c.name, value: null, raw: rawForDisplay(c.raw), corrupt: ["value"] } : { name: c.name, value: c.value },
      ),
    };
  },
});
