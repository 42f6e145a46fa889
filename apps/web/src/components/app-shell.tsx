"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useId, useRef, useState, useSyncExternalStore, type ReactNode } from "react";

import { ApiError, backendAvailability } from "@/lib/api";
import { queries, queryKeys } from "@/lib/query";

import { LeaveGuard } from "./leave-guard";
import { LiveIndicator } from "./live-indicator";
import { ThemeToggle } from "./theme-toggle";

export const NAV = [
  { href: "/", label: "Overview" },
  { href: "/workers", label: "Workers" },
  { href: "/automations", label: "Automations" },
  { href: "/queues", label: "Queues" },
  { href: "/pools", label: "Pools" },
  { href: "/streams", label: "Streams" },
  { href: "/state", label: "State" },
  { href: "/events", label: "Events" },
  { href: "/errors", label: "Errors" },
  { href: "/alerts", label: "Alerts" },
  { href: "/api-docs", label: "API" },
] as const;

function isActive(pathname: string, href: string): boolean {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}

/** Keeps the health query honest and refetches everything once the backend is back. */
function useBackendHealth() {
  const client = useQueryClient();
  const health = useQuery(queries.health());
  const avail = useSyncExternalStore(backendAvailability.subscribe, backendAvailability.get, backendAvailability.get);
  const healthDown = health.error instanceof ApiError && health.error.backendUnavailable;
  const down = healthDown || avail.unavailable;

  // Some other request saw a 503: ask health now rather than at its next tick.
  useEffect(() => {
    if (avail.unavailable) void client.invalidateQueries({ queryKey: queryKeys.health });
  }, [avail.unavailable, client]);

  // Back from an outage: whatever failed meanwhile is fetched again, without a reload.
  const wasDown = useRef(false);
  useEffect(() => {
    if (down) {
      wasDown.current = true;
    } else if (wasDown.current) {
      wasDown.current = false;
      void client.invalidateQueries({ predicate: (q) => q.queryKey[0] !== "health" });
    }
  }, [down, client]);

  const message = healthDown && health.error ? health.error.message : avail.message;
  return { health: health.data, down, message };
}

/**
 * The first tab stop of every page (the layout renders it before the session bar): jumps past
 * the bars and the navigation to the page itself.
 */
export function SkipLink() {
  return (
    <a
      href="#main"
      className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-slate-900 focus:shadow focus:outline-2 focus:outline-sky-500"
    >
      Skip to content
    </a>
  );
}

/**
 * After an in-app navigation, focus moves to the new page's h1, so a screen reader announces
 * the page and the next Tab starts at its top rather than in the navigation. Not when focus
 * is already somewhere in the page (a field the page focused itself), nor on the first load.
 */
function useFocusHeadingOnNavigation(pathname: string) {
  // The path whose heading was dealt with: the first load's, then each navigation's.
  const handled = useRef(pathname);
  useEffect(() => {
    if (handled.current === pathname) return;
    handled.current = pathname;
    const focusable = () => {
      const active = document.activeElement;
      if (!active || active === document.body) return true;
      // Still on the link that was followed (the header's navigation, a breadcrumb) or the skip link.
      return !document.getElementById("main")?.contains(active) || active.closest("nav") !== null;
    };
    const focusH1 = (): boolean => {
      const h1 = document.querySelector<HTMLElement>("#main h1");
      if (!h1) return false;
      if (!focusable()) return true;
      if (!h1.hasAttribute("tabindex")) h1.setAttribute("tabindex", "-1");
      h1.focus({ preventScroll: true });
      return true;
    };
    if (focusH1()) return;
    // The new page has not drawn its heading yet: wait for it, briefly.
    const main = document.getElementById("main");
    if (!main) return;
    const observer = new MutationObserver(() => {
      if (focusH1()) observer.disconnect();
    });
    observer.observe(main, { childList: true, subtree: true });
    const stop = window.setTimeout(() => observer.disconnect(), 5_000);
    return () => {
      observer.disconnect();
      window.clearTimeout(stop);
    };
  }, [pathname]);
}

export function AppShell({ children }: { children: ReactNode }) {
  const pathname = usePathname() ?? "/";
  // The phone menu is open on the page it was opened on: a navigation closes it.
  const [menuOpenOn, setMenuOpenOn] = useState<string | null>(null);
  const menuOpen = menuOpenOn === pathname;
  const setMenuOpen = (open: boolean) => setMenuOpenOn(open ? pathname : null);
  const menuId = useId();
  const menuButton = useRef<HTMLButtonElement>(null);
  const { health, down, message } = useBackendHealth();

  useFocusHeadingOnNavigation(pathname);

  // Escape closes the phone menu and puts focus back on its button.
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented) return;
      setMenuOpenOn(null);
      menuButton.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [menuOpen]);

  const link = (n: (typeof NAV)[number], mobile: boolean) => {
    const active = isActive(pathname, n.href);
    return (
      <Link
        key={n.href}
        href={n.href}
        // No prefetch: a dozen links in view made every page load ask the server for a
        // dozen layouts (twice, as the router's state moved) right while the page's own
        // requests were in flight; a click asks for the one page, already with its data.
        prefetch={false}
        aria-current={active ? "page" : undefined}
        className={`rounded-md px-2.5 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-sky-500 ${mobile ? "block" : ""} ${
          active
            ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900"
            : "text-slate-600 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
        }`}
      >
        {n.label}
      </Link>
    );
  };

  return (
    <div className="flex min-h-screen flex-col">
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-950/90">
        <div className="mx-auto flex h-14 max-w-7xl items-center gap-3 px-4">
          <Link href="/" prefetch={false} className="flex shrink-0 items-center gap-2 font-semibold tracking-tight">
            <span aria-hidden className="grid size-7 place-items-center rounded-md bg-slate-900 text-xs text-white dark:bg-slate-100 dark:text-slate-900">
              FC
            </span>
            {/* On a phone the live indicator needs the room more than the name does. */}
            <span className="sr-only sm:not-sr-only">Fleet Console</span>
          </Link>
          <nav aria-label="Main" className="hidden min-w-0 flex-1 lg:block">
            <ul className="flex items-center gap-0.5">
              {NAV.map((n) => (
                <li key={n.href}>{link(n, false)}</li>
              ))}
            </ul>
          </nav>
          <div className="ml-auto flex items-center gap-2">
            <LiveIndicator backendDown={down} />
            <ThemeToggle />
            <button ref={menuButton} type="button" className="btn-ghost lg:hidden" aria-expanded={menuOpen} aria-controls={menuId} onClick={() => setMenuOpen(!menuOpen)}>
              <span aria-hidden>{menuOpen ? "✕" : "☰"}</span>
              Menu
            </button>
          </div>
        </div>
        {menuOpen && (
          <nav id={menuId} aria-label="Main" className="border-t border-slate-200 px-4 py-2 lg:hidden dark:border-slate-800">
            <ul className="grid grid-cols-2 gap-1">
              {NAV.map((n) => (
                <li key={n.href}>{link(n, true)}</li>
              ))}
            </ul>
          </nav>
        )}
      </header>

      {down && (
        <div
          role="alert"
          data-testid="backend-unavailable"
          className="border-b border-red-300 bg-red-50 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100"
        >
          <div className="mx-auto max-w-7xl px-4 py-2">
            <strong>The backend is unavailable.</strong> {message ?? "Redis does not answer."} Pages show the last data they had and recover on their own when it is back.
          </div>
        </div>
      )}
      {!down && health?.backend === "memory" && (
        <div data-testid="memory-banner" className="border-b border-amber-300 bg-amber-50 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950/60 dark:text-amber-100">
          <div className="mx-auto max-w-7xl px-4 py-1.5">In-memory demo fleet: nothing here touches a real Redis.</div>
        </div>
      )}

      {/* tabIndex: the skip link moves focus here, so the next Tab is the page's first control. */}
      <main id="main" tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 focus:outline-none">
        {children}
      </main>
      <LeaveGuard />
    </div>
  );
}
