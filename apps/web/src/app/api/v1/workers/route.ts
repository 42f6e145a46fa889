import { WorkerListSchema, WorkersQuerySchema } from "@fleet/schema";

import { route } from "@/server/api/route";
import { listWorkers } from "@/server/api/workers";
import { workerListProblem } from "@/server/api/workers-check";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/workers",
  role: "viewer",
  query: WorkersQuerySchema,
  response: WorkerListSchema,
  responseCheck: workerListProblem,
  handler: ({ backend, query, now, offlineAfterSeconds }) => listWorkers(backend, query, now, offlineAfterSeconds),
});
