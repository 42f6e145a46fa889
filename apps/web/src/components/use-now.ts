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

function getSnapshot(): number {
  // Before the first subscriber the clock is not running: refresh a stale value, but only
  // when it is a second old, so calls within one render agree.
  if (timer === null && Date.now() / 1000 - now >= 1) now = Date.now() / 1000;
  return now;
}

/** Unix seconds, updated every second; null during server rendering. */
export function useNow(): number | null {
  return useSyncExternalStore(
    subscribe,
    // The same value on every call until the clock ticks: React compares snapshots, and a
    // fresh Date.now() per call made it warn ("getSnapshot should be cached") and re-render.
    getSnapshot,
    () => null,
  );
}
