"use client";

import { useId, type ReactNode } from "react";

import { useModalDialog } from "./use-modal-dialog";

/**
 * A modal confirmation on the native <dialog> (focus trap, Escape and inert background
 * come from the browser). The caller's title and confirm label say how many things the
 * action touches, e.g. "Delete 3 dead letters?".
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = "Cancel",
  destructive = true,
  busy = false,
  error,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  destructive?: boolean;
  busy?: boolean;
  /** Shown inside the dialog when the action failed, so the user can retry or cancel. */
  error?: ReactNode;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useModalDialog(open);
  const titleId = useId();
  const bodyId = useId();

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the backdrop click is the mouse's way out; Escape (native to a modal <dialog>) is the keyboard's
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={children ? bodyId : undefined}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
      onClick={(e) => {
        // A click on the backdrop lands on the dialog element itself.
        if (e.target === ref.current && !busy) onCancel();
      }}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl border border-slate-200 bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      {open && (
        <div className="p-5">
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          {children && (
            <div id={bodyId} className="mt-2 text-sm text-slate-600 dark:text-slate-300">
              {children}
            </div>
          )}
          {error && (
            <div role="alert" className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
              {error}
            </div>
          )}
          <div className="mt-5 flex flex-wrap justify-end gap-2">
            <button type="button" className="btn" onClick={onCancel} disabled={busy} autoFocus>
              {cancelLabel}
            </button>
            <button type="button" className={destructive ? "btn-danger" : "btn-primary"} onClick={onConfirm} disabled={busy} aria-busy={busy}>
              {busy ? "Working…" : confirmLabel}
            </button>
          </div>
        </div>
      )}
    </dialog>
  );
}
