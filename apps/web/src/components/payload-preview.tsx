"use client";

import type { RawValue } from "@fleet/schema";

import { CorruptBadge } from "./corrupt-badge";
import { classifyRaw } from "./raw-value-view";
import { formatBytes } from "@/lib/format";
import { cutJsonField } from "@/lib/full-value";

const PREVIEW_CHARS = 240;

/** One line of a RawValue, for a table cell: compact JSON, plain text, or a byte count. */
export function previewText(v: RawValue | null | undefined): string {
  if (!v) return "missing";
  const kind = classifyRaw(v);
  if (kind === "binary") return `binary · ${formatBytes(v.bytes)}`;
  const s = kind === "json" && v.json !== null && v.json !== undefined ? JSON.stringify(v.json) : (v.text ?? "");
  return s.length > PREVIEW_CHARS ? `${s.slice(0, PREVIEW_CHARS)}…` : s;
}

/** A single truncated line of a payload, as text; the full value is one click away (RawValueView). */
export function PayloadPreview({
  value,
  field,
  className,
}: {
  value: RawValue | null | undefined;
  /** Preview only this field of a JSON object (a task body's `payload`), when it has it. */
  field?: string;
  className?: string;
}) {
  const kind = value ? classifyRaw(value) : "binary";
  // a cut preview of JSON is incomplete, not odd
  const odd = !value || (kind !== "json" && !(value.truncated && kind === "text" && /^\s*[[{]/.test(value.text ?? "")));
  const sub = field ? bodyField(value, field) : null;
  // A truncated preview of JSON is cut mid-document: incomplete, not corrupt.
  const corrupt = value && !value.truncated && kind !== "json" ? (kind === "binary" ? "not UTF-8" : "not JSON") : null;
  return (
    <span className={`flex min-w-0 items-center gap-2 ${className ?? ""}`}>
      {corrupt && <CorruptBadge label={corrupt} className="shrink-0" />}
      <PreviewLine value={value} sub={sub} odd={odd} />
      {value?.truncated && (
        <span
          className="shrink-0 rounded bg-amber-100 px-1.5 py-0.5 text-[11px] font-medium text-amber-900 tabular-nums dark:bg-amber-950 dark:text-amber-200"
          title={`A large value: the list shows a preview of its ${formatBytes(value.bytes)}`}
        >
          {formatBytes(value.bytes)}
        </span>
      )}
    </span>
  );
}

function PreviewLine({ value, sub, odd }: { value: RawValue | null | undefined; sub: string | null; odd: boolean }) {
  return (
    <span
      className={`block min-w-0 truncate font-mono text-xs ${odd ? "text-amber-800 italic dark:text-amber-300" : "text-slate-700 dark:text-slate-300"}`}
      title={value?.truncated ? "Preview of a large value" : undefined}
    >
      {sub !== null ? (sub.length > PREVIEW_CHARS ? `${sub.slice(0, PREVIEW_CHARS)}…` : sub) : previewText(value)}
    </span>
  );
}

/** A field of a JSON object body (e.g. `last_error` of a dead letter), as text, when present. */
export function bodyField(v: RawValue | null | undefined, field: string): string | null {
  // a cut preview of a large JSON body still holds its first members
  if (v?.truncated && (v.json === null || v.json === undefined) && v.text) {
    const f = cutJsonField(v.text, field);
    return f === undefined || f === null ? null : typeof f === "string" ? f : JSON.stringify(f);
  }
  const j = v?.json;
  if (j === null || typeof j !== "object" || Array.isArray(j)) return null;
  const f = (j as Record<string, unknown>)[field];
  if (f === undefined || f === null) return null;
  return typeof f === "string" ? f : JSON.stringify(f);
}
