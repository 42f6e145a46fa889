import type { Metadata } from "next";

import * as queuesRoute from "@/app/api/v1/queues/route";
import { endpoints } from "@/lib/query-keys";
import { Prefetch } from "@/server/prefetch";

import { QueuesView } from "./_components/queues-view";

export const metadata: Metadata = { title: "Queues" };

// The first paint carries the list (src/server/prefetch.tsx), in place rather than streamed
// after the scripts (see the queue page).
export default function QueuesPage() {
  return (
    <Prefetch endpoints={[[endpoints.queues(), queuesRoute.GET]]}>
      <QueuesView />
    </Prefetch>
  );
}
