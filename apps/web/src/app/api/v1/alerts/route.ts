import { AlertsStatusSchema } from "@fleet/schema";
import { z } from "zod";

import { route } from "@/server/api/route";
import { getAlertsStatus } from "@/server/alerts/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const QuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

/** What fires now, deliveries waiting or being retried, and the newest `limit` history entries. */
export const GET = route({
  path: "/alerts",
  role: "viewer",
  query: QuerySchema,
  response: AlertsStatusSchema,
  handler: ({ backend, query }) => getAlertsStatus(backend, query.limit),
});
