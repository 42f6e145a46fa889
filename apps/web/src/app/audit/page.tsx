import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components";

import { AuditView } from "./audit-view";

export const metadata: Metadata = { title: "Audit trail" };

export default function AuditPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading the audit trail…" />}>
      <AuditView />
    </Suspense>
  );
}
