import { ErrorGroupsSchema, ErrorsQuerySchema } from "@fleet/schema";

import { cachedErrorGroups, limitGroups, queueErrorGroups } from "@/server/api/error-groups";
import { requireQueue } from "@/server/api/queues";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** One queue's error groups (issue 14.3): its newest dead letters and the last_error of the workers of the automation of that name. */
export const GET = route({
  path: "/queues/[name]/errors",
  role: "viewer",
  query: ErrorsQuerySchema,
  response: ErrorGroupsSchema,
  handler: async ({ backend, params, query, now }) => {
    await requireQueue(backend, params.name);
    const all = await cachedErrorGroups(`${backend.url} queue ${params.name}`, () => queueErrorGroups(backend, params.name, now));
    return limitGroups(all, query.limit);
  },
});
