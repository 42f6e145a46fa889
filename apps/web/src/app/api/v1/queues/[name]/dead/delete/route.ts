import { DeadLetterDeleteResultSchema } from "@fleet/schema";

import { parseDeadLetterSelector, requireQueue } from "@/server/api/queues";
import { announceAdmin } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = route({
  path: "/queues/[name]/dead/delete",
  role: "operator",
  body: "json",
  response: DeadLetterDeleteResultSchema,
  handler: async ({ backend, params, body }) => {
    const which = parseDeadLetterSelector(body);
    await requireQueue(backend, params.name);
    const result = await backend.dlqDelete(params.name, which);
    if (result.deleted > 0) await announceAdmin(backend, "dead.delete", { queue: params.name, deleted: result.deleted });
    return result;
  },
});
