import { PreviewQuerySchema, QueueDetailQuerySchema, QueueDetailSchema } from "@fleet/schema";

import { queueDetail } from "@/server/api/queues";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/queues/[name]",
  role: "viewer",
  query: QueueDetailQuerySchema.extend(PreviewQuerySchema.shape),
  response: QueueDetailSchema,
  handler: ({ backend, params, query, now }) => queueDetail(backend, params.name, query.limit, now, query.preview_bytes),
});
