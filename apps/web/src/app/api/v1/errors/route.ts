import { ErrorGroupsSchema, ErrorsQuerySchema } from "@fleet/schema";

import { cachedErrorGroups, fleetErrorGroups, limitGroups } from "@/server/api/error-groups";
import { route } from "@/server/api/route";
import { getDiscovery } from "@/server/backend";
import { liveQueues } from "@/server/live-names";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Fleet-wide error groups (issue 14.3): the newest dead letters of each queue and every worker's last_error. */
export const GET = route({
  path: "/errors",
  role: "viewer",
  query: ErrorsQuerySchema,
  response: ErrorGroupsSchema,
  handler: async ({ backend, query, now }) => {
    const all = await cachedErrorGroups(`${backend.url} fleet`, async () => {
      const queues = await liveQueues(backend, await getDiscovery(), now);
      return fleetErrorGroups(
        backend,
        queues.map((q) => ({ name: q.name, dead: q.dead })),
        now,
      );
    });
    return limitGroups(all, query.limit);
  },
});
