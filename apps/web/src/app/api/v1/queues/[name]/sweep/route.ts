import { SweepResultSchema } from "@fleet/schema";

import { requireQueue } from "@/server/api/queues";
import { announceAdmin } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Re-queues reservations past their visibility deadline, now (what housekeeping would do later). */
export const POST = route({
  path: "/queues/[name]/sweep",
  role: "operator",
  response: SweepResultSchema,
  handler: async ({ backend, params, now }) => {
    await requireQueue(backend, params.name);
    const result = await backend.queueSweepExpired(params.name, now);
    if (result.requeued > 0 || result.orphaned.length > 0) {
      await announceAdmin(backend, "queue.sweep", { queue: params.name, requeued: result.requeued, orphaned: result.orphaned });
    }
    return { requeued: result.requeued, orphaned: result.orphaned };
  },
});
