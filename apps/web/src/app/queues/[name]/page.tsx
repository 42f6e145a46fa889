import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components";

import { QueueDetailView } from "../_components/queue-detail-view";
import { routeParam } from "@/lib/route-param";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  // Unlike the page's, metadata params arrive decoded already (Next 16).
  return { title: `Queue ${(await params).name}` };
}

export default async function QueuePage({ params }: Props) {
  const name = routeParam((await params).name);
  return (
    <Suspense fallback={<LoadingState label="Loading the queue…" />}>
      <QueueDetailView name={name} />
    </Suspense>
  );
}
