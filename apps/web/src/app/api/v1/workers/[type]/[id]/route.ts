import { DeletedSchema, WorkerDetailSchema } from "@fleet/schema";

import { etag } from "@/server/api/config-writes";
import { notFound } from "@/server/api/errors";
import { announceAdmin } from "@/server/api/resources";
import { Reply, route } from "@/server/api/route";
import { toWorkerDetail } from "@/server/api/serialize";
import { refuseSharedWorkerKeys } from "@/server/api/workers";
import { lastErrorSince } from "@/server/watch/worker-errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/workers/[type]/[id]",
  role: "viewer",
  response: WorkerDetailSchema,
  handler: async ({ backend, params, now, offlineAfterSeconds }) => {
    const record = await backend.workerGet(params.type, params.id);
    if (record === null) throw notFound(`There is no worker '${params.id}' of automation '${params.type}'.`);
    const [since] = await lastErrorSince(backend, [record]);
    const detail = { ...toWorkerDetail(record, now, offlineAfterSeconds), ...(record.lastError !== null ? { last_error_since: since } : {}) };
    // the ETag is what a config write sends back as If-Match
    return new Reply(detail, record.configGen === null ? {} : { headers: { ETag: etag(record.configGen) } });
  },
});

export const DELETE = route({
  path: "/workers/[type]/[id]",
  role: "admin",
  response: DeletedSchema,
  handler: async ({ backend, params }) => {
    await refuseSharedWorkerKeys(backend, [{ automationType: params.type, workerId: params.id }]);
    const removed = await backend.workerRemove(params.type, params.id);
    if (!removed) throw notFound(`There is no worker '${params.id}' of automation '${params.type}'.`);
    await announceAdmin(backend, "worker.delete", { automation_type: params.type, worker_id: params.id });
    return { deleted: true };
  },
});
