import { PageQuerySchema, QueueListSchema } from "@fleet/schema";

import { byString, page } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toQueue } from "@/server/api/serialize";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Every queue that has any key. */
export const GET = route({
  path: "/queues",
  role: "viewer",
  query: PageQuerySchema,
  response: QueueListSchema,
  handler: async ({ backend, query, now }) => {
    const names = (await backend.queueNames()).sort(byString);
    const pageNames = page(names, query);
    const depths = await backend.queueDepths(pageNames, now);
    return { total: names.length, queues: depths.map(toQueue) };
  },
});
