import { AutomationListSchema, PageQuerySchema } from "@fleet/schema";

import { listAutomations } from "@/server/api/automations";
import { page } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/automations",
  role: "viewer",
  query: PageQuerySchema,
  response: AutomationListSchema,
  handler: async ({ backend, query, now, offlineAfterSeconds }) => {
    const automations = await listAutomations(backend, now, offlineAfterSeconds);
    return { total: automations.length, automations: page(automations, query) };
  },
});
