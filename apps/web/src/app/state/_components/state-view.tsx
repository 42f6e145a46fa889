"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";

import { PageHeader } from "@/components";
import { queries } from "@/lib/query";

import { CountersSection } from "./counters-section";
import { KvBrowser } from "./kv-browser";
import { LocksSection } from "./locks-section";

/**
 * A deep link (#locks, #counters, #kv) lands on its section once every section above it has
 * painted: they load client-side, after the browser's own jump to the anchor found nothing.
 */
function useScrollToHashWhenLoaded(ready: boolean) {
  const done = useRef(false);
  useEffect(() => {
    if (done.current || !ready) return;
    done.current = true;
    const id = window.location.hash.slice(1);
    if (id) document.getElementById(id)?.scrollIntoView({ block: "start" });
  }, [ready]);
}

/** /state: locks, counters and the key-value store. None has live frames: they poll. */
export function StateView() {
  // The same queries the sections use (one cache entry each): only read to know they settled.
  const locks = useQuery(queries.locks());
  const counters = useQuery(queries.counters());
  const namespaces = useQuery(queries.kvNamespaces());
  useScrollToHashWhenLoaded(!locks.isPending && !counters.isPending && !namespaces.isPending);

  return (
    <>
      <PageHeader title="State" description="Distributed locks, counters and the key-value store that automations share." />
      <nav aria-label="Sections" className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <a className="link" href="#locks">
          Locks
        </a>
        <a className="link" href="#counters">
          Counters
        </a>
        <a className="link" href="#kv">
          Key-value store
        </a>
      </nav>
      <LocksSection />
      <CountersSection />
      <KvBrowser />
    </>
  );
}
