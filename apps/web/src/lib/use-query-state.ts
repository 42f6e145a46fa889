// Page state that belongs in the URL (filters, paging, selection), so every view is a deep link.
"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";

export type QueryPatch = Record<string, string | number | boolean | null | undefined>;

/**
 * The current search params and a setter that merges a patch into them (null, undefined,
 * "" and false remove a key). History is replaced, not pushed: filters are not navigation.
 */
export function useQueryState(): [URLSearchParams, (patch: QueryPatch) => void] {
  const sp = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const set = useCallback(
    (patch: QueryPatch) => {
      const next = new URLSearchParams(sp.toString());
      for (const [k, v] of Object.entries(patch)) {
        if (v === null || v === undefined || v === "" || v === false) next.delete(k);
        else next.set(k, v === true ? "1" : String(v));
      }
      const s = next.toString();
      router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
    },
    [sp, router, pathname],
  );
  return [sp, set];
}

export { intParam } from "./int-param";

/**
 * A text input bound to a query parameter: typing is local and immediate, the URL follows
 * after a short pause so history is not rewritten on every key.
 */
export function useDebouncedParam(value: string, onCommit: (v: string) => void, delayMs = 250): [string, (v: string) => void] {
  const [local, setLocal] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const commit = useRef(onCommit);
  commit.current = onCommit;
  // Back/forward or a link changed the URL: follow it.
  useEffect(() => setLocal(value), [value]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const set = useCallback(
    (v: string) => {
      setLocal(v);
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => commit.current(v), delayMs);
    },
    [delayMs],
  );
  return [local, set];
}
