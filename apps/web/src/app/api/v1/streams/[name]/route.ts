import { PreviewQuerySchema, StreamDetailSchema, StreamQuerySchema } from "@fleet/schema";

import { requireExistingOrKnown } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toRawValue } from "@/server/api/serialize";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Reads without popping. */
export const GET = route({
  path: "/streams/[name]",
  role: "viewer",
  query: StreamQuerySchema.extend(PreviewQuerySchema.shape),
  response: StreamDetailSchema,
  handler: async ({ backend, params, query }) => {
    const [length, entries] = await Promise.all([
      backend.streamLength(params.name),
      backend.streamRange(params.name, query.limit, query.order),
    ]);
    if (length === 0) await requireExistingOrKnown(backend, "stream", params.name, false);
    return { length, entries: entries.map((e) => ({ score: e.score, envelope: toRawValue(e.envelope, query.preview_bytes) })) };
  },
});
