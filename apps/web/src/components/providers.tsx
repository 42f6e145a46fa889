"use client";

import type { ReactNode } from "react";

import { LiveEventsProvider } from "@/lib/live";
import { QueryProvider } from "@/lib/query";

/** The client-side context every page runs in: the query cache and the tab's one live stream. */
export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryProvider>
      <LiveEventsProvider>{children}</LiveEventsProvider>
    </QueryProvider>
  );
}
