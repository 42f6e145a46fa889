import { WorkerErrorHistorySchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { route } from "@/server/api/route";
import { readWorkerErrors } from "@/server/watch/worker-errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The worker's error history as the console's watch recorded it (src/server/watch/worker-errors.ts):
 * newest first, the last 50. A worker removed from the registry answers 404 even while its
 * history is kept (it expires on its own).
 */
export const GET = route({
  path: "/workers/[type]/[id]/errors",
  role: "viewer",
  response: WorkerErrorHistorySchema,
  handler: async ({ backend, params }) => {
    const ref = { automationType: params.type, workerId: params.id };
    const [record, history] = await Promise.all([backend.workerGet(params.type, params.id), readWorkerErrors(backend, ref)]);
    if (record === null) throw notFound(`There is no worker '${params.id}' of automation '${params.type}'.`);
    return history;
  },
});
