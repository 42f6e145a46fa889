// GET /api/v1/queues/{name}/bulk/{id}: one bulk job, its state and counts (issue 14.2).
import { BulkJobSchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { route } from "@/server/api/route";
import { readJob } from "@/server/bulk/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/queues/[name]/bulk/[id]",
  role: "viewer",
  response: BulkJobSchema,
  handler: async ({ backend, params }) => {
    const job = await readJob(backend, params.name, params.id);
    if (!job) throw notFound(`There is no bulk job ${params.id} on queue ${params.name}.`);
    return job;
  },
});
