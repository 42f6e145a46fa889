import { DeadLetterRequeueResultSchema } from "@fleet/schema";

import { parseRequeueBody, requireQueue } from "@/server/api/queues";
import { announceAdmin } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Moves the selected dead letters back onto the normal pending list, atomically, with their
 * attempts back to 0 (`"keep_attempts": true` keeps them: an extension of API.md).
 */
export const POST = route({
  path: "/queues/[name]/dead/requeue",
  role: "operator",
  body: "json",
  response: DeadLetterRequeueResultSchema,
  handler: async ({ backend, params, body }) => {
    const { which, keepAttempts } = parseRequeueBody(body);
    await requireQueue(backend, params.name);
    const result = await backend.dlqRequeue(params.name, which, { keepAttempts });
    if (result.requeued > 0) await announceAdmin(backend, "dead.requeue", { queue: params.name, requeued: result.requeued });
    return result;
  },
});
