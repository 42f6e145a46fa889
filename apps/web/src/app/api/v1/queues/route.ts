import { PageQuerySchema, QueueListSchema } from "@fleet/schema";

import { page } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toQueue } from "@/server/api/serialize";
import { getDiscovery } from "@/server/backend";
import { liveQueues } from "@/server/live-names";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Every queue that has any key: discovered names, then one pipelined read of their depths. */
export const GET = route({
  path: "/queues",
  role: "viewer",
  query: PageQuerySchema,
  response: QueueListSchema,
  handler: async ({ backend, query, now }) => {
    const queues = await liveQueues(backend, await getDiscovery(), now);
    return { total: queues.length, queues: page(queues, query).map(toQueue) };
  },
});
