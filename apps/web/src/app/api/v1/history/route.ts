import { HistoryQuerySchema, HistorySchema } from "@fleet/schema";

import { route } from "@/server/api/route";
import { readHistory } from "@/server/history/read";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The whole fleet's queue history over `range`: every queue's figures summed (the oldest wait: the longest). */
export const GET = route({
  path: "/history",
  role: "viewer",
  query: HistoryQuerySchema,
  response: HistorySchema,
  handler: ({ backend, query, now }) => readHistory(backend, null, query.range, now),
});
