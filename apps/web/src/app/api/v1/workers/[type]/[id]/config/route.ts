import { AuditEntryIdSchema, ConfigResultSchema } from "@fleet/schema";
import { z } from "zod";

import { writeWorkerConfig } from "@/server/api/config-writes";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// A console extension (apps/web/README.md): `intent=pause|resume|revert` names what the write is for
// in the audit trail (and is checked against it); a revert names the entry it reverts
// (`revert_of=<id>`): a Python NaN that entry's `before` held is written back as the number
// (src/server/audit/revert-of.ts). Without them the answer is exactly API.md's.
const ConfigQuerySchema = z
  .object({
    intent: z.enum(["pause", "resume", "revert"], { message: "intent must be pause, resume or revert" }).optional(),
    revert_of: AuditEntryIdSchema.optional(),
  })
  .refine((q) => q.revert_of === undefined || q.intent === "revert", { path: ["revert_of"], message: "revert_of goes with intent=revert" });

/** Body: a JSON merge patch (RFC 7386) of the config. `If-Match: "<gen>"` optional. */
export const PATCH = route({
  path: "/workers/[type]/[id]/config",
  role: "admin",
  query: ConfigQuerySchema,
  body: "json",
  response: ConfigResultSchema,
  handler: ({ backend, request, params, query, body }) => writeWorkerConfig(backend, request, params.type, params.id, "patch", body, query.intent, query.revert_of),
});

/** Body: the whole new config. `If-Match: "<gen>"` optional. */
export const PUT = route({
  path: "/workers/[type]/[id]/config",
  role: "admin",
  query: ConfigQuerySchema,
  body: "json",
  response: ConfigResultSchema,
  handler: ({ backend, request, params, query, body }) => writeWorkerConfig(backend, request, params.type, params.id, "put", body, query.intent, query.revert_of),
});
