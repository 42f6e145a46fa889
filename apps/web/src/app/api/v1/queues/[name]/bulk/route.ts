// POST /api/v1/queues/{name}/bulk: start a bulk action on a search's matches (issue 14.2; an
// extension of API.md); GET: this queue's jobs, newest first. See src/server/bulk.
import { BulkJobSchema, BulkJobsSchema, StartBulkJobBodySchema } from "@fleet/schema";

import { requireQueue } from "@/server/api/queues";
import { route } from "@/server/api/route";
import { getBulkRunner } from "@/server/bulk";
import { listJobs, startBulkJob } from "@/server/bulk/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/queues/[name]/bulk",
  role: "viewer",
  response: BulkJobsSchema,
  handler: async ({ backend, params }) => {
    const jobs = await listJobs(backend, params.name);
    if (jobs.length === 0) await requireQueue(backend, params.name);
    return { jobs };
  },
});

export const POST = route({
  path: "/queues/[name]/bulk",
  role: "operator",
  body: StartBulkJobBodySchema,
  response: BulkJobSchema,
  status: 202,
  handler: async ({ backend, params, body, principal }) => startBulkJob(backend, params.name, body, principal, getBulkRunner()),
});
