import { DeadLettersSchema, PageQuerySchema, PreviewQuerySchema } from "@fleet/schema";

import { requireQueue } from "@/server/api/queues";
import { route } from "@/server/api/route";
import { toDeadLetter } from "@/server/api/serialize";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/queues/[name]/dead",
  role: "viewer",
  query: PageQuerySchema.extend(PreviewQuerySchema.shape),
  response: DeadLettersSchema,
  handler: async ({ backend, params, query }) => {
    const { total, items } = await backend.dlqRange(params.name, query.offset, query.limit);
    if (total === 0) await requireQueue(backend, params.name);
    return { total, items: items.map((body, i) => toDeadLetter(body, query.offset + i, query.preview_bytes)) };
  },
});
