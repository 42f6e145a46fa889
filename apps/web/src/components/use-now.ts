// One shared one-second clock for every relative time and countdown on the page.
"use client";

import { useSyncExternalStore } from "react";

const listeners = new Set<() => void>();
let now = 0;
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(fn: () => void) {
  listeners.add(fn);
  if (timer === null) {
    now = Date.now() / 1000;
    timer = setInterval(() => {
      now = Date.now() / 1000;
      for (const l of listeners) l();
    }, 1000);
  }
  return () => {
    listeners.delete(fn);
    if (listeners.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** Unix seconds, updated every second; null during server rendering. */
export function useNow(): number | null {
  return useSyncExternalStore(
    subscribe,
    () => (timer === null ? Date.now() / 1000 : now),
    () => null,
  );
}
