import * as automationsRoute from "@/app/api/v1/automations/route";
import * as poolsRoute from "@/app/api/v1/pools/route";
import * as queuesRoute from "@/app/api/v1/queues/route";
import { endpoints } from "@/lib/query-keys";
import { Prefetch } from "@/server/prefetch";

import { Overview } from "./_overview/overview";

// The first paint carries the worker counts, the queues and the pools
// (src/server/prefetch.tsx); the charts, error groups and Redis health follow from the browser.
export default function OverviewPage() {
  return (
    <Prefetch
      endpoints={[
        [endpoints.automations(), automationsRoute.GET],
        [endpoints.queues(), queuesRoute.GET],
        [endpoints.pools(), poolsRoute.GET],
      ]}
    >
      <Overview />
    </Prefetch>
  );
}
