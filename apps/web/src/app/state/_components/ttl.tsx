"use client";

import { Countdown } from "@/components";

/**
 * A remaining time given in ms as of `asOf` (ms since epoch, when the answer was fetched),
 * ticking down; null means no expiry.
 */
export function Ttl({ ttlMs, asOf, noneLabel = "no expiry", expiredLabel = "expired" }: { ttlMs: number | null; asOf: number; noneLabel?: string; expiredLabel?: string }) {
  if (ttlMs === null || ttlMs < 0) return <span className="text-slate-500">{noneLabel}</span>;
  return <Countdown to={(asOf + ttlMs) / 1000} overdueLabel={expiredLabel} />;
}
