import { WorkerListSchema, WorkersQuerySchema } from "@fleet/schema";

import { route } from "@/server/api/route";
import { listWorkers } from "@/server/api/workers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/workers",
  role: "viewer",
  query: WorkersQuerySchema,
  response: WorkerListSchema,
  handler: ({ backend, query, now, offlineAfterSeconds }) => listWorkers(backend, query, now, offlineAfterSeconds),
});
