import { CorruptDataError, type StreamEntry } from "@fleet/backend";
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
    let length: number;
    let entries: StreamEntry[];
    try {
      [length, entries] = await Promise.all([backend.streamLength(params.name), backend.streamRange(params.name, query.limit, query.order)]);
    } catch (err) {
      // a key of another type: an empty stream marked corrupt, as the list shows it
      const [summary] = err instanceof CorruptDataError ? await backend.streamSummaries([params.name]) : [];
      if (!summary?.corrupt) throw err;
      return { length: 0, entries: [], corrupt: summary.corrupt };
    }
    if (length === 0) await requireExistingOrKnown(backend, "stream", params.name, false);
    return { length, entries: entries.map((e) => ({ score: e.score, envelope: toRawValue(e.envelope, query.preview_bytes) })) };
  },
});
