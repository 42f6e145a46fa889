import type { Metadata } from "next";

import { ErrorGroupsList } from "@/components/error-groups";
import { PageHeader } from "@/components/page-header";

export const metadata: Metadata = { title: "Error groups" };

export default function ErrorsPage() {
  return (
    <>
      <PageHeader title="Error groups" description="Dead letters' and workers' last errors, grouped by the message with numbers, ids, urls, hex and quoted values left out." />
      <section aria-label="Error groups" className="card">
        <ErrorGroupsList queue={null} limit={200} />
      </section>
    </>
  );
}
