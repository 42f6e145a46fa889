import { BulkRemoveWorkersBodySchema, BulkRemoveWorkersResultSchema } from "@fleet/schema";

import { route } from "@/server/api/route";
import { bulkRemoveWorkers } from "@/server/api/worker-bulk";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Remove offline workers in bulk (issue 14.4): named ones, or every offline one matching a filter. Admin, as removing one worker is. */
export const POST = route({
  path: "/workers/bulk-remove",
  role: "admin",
  body: BulkRemoveWorkersBodySchema,
  response: BulkRemoveWorkersResultSchema,
  handler: ({ backend, body, now, offlineAfterSeconds }) => bulkRemoveWorkers(backend, body, now, offlineAfterSeconds),
});
