// GET /api/v1/metrics: Prometheus text exposition 0.0.4. See src/server/metrics/collect.ts
// for what is exported and why a backend outage answers 200 with `fleet_backend_up 0`.
import { authorize } from "@/server/api/authorize";
import { toErrorResponse } from "@/server/api/errors";
import { getBackend, getDiscovery } from "@/server/backend";
import { serverEnv } from "@/server/env";
import { collectMetrics } from "@/server/metrics/collect";
import { collectWatchMetrics } from "@/server/metrics/watch-metrics";
import { PROMETHEUS_CONTENT_TYPE } from "@/server/metrics/exposition";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  try {
    await authorize(request, "viewer");
  } catch (err) {
    return toErrorResponse(err, "GET /metrics");
  }
  const [fleet, watch] = await Promise.all([
    collectMetrics(getBackend, { offlineAfterSeconds: serverEnv().FLEET_OFFLINE_AFTER_SECONDS, names: getDiscovery }),
    // the watch's families (throughput, oldest wait, alerts): src/server/metrics/watch-metrics.ts
    collectWatchMetrics(getBackend),
  ]);
  const text = fleet + watch;
  return new Response(text, {
    status: 200,
    headers: { "Content-Type": PROMETHEUS_CONTENT_TYPE, "Cache-Control": "no-store" },
  });
}
