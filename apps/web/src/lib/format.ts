// Small formatting helpers shared by the pages.

const nf = new Intl.NumberFormat("en-US");

export function formatNumber(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  return nf.format(n);
}

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** "3 s", "4 min 5 s", "2 h 10 min", "3 d 4 h" for a positive number of seconds. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/**
 * "13:05:09" (24-hour, local time) for a unix-seconds timestamp, as the charts label their
 * axes; `seconds: false` gives "13:05". Built from the parts, not toLocaleTimeString: that
 * follows the browser's locale (12-hour "1:05:09 PM" in en-US) and renders midnight as
 * "24:00" in some engines with `hour12: false`.
 */
export function clockTime(unixSeconds: number, { seconds = true }: { seconds?: boolean } = {}): string {
  const d = new Date(unixSeconds * 1000);
  if (Number.isNaN(d.getTime())) return String(unixSeconds);
  const hm = `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  return seconds ? `${hm}:${pad2(d.getSeconds())}` : hm;
}

/** ISO 8601 (UTC) of a unix-seconds timestamp; the number itself when it is no date. */
export function isoTime(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  return Number.isNaN(d.getTime()) ? String(unixSeconds) : d.toISOString();
}

/** "13:05:09 UTC": what a page rendered on the server shows, the same in the browser's first render whatever its time zone. */
export function utcClockTime(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  if (Number.isNaN(d.getTime())) return String(unixSeconds);
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} UTC`;
}

/** "2026-11-30 13:05:09" in local time, 24-hour. */
export function localDateTime(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  if (Number.isNaN(d.getTime())) return String(unixSeconds);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${clockTime(unixSeconds)}`;
}

/** Local date and 24-hour time plus ISO (UTC) for a unix-seconds timestamp: the tooltip of relative times. */
export function absoluteTime(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  if (Number.isNaN(d.getTime())) return String(unixSeconds);
  return `${localDateTime(unixSeconds)} (${d.toISOString()})`;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return formatDuration(ms / 1000);
}

/** Coarser than formatDuration, for "… ago": seconds only under a minute. */
export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}
