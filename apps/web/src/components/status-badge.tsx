import type { WorkerStatus } from "@fleet/schema";

const STYLES: Record<WorkerStatus, { cls: string; dot: string; label: string }> = {
  running: {
    cls: "bg-emerald-50 text-emerald-800 ring-emerald-600/30 dark:bg-emerald-950/60 dark:text-emerald-300 dark:ring-emerald-400/30",
    dot: "bg-emerald-500",
    label: "running",
  },
  idle: {
    cls: "bg-sky-50 text-sky-800 ring-sky-600/30 dark:bg-sky-950/60 dark:text-sky-300 dark:ring-sky-400/30",
    dot: "bg-sky-500",
    label: "idle",
  },
  error: {
    cls: "bg-red-50 text-red-800 ring-red-600/40 dark:bg-red-950/60 dark:text-red-300 dark:ring-red-400/40",
    dot: "bg-red-500",
    label: "error",
  },
  // Offline is not a colour variant: dashed outline, hollow dot, muted italic text.
  offline: {
    cls: "bg-transparent text-slate-600 italic ring-0 outline outline-1 outline-dashed outline-slate-400 dark:text-slate-400 dark:outline-slate-500",
    dot: "border border-slate-400 bg-transparent dark:border-slate-500",
    label: "offline",
  },
};

/** A worker's status: running / idle / error / offline (offline drawn visibly different). */
export function StatusBadge({ status, className }: { status: WorkerStatus | string; className?: string }) {
  const s = STYLES[status as WorkerStatus] ?? {
    cls: "bg-slate-100 text-slate-700 ring-slate-400/40 dark:bg-slate-800 dark:text-slate-300",
    dot: "bg-slate-400",
    label: status,
  };
  return (
    <span data-status={status} className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${s.cls} ${className ?? ""}`}>
      <span aria-hidden className={`inline-block size-2 shrink-0 rounded-full ${s.dot}`} />
      {s.label}
    </span>
  );
}
