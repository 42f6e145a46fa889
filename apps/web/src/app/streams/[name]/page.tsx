import type { Metadata } from "next";
import { Suspense } from "react";

import { routeParam } from "@/lib/route-param";
import { LoadingState } from "@/components";

import { StreamDetailView } from "../_components/stream-detail-view";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  // Unlike the page's, metadata params arrive decoded already (Next 16).
  return { title: `Stream ${(await params).name}` };
}

export default async function StreamPage({ params }: Props) {
  const name = routeParam((await params).name);
  return (
    <Suspense fallback={<LoadingState label="Loading the stream…" />}>
      <StreamDetailView name={name} />
    </Suspense>
  );
}
