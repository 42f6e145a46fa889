// GET /api/v1/openapi.json: the OpenAPI 3.1 document of this API, generated from the route
// table and the zod schemas (src/server/api/openapi). An extension of API.md; a read like
// every other, so it needs the viewer role.
import { route } from "@/server/api/route";
import { OpenApiDocumentSchema, openApiDocument } from "@/server/api/openapi/document";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({
  path: "/openapi.json",
  role: "viewer",
  response: OpenApiDocumentSchema,
  handler: () => openApiDocument(),
});
