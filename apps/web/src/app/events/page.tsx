import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components/states";

import { EventsLog } from "./_components/events-log";

export const metadata: Metadata = { title: "Events" };

export default function EventsPage() {
  return (
    <Suspense fallback={<LoadingState />}>
      <EventsLog />
    </Suspense>
  );
}
