// Text output: aligned tables, key-value blocks, times and value previews. Everything a
// person reads; scripts use --json instead.
import type { RawValue } from "@fleet/schema";

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Numbers align right. */
  align?: "left" | "right";
  /** Cut longer cells to this many characters (with …). */
  max?: number;
}

/** Control characters (a stored value may hold any) as visible escapes, so a cell never moves the terminal. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => (c === "\n" ? "\\n" : c === "\t" ? "\\t" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

function cut(text: string, max: number | undefined): string {
  if (max === undefined || [...text].length <= max) return text;
  return `${[...text].slice(0, Math.max(1, max - 1)).join("")}…`;
}

const width = (s: string) => [...s].length;

export function table<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>): string {
  const cells = rows.map((r) => columns.map((c) => cut(printable(c.value(r)), c.max)));
  const widths = columns.map((c, i) => Math.max(width(c.header), ...cells.map((row) => width(row[i]!))));
  const line = (values: string[]) =>
    values
      .map((v, i) => {
        const pad = " ".repeat(widths[i]! - width(v));
        return columns[i]!.align === "right" ? pad + v : i === values.length - 1 ? v : v + pad;
      })
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join("\n");
}

/** `key   value` lines, keys padded to one width. */
export function keyValues(pairs: ReadonlyArray<[string, string]>): string {
  const w = Math.max(...pairs.map(([k]) => width(k)));
  return pairs.map(([k, v]) => `${k}${" ".repeat(w - width(k))}  ${printable(v)}`).join("\n");
}

/** Unix seconds as an ISO time (UTC, to the second), or `-`. */
export function isoTime(ts: number | null | undefined): string {
  if (ts === null || ts === undefined || !Number.isFinite(ts)) return "-";
  return new Date(ts * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** `5s ago`, `3m ago`, `in 2h`: unix seconds against now. */
export function relative(ts: number | null | undefined, now = Date.now() / 1000): string {
  if (ts === null || ts === undefined || !Number.isFinite(ts)) return "-";
  const d = Math.round(now - ts);
  const abs = Math.abs(d);
  const text = abs < 60 ? `${abs}s` : abs < 3600 ? `${Math.floor(abs / 60)}m` : abs < 86400 ? `${Math.floor(abs / 3600)}h` : `${Math.floor(abs / 86400)}d`;
  return d >= 0 ? `${text} ago` : `in ${text}`;
}

/** A raw value in one line: its JSON, else its text, else `<n bytes of binary>`. */
export function preview(v: RawValue | null | undefined): string {
  if (!v) return "-";
  const body = v.json !== null && v.json !== undefined ? JSON.stringify(v.json) : v.text !== null ? v.text : `<${v.bytes} bytes of binary>`;
  return v.truncated ? `${body}…` : body;
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export function compactJson(value: unknown): string {
  return value === null || value === undefined ? "-" : JSON.stringify(value);
}
