// Small text helpers of the alerts: spans in words, and webhook URLs that never show a secret.

/** 90 → "1 min 30 s", 7200 → "2 h". */
export function formatSpan(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) {
    const m = Math.floor(s / 60);
    const r = s % 60;
    return r ? `${m} min ${r} s` : `${m} min`;
  }
  if (s < 86_400) {
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  return h ? `${d} d ${h} h` : `${d} d`;
}

/**
 * A webhook URL fit for logs, error messages and non-admin readers: scheme, host and port
 * only. Webhook secrets live in the query string and, for Slack-style hooks, in the path:
 * both are replaced by "…", and user info is dropped.
 */
export function maskWebhookUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = (u.pathname && u.pathname !== "/" ? "/…" : "") + (u.search ? "?…" : "");
    return `${u.protocol}//${u.host}${rest}`;
  } catch {
    return "(not a URL)";
  }
}
