"use client";

import { useMemo, useState } from "react";
import type { RawValue } from "@fleet/schema";

import { errorMessage } from "@/lib/api";
import { base64ToBytes, classifyRaw, hexDump } from "@/lib/raw-value";
import { formatBytes } from "@/lib/format";

import { CopyButton } from "./copy-button";
import { CorruptBadge } from "./corrupt-badge";
import { JsonView } from "./json-view";

type Mode = "tree" | "text" | "hex" | "base64";

export { classifyRaw, hexDump };

const COLLAPSED_MAX_H = "max-h-72";

/**
 * A value read from Redis that may not be JSON or UTF-8. JSON shows as a collapsible tree
 * (or pretty text), other text as text, bytes as hex or base64; a truncated preview says
 * so and, given `loadFull`, can fetch the whole value. Everything renders as text.
 */
export function RawValueView({
  value,
  loadFull,
  expectJson = true,
  label = "value",
  className,
}: {
  value: RawValue | null | undefined;
  /** Fetches the untruncated value, when the API offers a way. */
  loadFull?: () => Promise<RawValue>;
  /** When true (the default), text that is not JSON is flagged as corrupt. */
  expectJson?: boolean;
  /** What the value is, for button labels ("Copy payload"). */
  label?: string;
  className?: string;
}) {
  const [full, setFull] = useState<RawValue | null>(null);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [expanded, setExpanded] = useState(false);
  const v = full ?? value ?? null;
  const kind = v ? classifyRaw(v) : "binary";
  const [mode, setMode] = useState<Mode | null>(null);
  const effectiveMode: Mode = mode ?? (kind === "json" ? "tree" : kind === "text" ? "text" : "hex");

  const bytes = useMemo(() => (v && (effectiveMode === "hex" || kind === "binary") ? base64ToBytes(v.base64) : null), [v, effectiveMode, kind]);

  if (!v) return <span className="text-sm text-slate-500 italic">missing</span>;

  const pretty = kind === "json" ? JSON.stringify(v.json ?? null, null, 2) : null;
  const textForMode =
    effectiveMode === "text"
      ? (pretty ?? v.text ?? "")
      : effectiveMode === "base64"
        ? v.base64
        : effectiveMode === "hex"
          ? hexDump(bytes ?? new Uint8Array())
          : (pretty ?? "");
  const copyText = effectiveMode === "tree" ? (pretty ?? "") : textForMode;
  const truncated = v.truncated === true;
  // A truncated preview of JSON is cut mid-document: not corrupt, just incomplete.
  const corrupt = !truncated && expectJson && kind !== "json";
  const modes: Mode[] = kind === "json" ? ["tree", "text", "base64"] : kind === "text" ? ["text", "hex", "base64"] : ["hex", "base64"];
  const long = textForMode.length > 1500 || (effectiveMode === "tree" && (pretty?.length ?? 0) > 1500);

  const onLoadFull = async () => {
    if (!loadFull) return;
    setLoading(true);
    setLoadError(null);
    try {
      setFull(await loadFull());
      setExpanded(true);
    } catch (err) {
      setLoadError(errorMessage(err));
    } finally {
      setLoading(false);
    }
  };

  return (
    <div className={`min-w-0 rounded-md border border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-900/60 ${className ?? ""}`}>
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-2 py-1 text-xs dark:border-slate-800">
        <span className="text-slate-500 dark:text-slate-400">
          {kind === "json" ? "JSON" : kind === "text" ? (truncated && /^\s*[[{]/.test(v.text ?? "") ? "JSON (cut)" : "text") : "binary"} ·{" "}
          {formatBytes(v.bytes)}
        </span>
        {corrupt && <CorruptBadge label={kind === "binary" ? "not UTF-8" : "not JSON"} />}
        {truncated && (
          <span className="rounded bg-slate-200 px-1.5 py-0.5 font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-300">
            preview: first {formatBytes(Math.ceil((v.base64.length * 3) / 4))} of {formatBytes(v.bytes)}
          </span>
        )}
        <div role="group" aria-label={`Show ${label} as`} className="ml-auto flex gap-0.5">
          {modes.map((m) => (
            <button
              key={m}
              type="button"
              aria-pressed={effectiveMode === m}
              onClick={() => setMode(m)}
              className={`rounded px-1.5 py-0.5 focus-visible:outline-2 focus-visible:outline-sky-500 ${
                effectiveMode === m
                  ? "bg-slate-800 text-white dark:bg-slate-200 dark:text-slate-900"
                  : "text-slate-600 hover:bg-slate-200 dark:text-slate-300 dark:hover:bg-slate-800"
              }`}
            >
              {m}
            </button>
          ))}
        </div>
        <CopyButton getText={() => copyText} label={`Copy ${label}`} className="text-xs" />
      </div>
      <div className={`overflow-auto p-2 ${expanded || !long ? "" : COLLAPSED_MAX_H}`}>
        {effectiveMode === "tree" ? (
          <JsonView value={v.json ?? null} />
        ) : (
          <pre className="font-mono text-xs leading-5 break-all whitespace-pre-wrap">{textForMode}</pre>
        )}
      </div>
      {(long || truncated) && (
        <div className="flex flex-wrap items-center gap-3 border-t border-slate-200 px-2 py-1 text-xs dark:border-slate-800">
          {long && (
            <button type="button" className="link" aria-expanded={expanded} onClick={() => setExpanded((e) => !e)}>
              {expanded ? "Show less" : "Show all"}
            </button>
          )}
          {truncated && loadFull && (
            <button type="button" className="link" onClick={() => void onLoadFull()} disabled={loading}>
              {loading ? "Loading the full value…" : `Load the full ${formatBytes(v.bytes)}`}
            </button>
          )}
          {truncated && !loadFull && <span className="text-slate-500">The API returns a preview of large values.</span>}
          {loadError && <span role="alert" className="text-red-700 dark:text-red-400">{loadError}</span>}
        </div>
      )}
    </div>
  );
}
