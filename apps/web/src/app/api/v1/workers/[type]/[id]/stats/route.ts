import { StatsFramesSchema, StatsQuerySchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { rawForDisplay } from "@/server/api/resources";
import { jsonForBrowser } from "@/server/api/serialize";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/workers/[type]/[id]/stats",
  role: "viewer",
  query: StatsQuerySchema,
  response: StatsFramesSchema,
  handler: async ({ backend, params, query }) => {
    const [registered, frames] = await Promise.all([
      backend.workerGet(params.type, params.id),
      backend.workerStatsFrames(params.type, params.id, { since: query.since, limit: query.limit }),
    ]);
    if (registered === null) throw notFound(`There is no worker '${params.id}' of automation '${params.type}'.`);
    return {
      frames: frames.map((f) => (f.frame === null ? { ts: f.ts, frame: null, raw: rawForDisplay(f.raw) } : { ts: f.ts, frame: jsonForBrowser(f.frame) })),
    };
  },
});
