import type { Metadata } from "next";
import { Suspense } from "react";

import { routeParam } from "@/lib/route-param";
import { LoadingState } from "@/components";

import { PoolDetailView } from "../_components/pool-detail-view";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  // Unlike the page's, metadata params arrive decoded already (Next 16).
  return { title: `Pool ${(await params).name}` };
}

export default async function PoolPage({ params }: Props) {
  const name = routeParam((await params).name);
  return (
    <Suspense fallback={<LoadingState label="Loading the pool…" />}>
      <PoolDetailView name={name} />
    </Suspense>
  );
}
