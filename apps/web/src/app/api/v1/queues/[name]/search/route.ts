// GET /api/v1/queues/{name}/search?q=&where=&in=&limit= (issue 14.1; an extension of API.md):
// NDJSON lines, see src/server/search/handler.ts.
import { handleSearch } from "@/server/search/handler";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handleSearch;
