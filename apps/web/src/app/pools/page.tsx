import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components";

import { PoolsView } from "./_components/pools-view";

export const metadata: Metadata = { title: "Pools" };

export default function PoolsPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading pools…" />}>
      <PoolsView />
    </Suspense>
  );
}
