import { ConfigRolloutResultSchema } from "@fleet/schema";
import { z } from "zod";

import { rolloutConfig } from "@/server/api/config-writes";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// A console extension (apps/web/README.md): `skip_unchanged=true` leaves alone the workers the
// patch would not change. Without it the answer is exactly API.md's.
const RolloutQuerySchema = z.object({
  skip_unchanged: z.enum(["true", "false"], { message: "skip_unchanged must be true or false" }).optional(),
});

/** A fleet-wide rollout: the merge patch applied to every worker of the type, all or nothing. */
export const PATCH = route({
  path: "/automations/[type]/config",
  role: "admin",
  query: RolloutQuerySchema,
  body: "json",
  response: ConfigRolloutResultSchema,
  handler: ({ backend, params, query, body }) => rolloutConfig(backend, params.type, body, { skipUnchanged: query.skip_unchanged === "true" }),
});
