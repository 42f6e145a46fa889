import { ConfigRolloutResultSchema } from "@fleet/schema";

import { rolloutConfig } from "@/server/api/config-writes";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A fleet-wide rollout: the merge patch applied to every worker of the type, all or nothing. */
export const PATCH = route({
  path: "/automations/[type]/config",
  role: "admin",
  body: "json",
  response: ConfigRolloutResultSchema,
  handler: ({ backend, params, body }) => rolloutConfig(backend, params.type, body),
});
