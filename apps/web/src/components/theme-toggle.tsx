"use client";

import { useTheme } from "@/lib/theme";

/** Switches light/dark; the first choice overrides the system preference and is remembered. */
export function ThemeToggle() {
  const { dark, setPreference } = useTheme();
  return (
    <button
      type="button"
      onClick={() => setPreference(dark ? "light" : "dark")}
      aria-label={dark ? "Switch to light mode" : "Switch to dark mode"}
      title={dark ? "Switch to light mode" : "Switch to dark mode"}
      className="btn-ghost size-8 justify-center p-0 text-base"
    >
      <span aria-hidden suppressHydrationWarning>
        {dark ? "☀" : "☾"}
      </span>
    </button>
  );
}
