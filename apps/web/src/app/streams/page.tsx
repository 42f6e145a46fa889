import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components";

import { StreamsView } from "./_components/streams-view";

export const metadata: Metadata = { title: "Streams" };

export default function StreamsPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading streams…" />}>
      <StreamsView />
    </Suspense>
  );
}
