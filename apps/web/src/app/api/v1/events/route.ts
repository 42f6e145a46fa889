// GET /api/v1/events: Server-Sent Events (../shared/API.md, "Live events").
import { getEventHub } from "@/server/events";
import { createEventsHandler } from "@/server/events/sse-response";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = createEventsHandler({ hub: getEventHub });
