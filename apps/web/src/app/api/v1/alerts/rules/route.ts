import { AlertRulesSchema } from "@fleet/schema";

import { etag } from "@/server/api/config-writes";
import { Reply, route } from "@/server/api/route";
import { getAlertRules, putAlertRules } from "@/server/alerts/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The alert rules and webhooks (URLs masked below admin), their generation (also as ETag) and JSON Schema. */
export const GET = route({
  path: "/alerts/rules",
  role: "viewer",
  response: AlertRulesSchema,
  handler: async ({ backend, principal }) => {
    const { body, gen } = await getAlertRules(backend, principal);
    return new Reply(body, { headers: { ETag: etag(gen) } });
  },
});

/** Replaces the whole document (validated; `If-Match: "<gen>"` to refuse a stale write with 412). */
export const PUT = route({
  path: "/alerts/rules",
  role: "admin",
  body: "json",
  response: AlertRulesSchema,
  handler: async ({ backend, request, body }) => {
    const out = await putAlertRules(backend, request, body);
    return new Reply(out.body, { headers: { ETag: etag(out.gen) } });
  },
});
