// GET /api/v1/audit?actor=&action=&target=&limit=&offset=: the console's audit trail
// (admin). `action` matches exactly or as a prefix at a dot (`worker` matches
// `worker.delete`); `target` matches anywhere in the target (`queue:jobs`).
import { AuditListSchema, AuditQuerySchema } from "@fleet/schema";

import { readAudit } from "@/server/audit/read";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/audit",
  role: "admin",
  query: AuditQuerySchema,
  response: AuditListSchema,
  handler: ({ backend, query }) => readAudit(backend, query),
});
