import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components";

import { AlertsView } from "./alerts-view";

export const metadata: Metadata = { title: "Alerts" };

export default function AlertsPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading the alerts…" />}>
      <AlertsView />
    </Suspense>
  );
}
