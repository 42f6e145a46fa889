"use client";

import type { ReactNode } from "react";

import { formatNumber } from "@/lib/format";

/** A labelled number, with a tone for the ones that need attention. */
export function Stat({
  label,
  value,
  tone = "plain",
  hint,
  compact = false,
}: {
  label: string;
  value: number | null | undefined;
  tone?: "plain" | "warn" | "bad";
  hint?: ReactNode;
  /** Smaller on phones (a row of four fits 390 px); the usual size from `sm` up. */
  compact?: boolean;
}) {
  const hot = (value ?? 0) > 0;
  const toneCls =
    hot && tone === "bad"
      ? "border-red-300 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200"
      : hot && tone === "warn"
        ? "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
        : "border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900";
  return (
    <div className={`min-w-0 rounded-lg border ${compact ? "px-2 py-1 sm:px-3 sm:py-2" : "px-3 py-2"} ${toneCls}`}>
      <dt className={`truncate font-medium opacity-75 ${compact ? "text-[0.6875rem] sm:text-xs sm:tracking-wide sm:uppercase" : "text-xs tracking-wide uppercase"}`}>{label}</dt>
      <dd className={`font-semibold tabular-nums ${compact ? "text-base sm:mt-0.5 sm:text-xl" : "mt-0.5 text-xl"}`}>{formatNumber(value)}</dd>
      {hint && <dd className="text-xs opacity-75">{hint}</dd>}
    </div>
  );
}

/** The outcome of the last action (role=status, or role=alert for a failure), dismissible. */
export function ResultNote({ kind = "ok", children, onDismiss }: { kind?: "ok" | "warn" | "error"; children: ReactNode; onDismiss?: () => void }) {
  const cls =
    kind === "error"
      ? "border-red-300 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200"
      : kind === "warn"
        ? "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
        : "border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-200";
  return (
    <div role={kind === "error" ? "alert" : "status"} className={`flex items-start gap-3 rounded-md border px-3 py-2 text-sm ${cls}`}>
      <div className="min-w-0 flex-1 break-words">{children}</div>
      {onDismiss && (
        <button type="button" className="btn-ghost -my-1 text-xs" onClick={onDismiss} aria-label="Dismiss message">
          ✕
        </button>
      )}
    </div>
  );
}

/** The last action's outcome as a page keeps it in state: `useState<ActionNote | null>`. */
export interface ActionNote {
  kind: "ok" | "warn" | "error";
  text: string;
}

/** A section's ResultNote for the last action, if any, above its content. */
export function ActionNoteSlot({ note, onDismiss }: { note: ActionNote | null; onDismiss: () => void }) {
  if (!note) return null;
  return (
    <div className="mb-3">
      <ResultNote kind={note.kind} onDismiss={onDismiss}>
        {note.text}
      </ResultNote>
    </div>
  );
}

/** A section of a detail page: heading with a count, optional tools, then content. */
export function Section({
  id,
  title,
  count,
  tools,
  children,
  description,
  empty,
}: {
  id: string;
  title: string;
  count?: ReactNode;
  tools?: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  /** Set when there is nothing to list: the section shrinks to one line, heading, count and this. */
  empty?: ReactNode;
}) {
  const headingId = `${id}-heading`;
  if (empty !== undefined) {
    return (
      <section id={id} aria-labelledby={headingId} className="mt-6">
        <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
          <SectionHeading id={id} headingId={headingId} title={title} count={count} />
          <p className="text-sm text-slate-600 dark:text-slate-400">{empty}</p>
          {tools && <div className="ml-auto flex flex-wrap items-center gap-2">{tools}</div>}
        </div>
      </section>
    );
  }
  return (
    <section id={id} aria-labelledby={headingId} className="mt-8">
      <div className="mb-3 flex flex-wrap items-end justify-between gap-2">
        <div className="min-w-0">
          <div className="flex flex-wrap items-baseline gap-x-2">
            <SectionHeading id={id} headingId={headingId} title={title} count={count} />
          </div>
          {description && <p className="text-sm text-slate-600 dark:text-slate-400">{description}</p>}
        </div>
        {tools && <div className="flex flex-wrap items-center gap-2">{tools}</div>}
      </div>
      {children}
    </section>
  );
}

// The count sits beside the heading, not in it: the heading (and the section it names)
// reads "Dead letters", not "Dead letters13".
function SectionHeading({ id, headingId, title, count }: { id: string; headingId: string; title: string; count?: ReactNode }) {
  return (
    <>
      <h2 id={headingId} className="text-lg font-semibold">
        {title}
      </h2>
      {count !== undefined && (
        <span data-testid={`${id}-count`} className="rounded-full bg-slate-100 px-2 py-px text-xs font-medium text-slate-600 tabular-nums dark:bg-slate-800 dark:text-slate-300">
          {count}
        </span>
      )}
    </>
  );
}

/** How many items a detail page lists (the `limit` query parameter; 100, the API's default, stays out of the URL). */
export const LIST_LIMITS = [50, 100, 500, 1000] as const;

export function LimitSelect({ label, value, onChange }: { label: string; value: number; onChange: (limit: string | null) => void }) {
  return (
    <label className="flex items-center gap-2 text-sm">
      {label}
      <select className="field" value={value} onChange={(e) => onChange(e.target.value === "100" ? null : e.target.value)}>
        {LIST_LIMITS.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A count that is zero reads muted, so the non-zero ones stand out in a table. */
export function Num({ value, tone }: { value: number | null | undefined; tone?: "warn" | "bad" }) {
  const n = value ?? 0;
  if (n === 0) return <span className="text-slate-500 tabular-nums dark:text-slate-400">0</span>;
  const cls =
    tone === "bad"
      ? "rounded bg-red-100 px-1.5 py-0.5 font-semibold text-red-800 dark:bg-red-950 dark:text-red-300"
      : tone === "warn"
        ? "rounded bg-amber-100 px-1.5 py-0.5 font-semibold text-amber-900 dark:bg-amber-950 dark:text-amber-300"
        : "";
  return <span className={`tabular-nums ${cls}`}>{formatNumber(n)}</span>;
}

/** A quiet "nothing here" line inside a section (EmptyState is for whole pages). */
export function InlineEmpty({ children }: { children: ReactNode }) {
  return <p className="rounded-lg border border-dashed border-slate-300 px-4 py-4 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">{children}</p>;
}

/**
 * A task id (32 hex) in mono, cut to fit; the whole id stays in the DOM and the tooltip.
 * `leading="sm"` gives it, from `md` up, the line height of text-sm and the pixel the
 * smaller font's ascent still leaves, so it shares the baseline of text-sm cells beside it
 * (ItemTable's top-aligned cells); below `md` ItemTable's cards put it beside a text-xs label.
 */
export function TaskId({ id, leading = "xs" }: { id: string | null | undefined; leading?: "xs" | "sm" }) {
  if (!id) return <span className="text-slate-400 italic">no id</span>;
  return (
    <code className={`block max-w-[15rem] truncate font-mono text-xs ${leading === "sm" ? "md:relative md:top-px md:leading-5" : ""}`} title={id}>
      {id}
    </code>
  );
}

/**
 * The bottom of a detail page: actions that destroy (remove a worker, a whole pool), set apart
 * from the everyday ones at the top, each with a line saying what it does.
 */
export function DangerZone({ id, children }: { id: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="mt-8 rounded-lg border border-red-300 p-4 dark:border-red-900" data-testid="danger-zone">
      <h2 id={`${id}-heading`} className="text-base font-semibold text-red-800 dark:text-red-300">
        Danger zone
      </h2>
      <div className="mt-2 flex flex-col gap-3">{children}</div>
    </section>
  );
}

/** One destructive action of a DangerZone: what it does, and its button. */
export function DangerAction({ text, children }: { text: ReactNode; children: ReactNode }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="max-w-prose text-sm text-slate-600 dark:text-slate-400">{text}</p>
      {children}
    </div>
  );
}
