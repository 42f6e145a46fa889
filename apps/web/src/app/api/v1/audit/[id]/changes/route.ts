// GET /api/v1/audit/{id}/changes?limit=&offset= (a console extension, admin, like the trail):
// every worker's change of a fleet-wide config write whose entry keeps only the first 100, or
// lists some values by their digest (the entry says `changes_kept`), paged in the entry's order. "Revert to before" of such a
// write reads them here. 404 when none are kept for that entry (a smaller write, one too
// large to keep, or older than AUDIT_CHANGES_TTL_SECONDS).
import { AuditChangesQuerySchema, AuditChangesSchema, AuditEntryIdSchema } from "@fleet/schema";
import { z } from "zod";

import { notFound } from "@/server/api/errors";
import { route } from "@/server/api/route";
import { decodeAuditChange } from "@/server/audit/read";
import { AUDIT_CHANGES_TTL_SECONDS, MAX_CONFIG_CHANGES } from "@/server/audit/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/audit/[id]/changes",
  role: "admin",
  params: z.object({ id: AuditEntryIdSchema }),
  query: AuditChangesQuerySchema,
  response: AuditChangesSchema,
  handler: async ({ backend, params, query }) => {
    const page = await backend.auditChangesRange(params.id, query.offset, query.limit);
    if (page === null) {
      throw notFound(
        `No changes are kept for audit entry ${params.id}: only fleet-wide config writes of more than ${MAX_CONFIG_CHANGES} workers, or of configs larger than their entry lists whole, keep them, for ${AUDIT_CHANGES_TTL_SECONDS / 86400} days.`,
      );
    }
    return { total: page.total, changes: page.items.map(decodeAuditChange) };
  },
});
