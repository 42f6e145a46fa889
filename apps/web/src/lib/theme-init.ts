// The script the root layout inlines at the top of every page (with the response's CSP
// nonce): it runs before first paint so a dark-mode user never sees a white flash. Inline,
// not a file: a script that blocks the parser must not wait for a request of its own to a
// busy server before the first rows of a page can show. Kept in step with lib/theme.ts (the
// storage key, the class and the rule).
export const THEME_INIT_SCRIPT = `(() => {
  try {
    const pref = localStorage.getItem("fleet-theme");
    const dark = pref === "dark" || ((pref === null || pref === "system") && window.matchMedia("(prefers-color-scheme: dark)").matches);
    document.documentElement.classList.toggle("dark", dark);
    document.documentElement.style.colorScheme = dark ? "dark" : "light";
  } catch {
    // no storage (a private window's policy): the light default stands
  }
})();`;
