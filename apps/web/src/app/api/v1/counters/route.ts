import { CounterListSchema, PageQuerySchema } from "@fleet/schema";

import { byString, page, rawForDisplay } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/counters",
  role: "viewer",
  query: PageQuerySchema,
  response: CounterListSchema,
  handler: async ({ backend, query }) => {
    const counters = (await backend.counterList()).sort((a, b) => byString(a.name, b.name));
    return {
      total: counters.length,
      counters: page(counters, query).map((c) =>
        c.value === null ? { name: c.name, value: null, raw: rawForDisplay(c.raw), corrupt: ["value"] } : { name: c.name, value: c.value },
      ),
    };
  },
});
