"use client";
// A wide modal for the review and the conflict choice: the native <dialog> gives focus
// trapping, Escape and an inert page; the caller supplies the buttons (the conflict has
// three ways out, the shared ConfirmDialog has two).
import { useId, type ReactNode } from "react";

import { useModalDialog } from "../use-modal-dialog";

export function EditorDialog({
  open,
  title,
  children,
  footer,
  onClose,
  busy = false,
  testId,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  footer: ReactNode;
  onClose: () => void;
  busy?: boolean;
  testId?: string;
}) {
  const ref = useModalDialog(open);
  const titleId = useId();

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
      className="m-auto max-h-[min(48rem,calc(100dvh-2rem))] w-[min(52rem,calc(100vw-1.5rem))] overflow-hidden rounded-xl border border-slate-200 bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      {open && (
        <div className="flex max-h-[min(48rem,calc(100dvh-2rem))] flex-col">
          <h2 id={titleId} className="border-b border-slate-200 px-5 py-4 text-lg font-semibold dark:border-slate-700">
            {title}
          </h2>
          {/* A long review scrolls: the box takes focus so a keyboard can scroll it (axe: scrollable-region-focusable) when nothing in it can. */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll box that holds only text must be reachable by keyboard */}
          <div className="min-h-0 flex-1 overflow-y-auto px-5 py-4 text-sm" tabIndex={0} role="region" aria-label={`${title}: details`}>
            {children}
          </div>
          <div className="flex flex-wrap justify-end gap-2 border-t border-slate-200 px-5 py-3 dark:border-slate-700">{footer}</div>
        </div>
      )}
    </dialog>
  );
}
