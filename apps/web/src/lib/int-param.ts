// Plain (no "use client"): the page's server component reads its query string the same way.

/** A non-negative integer from the query string, else the fallback. */
export function intParam(sp: URLSearchParams, key: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = sp.get(key);
  if (raw === null || !/^\d+$/.test(raw)) return fallback;
  return Math.min(Number(raw), max);
}
