import type { Metadata } from "next";

import { WorkerDetailView } from "./_components/worker-detail";

type Params = Promise<{ type: string; id: string }>;

// Next hands the page its params still percent-encoded but generateMetadata decoded;
// ids may themselves hold `%`, so decode only a value that is exactly an encoded form.
function decode(s: string): string {
  try {
    const d = decodeURIComponent(s);
    return encodeURIComponent(d) === s ? d : s;
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
