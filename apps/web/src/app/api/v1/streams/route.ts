import { PageQuerySchema, StreamListSchema } from "@fleet/schema";

import { page } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toStreamSummary } from "@/server/api/serialize";
import { getDiscovery } from "@/server/backend";
import { liveStreams } from "@/server/live-names";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/streams",
  role: "viewer",
  query: PageQuerySchema,
  response: StreamListSchema,
  handler: async ({ backend, query }) => {
    const streams = await liveStreams(backend, await getDiscovery());
    return { total: streams.length, streams: page(streams, query).map(toStreamSummary) };
  },
});
