import { ConfigResultSchema } from "@fleet/schema";

import { writeWorkerConfig } from "@/server/api/config-writes";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Body: a JSON merge patch (RFC 7386) of the config. `If-Match: "<gen>"` optional. */
export const PATCH = route({
  path: "/workers/[type]/[id]/config",
  role: "admin",
  body: "json",
  response: ConfigResultSchema,
  handler: ({ backend, request, params, body }) => writeWorkerConfig(backend, request, params.type, params.id, "patch", body),
});

/** Body: the whole new config. `If-Match: "<gen>"` optional. */
export const PUT = route({
  path: "/workers/[type]/[id]/config",
  role: "admin",
  body: "json",
  response: ConfigResultSchema,
  handler: ({ backend, request, params, body }) => writeWorkerConfig(backend, request, params.type, params.id, "put", body),
});
