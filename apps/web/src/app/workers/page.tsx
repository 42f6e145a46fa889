import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components/states";

import { WorkersTable } from "./_components/workers-table";

export const metadata: Metadata = { title: "Workers" };

export default function WorkersPage() {
  // useSearchParams (filters live in the query string) needs a Suspense boundary.
  return (
    <Suspense fallback={<LoadingState label="Loading workers…" />}>
      <WorkersTable />
    </Suspense>
  );
}
