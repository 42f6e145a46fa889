import type { Metadata } from "next";
import { Suspense } from "react";

import { LoadingState } from "@/components";

import { QueueSearchView } from "../../_components/queue-search-view";
import { routeParam } from "@/lib/route-param";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Search queue ${(await params).name}` };
}

export default async function QueueSearchPage({ params }: Props) {
  const name = routeParam((await params).name);
  return (
    <Suspense fallback={<LoadingState label="Loading the search…" />}>
      <QueueSearchView name={name} />
    </Suspense>
  );
}
