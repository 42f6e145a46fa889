import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components";

import { QueuesView } from "./_components/queues-view";

export const metadata: Metadata = { title: "Queues" };

export default function QueuesPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading queues…" />}>
      <QueuesView />
    </Suspense>
  );
}
