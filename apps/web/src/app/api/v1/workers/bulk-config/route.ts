import { BulkConfigBodySchema, BulkConfigResultSchema } from "@fleet/schema";

import { route } from "@/server/api/route";
import { bulkConfigWorkers } from "@/server/api/worker-bulk";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** One config change to selected workers of one automation, each at the generation the review showed (issue 14.4). Admin, as config writes are. */
export const POST = route({
  path: "/workers/bulk-config",
  role: "admin",
  body: BulkConfigBodySchema,
  response: BulkConfigResultSchema,
  handler: ({ backend, body }) => bulkConfigWorkers(backend, body),
});
