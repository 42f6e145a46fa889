"use client";

import type { ReactNode } from "react";

import { ApiError, errorMessage } from "@/lib/api";

/** A spinner line with role="status", for first loads. */
export function LoadingState({ label = "Loading…", className }: { label?: string; className?: string }) {
  return (
    <div role="status" className={`flex items-center gap-3 py-10 text-sm text-slate-500 dark:text-slate-400 ${className ?? ""}`}>
      <span aria-hidden className="size-4 animate-spin rounded-full border-2 border-slate-300 border-t-slate-600 dark:border-slate-700 dark:border-t-slate-300" />
      {label}
    </div>
  );
}

/** Nothing to show, and (in children) what would make something appear. */
export function EmptyState({ title, children, className }: { title: string; children?: ReactNode; className?: string }) {
  return (
    <div className={`rounded-lg border border-dashed border-slate-300 px-6 py-10 text-center dark:border-slate-700 ${className ?? ""}`}>
      <p className="font-medium">{title}</p>
      {children && <div className="mt-1 text-sm text-slate-600 dark:text-slate-400">{children}</div>}
    </div>
  );
}

/** A failed load: the API's own sentence, its code, and a retry button when given onRetry. */
export function ErrorState({ error, title, onRetry, className }: { error: unknown; title?: string; onRetry?: () => void; className?: string }) {
  const api = error instanceof ApiError ? error : null;
  const heading =
    title ?? (api?.backendUnavailable ? "The backend is unavailable" : api?.status === 404 ? "Not found" : api?.status === 403 ? "Not allowed" : "Something went wrong");
  return (
    <div
      role="alert"
      data-testid="error-state"
      className={`rounded-lg border border-red-300 bg-red-50 px-4 py-4 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200 ${className ?? ""}`}
    >
      <p className="font-semibold">{heading}</p>
      <p className="mt-1 break-words">{errorMessage(error)}</p>
      {api && api.details.length > 0 && (
        <ul className="mt-2 list-disc pl-5">
          {api.details.map((d, i) => (
            <li key={i}>
              <code className="font-mono">{d.path || "/"}</code>: {d.message}
            </li>
          ))}
        </ul>
      )}
      {api && (
        <p className="mt-1 text-xs opacity-75">
          code: {api.code}
          {api.status ? ` · HTTP ${api.status}` : ""}
        </p>
      )}
      {onRetry && (
        <button type="button" onClick={onRetry} className="btn mt-3">
          Try again
        </button>
      )}
    </div>
  );
}
