import { isBackendUnavailable } from "@/server/api/errors";

import { requireAllowedHost } from "@/server/api/authorize";
import { ApiError } from "@/server/api/errors";
import { checkBackend, HEALTH_UNAVAILABLE_MESSAGE } from "@/server/health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  try {
    requireAllowedHost(request);
    const { backend, info } = await checkBackend();
    return json(200, {
      ok: true,
      backend: backend.kind,
      redis: {
        version: info.version,
        latency_ms: info.latencyMs,
        aof_enabled: info.aofEnabled,
        used_memory_bytes: info.usedMemoryBytes,
      },
    });
  } catch (err) {
    if (isBackendUnavailable(err)) {
      console.warn(`[health] ${err.message}`);
      return json(503, { error: { code: "backend_unavailable", message: HEALTH_UNAVAILABLE_MESSAGE } });
    }
    if (err instanceof ApiError) return json(err.status, { error: { code: err.code, message: err.message } });
    console.error("health check failed", err);
    return json(500, { error: { code: "internal", message: "The health check failed unexpectedly; see the server log." } });
  }
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
}
