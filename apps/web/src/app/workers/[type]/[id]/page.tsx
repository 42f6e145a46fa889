import type { Metadata } from "next";

import { WorkerDetailView } from "./_components/worker-detail";

type Params = Promise<{ type: string; id: string }>;

// Route params arrive percent-decoded once; ids may hold `:`, `%` or any UTF-8.
function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { id } = await params;
  return { title: `Worker ${decode(id)}` };
}

export default async function WorkerPage({ params }: { params: Params }) {
  const { type, id } = await params;
  return <WorkerDetailView automationType={decode(type)} workerId={decode(id)} />;
}
