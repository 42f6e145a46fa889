"use client";

import { useEffect, useRef } from "react";

import { Countdown, useNow } from "@/components";
import { absoluteTime } from "@/lib/format";

/**
 * A remaining time given in ms as of `asOf` (ms since epoch, when the answer was fetched),
 * ticking down; null means no expiry. At zero it says "expiring…" in a neutral tone, not an
 * alarm (and in the surrounding colour, which may be a selected row's): Redis drops the key on its own, and `onExpire` (called once per countdown) lets the
 * page refetch so the key leaves the list.
 */
export function Ttl({ ttlMs, asOf, noneLabel = "no expiry", onExpire }: { ttlMs: number | null; asOf: number; noneLabel?: string; onExpire?: () => void }) {
  const now = useNow();
  const to = ttlMs === null || ttlMs < 0 ? null : (asOf + ttlMs) / 1000;
  const expired = to !== null && now !== null && now >= to;
  const told = useRef<number | null>(null);
  const onExpireRef = useRef(onExpire);
  onExpireRef.current = onExpire;
  useEffect(() => {
    if (!expired || to === null || told.current === to) return;
    told.current = to;
    onExpireRef.current?.();
  }, [expired, to]);

  if (to === null) return <span className="text-slate-600 dark:text-slate-400">{noneLabel}</span>;
  if (expired) {
    return (
      <time dateTime={new Date(to * 1000).toISOString()} title={absoluteTime(to)} data-expiring="true" className="italic">
        expiring…
      </time>
    );
  }
  return <Countdown to={to} />;
}
