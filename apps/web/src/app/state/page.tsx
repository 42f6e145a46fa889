import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components";

import { StateView } from "./_components/state-view";

export const metadata: Metadata = { title: "State" };

export default function StatePage() {
  return (
    <Suspense fallback={<LoadingState label="Loading state…" />}>
      <StateView />
    </Suspense>
  );
}
