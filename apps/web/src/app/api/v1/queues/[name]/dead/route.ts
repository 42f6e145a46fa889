import { CorruptDataError } from "@fleet/backend";
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
    let page: { total: number; items: Buffer[] };
    try {
      page = await backend.dlqRange(params.name, query.offset, query.limit);
    } catch (err) {
      // a dead-letter key of another type: no dead letters, marked corrupt, as the queue shows it
      const [depths] = err instanceof CorruptDataError ? await backend.queueDepths([params.name]) : [];
      if (!depths?.corrupt?.includes("dead")) throw err;
      return { total: 0, items: [], corrupt: ["dead"] };
    }
    const { total, items } = page;
    if (total === 0) await requireQueue(backend, params.name);
    return { total, items: items.map((body, i) => toDeadLetter(body, query.offset + i, query.preview_bytes)) };
  },
});
