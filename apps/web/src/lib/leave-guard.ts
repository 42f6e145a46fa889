"use client";
// Unsaved work a page holds (a dirty config form): forms say what they hold, and the shell's
// LeaveGuard (src/components/leave-guard.tsx) asks before anything would throw it away, an
// in-app link as well as closing or reloading the tab. One registry, so two dirty forms on a
// page ask once.
import { useEffect, useRef } from "react";

const dirty = new Map<symbol, string>();
let snapshot: readonly string[] = [];
const subscribers = new Set<() => void>();

function publish(): void {
  snapshot = [...dirty.values()];
  for (const s of subscribers) s();
}

export const leaveGuardStore = {
  /** `what`: what would be lost, for the question ("your changes to the config of w1"); null: nothing. */
  set(id: symbol, what: string | null): void {
    if (what === null) {
      if (!dirty.delete(id)) return;
    } else {
      if (dirty.get(id) === what) return;
      dirty.set(id, what);
    }
    publish();
  },
  subscribe(fn: () => void): () => void {
    subscribers.add(fn);
    return () => subscribers.delete(fn);
  },
  /** What unsaved work there is, one line per dirty form (stable between changes). */
  get(): readonly string[] {
    return snapshot;
  },
};

const NONE: readonly string[] = [];
export const emptyLeaveGuard = (): readonly string[] => NONE;

/**
 * Registers unsaved work while `isDirty`: leaving the page (a link, closing the tab) asks first.
 * `what` completes "You have unsaved changes to …".
 */
export function useLeaveGuard(isDirty: boolean, what: string): void {
  const id = useRef<symbol | null>(null);
  id.current ??= Symbol("leave-guard");
  useEffect(() => {
    const key = id.current!;
    leaveGuardStore.set(key, isDirty ? what : null);
    return () => leaveGuardStore.set(key, null);
  }, [isDirty, what]);
}

/**
 * The in-app destination of a click that would leave this page, or null when the click stays
 * (a jump within the page, another window, a download, modified clicks) or leaves the site
 * (the browser's own beforeunload question covers that).
 */
export function leavingDestination(
  e: { button: number; metaKey: boolean; ctrlKey: boolean; shiftKey: boolean; altKey: boolean; target: EventTarget | null },
  here: { origin: string; pathname: string; search: string; href: string },
): string | null {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return null;
  const el = e.target as { closest?: (sel: string) => Element | null } | null;
  const a = el && typeof el.closest === "function" ? (el.closest("a[href]") as HTMLAnchorElement | null) : null;
  if (!a) return null;
  const target = a.getAttribute("target");
  if ((target && target !== "_self") || a.hasAttribute("download")) return null;
  let url: URL;
  try {
    url = new URL(a.getAttribute("href") ?? "", here.href);
  } catch {
    return null;
  }
  if (url.origin !== here.origin) return null;
  if (url.pathname === here.pathname && url.search === here.search) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
