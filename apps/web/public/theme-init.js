// Runs before first paint so a dark-mode user never sees a white flash.
// Kept in sync with src/lib/theme.ts (storage key and class name).
(() => {
  try {
    const pref = localStorage.getItem("fleet-theme");
    const dark = pref === "dark" || ((pref === null || pref === "system") && window.matchMedia("(prefers-color-scheme: dark)").matches);
    document.documentElement.classList.toggle("dark", dark);
    document.documentElement.style.colorScheme = dark ? "dark" : "light";
  } catch {
    // no storage (a private window's policy): the light default stands
  }
})();
