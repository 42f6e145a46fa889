// POST /api/v1/queues/{name}/bulk/{id}/cancel: stops a running bulk job after its current
// chunk (issue 14.2); what it already did stays done.
import { BulkJobSchema } from "@fleet/schema";

import { route } from "@/server/api/route";
import { getBulkRunner } from "@/server/bulk";
import { cancelJob } from "@/server/bulk/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = route({
  path: "/queues/[name]/bulk/[id]/cancel",
  role: "operator",
  response: BulkJobSchema,
  handler: async ({ backend, params, principal }) => cancelJob(backend, params.name, params.id, principal, getBulkRunner()),
});
