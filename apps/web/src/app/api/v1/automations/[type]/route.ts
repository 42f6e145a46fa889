import { AutomationSchema } from "@fleet/schema";

import { getAutomation } from "@/server/api/automations";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/automations/[type]",
  role: "viewer",
  response: AutomationSchema,
  handler: ({ backend, params, now, offlineAfterSeconds }) => getAutomation(backend, params.type, now, offlineAfterSeconds),
});
