import { PageQuerySchema, StreamListSchema } from "@fleet/schema";

import { byString, page } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toStreamSummary } from "@/server/api/serialize";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/streams",
  role: "viewer",
  query: PageQuerySchema,
  response: StreamListSchema,
  handler: async ({ backend, query }) => {
    const names = (await backend.streamNames()).sort(byString);
    const summaries = await backend.streamSummaries(page(names, query));
    return { total: names.length, streams: summaries.map(toStreamSummary) };
  },
});
