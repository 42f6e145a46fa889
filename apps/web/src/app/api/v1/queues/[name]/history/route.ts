import { HistoryQuerySchema, HistorySchema } from "@fleet/schema";

import { ApiError } from "@/server/api/errors";
import { requireQueue } from "@/server/api/queues";
import { route } from "@/server/api/route";
import { readHistory } from "@/server/history/read";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The queue's recorded history over `range` (1h, 24h, 30d): depths by state, throughput, oldest wait. */
export const GET = route({
  path: "/queues/[name]/history",
  role: "viewer",
  query: HistoryQuerySchema,
  response: HistorySchema,
  handler: async ({ backend, params, query, now }) => {
    const history = await readHistory(backend, params.name, query.range, now);
    try {
      await requireQueue(backend, params.name);
    } catch (err) {
      // a queue that is gone keeps its history until the rings expire: still worth showing
      const recorded = history.points.ts.some((_, i) => history.points.dead[i] !== null);
      if (!(err instanceof ApiError && err.code === "not_found") || !recorded) throw err;
    }
    return history;
  },
});
