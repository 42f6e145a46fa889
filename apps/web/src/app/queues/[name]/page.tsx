import type { Metadata } from "next";

import * as deadLettersRoute from "@/app/api/v1/queues/[name]/dead/route";
import * as queueRoute from "@/app/api/v1/queues/[name]/route";
import { intParam } from "@/lib/int-param";
import { endpoints } from "@/lib/query-keys";
import { routeParam } from "@/lib/route-param";
import { Prefetch } from "@/server/prefetch";

import { QueueDetailView } from "../_components/queue-detail-view";

type Props = { params: Promise<{ name: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  // Unlike the page's, metadata params arrive decoded already (Next 16).
  return { title: `Queue ${(await params).name}` };
}

export default async function QueuePage({ params, searchParams }: Props) {
  const name = routeParam((await params).name);
  const sp = searchParamsOf(await searchParams);
  // the first paint carries the depths, the first items and the dead-letter page the URL
  // names (src/server/prefetch.tsx), read as the view's own queries read them
  const limit = intParam(sp, "limit", 100, 1000);
  // No Suspense boundary around it: streamed, the view would come at the end of the
  // document, after the scripts the browser then runs first; in place, it is painted as soon
  // as the HTML is parsed (and the HTML waits for two reads of a few milliseconds).
  return (
    <Prefetch
      endpoints={[
        [endpoints.queue(name, limit), queueRoute.GET],
        [endpoints.deadLetters(name, limit, intParam(sp, "dead_offset", 0)), deadLettersRoute.GET],
      ]}
    >
      <QueueDetailView name={name} />
    </Prefetch>
  );
}

/** A page's searchParams as the browser's URLSearchParams reads them (the first of repeated keys wins in get()). */
function searchParamsOf(raw: Record<string, string | string[] | undefined>): URLSearchParams {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(raw)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) sp.append(k, x);
  return sp;
}
