"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { RawValue } from "@fleet/schema";

import { errorMessage } from "@/lib/api";
import { formatBytes } from "@/lib/format";
import { DOWNLOAD_CAP, SHOW_ALL_CAP, TREE_MAX_BYTES, base64ToBlob, downloadName, sameValue, saveBlob, shownBytes, type LoadFull } from "@/lib/full-value";
import { base64ToBytes, classifyRaw, hexDump } from "@/lib/raw-value";

import { CopyButton } from "./copy-button";
import { CorruptBadge } from "./corrupt-badge";
import { JsonView } from "./json-view";

type Mode = "tree" | "text" | "hex" | "base64";

export { classifyRaw, hexDump };
export type { LoadFull };

const COLLAPSED_MAX_H = "max-h-72";
const EXPANDED_MAX_H = "max-h-[70vh]";
/** More characters than this start collapsed behind "Show all". */
const LONG_CHARS = 1500;
/** The hex view dumps this many bytes at most; Download saves the rest. */
const HEX_MAX = 64 * 1024;
/** Long text is laid out in slices of about this many characters (see TextBlock). */
const TEXT_SLICE = 32 * 1024;

/**
 * A value read from Redis that may not be JSON or UTF-8. JSON shows as a collapsible tree
 * (or pretty text), other text as text, bytes as hex or base64. A truncated preview says
 * so; given `loadFull`, "Show all" fetches the whole value (up to SHOW_ALL_CAP) and
 * "Download" saves it as a file (up to DOWNLOAD_CAP). Values above TREE_MAX_BYTES show as
 * plain text in a scroll box, never as a tree. Everything renders as text.
 */
export function RawValueView({
  value,
  loadFull,
  expectJson = true,
  label = "value",
  fileName,
  onFullValue,
  initialFull = null,
  className,
}: {
  value: RawValue | null | undefined;
  /** Fetches the value with up to `maxBytes` bytes of it, when the API offers a way (lib/full-value). */
  loadFull?: LoadFull;
  /** When true (the default), text that is not JSON is flagged as corrupt. */
  expectJson?: boolean;
  /** What the value is, for button labels ("Copy payload"). */
  label?: string;
  /** Base of the downloaded file's name (default: `label`). */
  fileName?: string;
  /** Told the whole value once "Show all" fetched it, and null when it no longer applies; pass a stable function. */
  onFullValue?: (full: RawValue | null) => void;
  /** A whole value fetched before (by a view of the same row that was unmounted): shown if it still fits. */
  initialFull?: RawValue | null;
  className?: string;
}) {
  const [full, setFull] = useState<RawValue | null>(initialFull);
  const [busy, setBusy] = useState<"show" | "download" | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [expanded, setExpanded] = useState(initialFull !== null);
  const [mode, setMode] = useState<Mode | null>(null);

  // The full value belongs to the preview it was fetched for: once the row shows another
  // value (a refetch found something else at that place), it no longer applies.
  const fullFits = useMemo(() => full !== null && value !== null && value !== undefined && sameValue(full, value), [full, value]);
  const v: RawValue | null = (fullFits ? full : null) ?? value ?? null;
  const current = fullFits ? full : null;
  // Only changes are told: a view mounted again (after an editor closed) keeps quiet until it has news.
  const told = useRef<RawValue | null>(initialFull);
  useEffect(() => {
    if (told.current === current) return;
    told.current = current;
    onFullValue?.(current);
  }, [current, onFullValue]);

  const kind = v ? classifyRaw(v) : "binary";
  const big = v ? shownBytes(v) > TREE_MAX_BYTES : false;
  const modes: Mode[] = kind === "json" ? (big ? ["text", "base64"] : ["tree", "text", "base64"]) : kind === "text" ? ["text", "hex", "base64"] : ["hex", "base64"];
  const effectiveMode: Mode = mode !== null && modes.includes(mode) ? mode : modes[0]!;

  // A big value is shown as stored: pretty-printing megabytes costs more than it helps.
  const pretty = useMemo(() => (v && kind === "json" && !big ? JSON.stringify(v.json ?? null, null, 2) : null), [v, kind, big]);
  const hex = useMemo(() => {
    if (!v || effectiveMode !== "hex") return "";
    const n = shownBytes(v);
    const dump = hexDump(base64ToBytes(v.base64.slice(0, Math.ceil(HEX_MAX / 3) * 4)), HEX_MAX);
    return n > HEX_MAX ? `${dump}\n… ${formatBytes(n - HEX_MAX)} more: Download saves every byte` : dump;
  }, [v, effectiveMode]);

  if (!v) return <span className="text-sm text-slate-500 italic">missing</span>;

  const textForMode = effectiveMode === "text" ? (pretty ?? v.text ?? "") : effectiveMode === "base64" ? v.base64 : effectiveMode === "hex" ? hex : (pretty ?? "");
  const truncated = v.truncated === true;
  // A truncated preview of JSON is cut mid-document: not corrupt, just incomplete.
  const corrupt = !truncated && expectJson && kind !== "json";
  const long = textForMode.length > LONG_CHARS;
  const canLoad = truncated && loadFull !== undefined && !fullFits;
  const cutJson = truncated && kind === "text" && /^\s*[[{]/.test(v.text ?? "");
  const fileKind = kind === "json" || cutJson ? "json" : kind;

  const showAll = async () => {
    if (!loadFull) return;
    setBusy("show");
    setLoadError(null);
    try {
      setFull(await loadFull(SHOW_ALL_CAP));
      setExpanded(true);
    } catch (err) {
      setLoadError(errorMessage(err));
    } finally {
      setBusy(null);
    }
  };

  const download = async () => {
    setLoadError(null);
    let target = v;
    if (truncated && loadFull) {
      setBusy("download");
      try {
        target = await loadFull(DOWNLOAD_CAP);
      } catch (err) {
        setLoadError(errorMessage(err));
        return;
      } finally {
        setBusy(null);
      }
    }
    const partial = target.truncated === true ? shownBytes(target) : undefined;
    saveBlob(base64ToBlob(target.base64), downloadName(fileName ?? label, fileKind, partial));
  };

  const shown = shownBytes(v);
  const toggleLabel = canLoad ? (v.bytes > SHOW_ALL_CAP ? `Show the first ${formatBytes(SHOW_ALL_CAP)}` : `Show all ${formatBytes(v.bytes)}`) : expanded ? "Show less" : "Show all";
  const downloadTitle = !truncated
    ? `Save the ${formatBytes(v.bytes)} as a file`
    : loadFull
      ? v.bytes > DOWNLOAD_CAP
        ? `Save the first ${formatBytes(DOWNLOAD_CAP)} of ${formatBytes(v.bytes)} (the most the API answers)`
        : `Fetch and save all ${formatBytes(v.bytes)}`
      : `Save the ${formatBytes(shown)} preview (the API returns no more)`;

  return (
    <div className={`min-w-0 rounded-md border border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-900/60 ${className ?? ""}`}>
      {/* Phones: what the value is on one line, how to show it and what to do with it on the
          next (no button left alone on a third); wide screens: one line. */}
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 border-b border-slate-200 px-2 py-1 text-xs dark:border-slate-800">
        <div className="flex w-full min-w-0 flex-wrap items-center gap-x-2 gap-y-1 sm:w-auto">
          <span className="text-slate-600 dark:text-slate-400">
            {kind === "json" ? "JSON" : kind === "text" ? (cutJson ? "JSON (cut)" : "text") : "binary"} · {formatBytes(v.bytes)}
          </span>
          {corrupt && <CorruptBadge label={kind === "binary" ? "not UTF-8" : "not JSON"} />}
          {truncated ? (
            <span className="rounded bg-amber-100 px-1.5 py-0.5 font-medium text-amber-900 dark:bg-amber-950 dark:text-amber-200">
              {fullFits ? "first" : "preview: first"} {formatBytes(shown)} of {formatBytes(v.bytes)}
            </span>
          ) : (
            fullFits && <span className="rounded bg-emerald-100 px-1.5 py-0.5 font-medium text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200">whole value</span>
          )}
        </div>
        <div className="flex w-full flex-wrap items-center justify-between gap-x-2 gap-y-1 sm:ml-auto sm:w-auto sm:justify-end">
          <div role="group" aria-label={`Show ${label} as`} className="flex gap-0.5">
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
          <div className="flex items-center gap-1 whitespace-nowrap">
            <CopyButton getText={() => (effectiveMode === "tree" ? (pretty ?? "") : textForMode)} label={`Copy ${label}`} className="text-xs" />
            <button type="button" className="btn-ghost text-xs" onClick={() => void download()} disabled={busy !== null} aria-label={`Download ${label}`} title={downloadTitle}>
              <svg aria-hidden viewBox="0 0 16 16" className="size-3.5 fill-none stroke-current" strokeWidth="1.5">
                <path d="M8 2.5v8M4.5 7 8 10.5 11.5 7M3 13.5h10" strokeLinecap="round" strokeLinejoin="round" />
              </svg>
              {/* an arrow alone on phones (the name stays "Download …"); the busy state is always spelled out */}
              <span className={busy === "download" ? "" : "max-sm:sr-only"}>{busy === "download" ? "Downloading…" : "Download"}</span>
            </button>
          </div>
        </div>
      </div>
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label comes and goes with role="group" (a long value's scroll box) */}
      <div
        className={`overflow-auto p-2 ${expanded ? EXPANDED_MAX_H : long ? COLLAPSED_MAX_H : ""}`}
        // a scroll box must be reachable by keyboard to be scrolled without a mouse
        tabIndex={long || expanded ? 0 : undefined}
        role={long || expanded ? "group" : undefined}
        aria-label={long || expanded ? `${label} content` : undefined}
      >
        {effectiveMode === "tree" ? <JsonView value={v.json ?? null} /> : <TextBlock text={textForMode} />}
      </div>
      {(long || truncated || loadError) && (
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1 border-t border-slate-200 px-2 py-1 text-xs dark:border-slate-800">
          {(long || canLoad) && (
            <button
              type="button"
              className="link font-medium"
              aria-expanded={canLoad ? false : expanded}
              disabled={busy !== null}
              onClick={() => (canLoad ? void showAll() : setExpanded((e) => !e))}
            >
              {busy === "show" ? `Loading ${formatBytes(Math.min(v.bytes, SHOW_ALL_CAP))}…` : toggleLabel}
            </button>
          )}
          {canLoad && v.bytes > SHOW_ALL_CAP && (
            <span className="text-slate-600 dark:text-slate-400">
              {formatBytes(v.bytes)} is more than the page shows; Download saves{" "}
              {v.bytes > DOWNLOAD_CAP ? `the first ${formatBytes(DOWNLOAD_CAP)} (the most the API answers)` : "all of it"}.
            </span>
          )}
          {fullFits && truncated && (
            <span className="text-slate-600 dark:text-slate-400">
              Showing the first {formatBytes(shown)}; Download saves {v.bytes > DOWNLOAD_CAP ? `the first ${formatBytes(DOWNLOAD_CAP)}` : "all of it"}.
            </span>
          )}
          {big && kind === "json" && <span className="text-slate-600 dark:text-slate-400">Over {formatBytes(TREE_MAX_BYTES)}: shown as stored, without the tree.</span>}
          {truncated && !loadFull && <span className="text-slate-600 dark:text-slate-400">The API returns a preview of large values.</span>}
          {loadError && (
            <span role="alert" className="text-red-700 dark:text-red-400">
              {loadError}
            </span>
          )}
        </div>
      )}
    </div>
  );
}

/**
 * Text as `<pre>` blocks of about TEXT_SLICE characters, cut at line ends where there are
 * some. Blocks out of view skip layout and paint (`content-visibility: auto`), so megabytes
 * of text scroll without freezing the page, and find-in-page still sees all of it.
 */
function TextBlock({ text }: { text: string }) {
  const slices = useMemo(() => {
    if (text.length <= TEXT_SLICE * 2) return [text];
    const out: string[] = [];
    let at = 0;
    while (at < text.length) {
      let end = Math.min(text.length, at + TEXT_SLICE);
      if (end < text.length) {
        const nl = text.lastIndexOf("\n", end);
        if (nl > at + TEXT_SLICE / 2) end = nl + 1;
      }
      out.push(text.slice(at, end));
      at = end;
    }
    return out;
  }, [text]);
  const cls = "font-mono text-xs leading-5 break-all whitespace-pre-wrap";
  if (slices.length === 1) return <pre className={cls}>{text}</pre>;
  return (
    <div>
      {slices.map((s, i) => (
        <pre key={i} className={cls} style={{ contentVisibility: "auto", containIntrinsicSize: "auto 30rem" }}>
          {s}
        </pre>
      ))}
    </div>
  );
}
