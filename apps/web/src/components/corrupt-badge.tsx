/** Marks a value (or the listed fields of an object) whose stored bytes did not parse. */
export function CorruptBadge({ fields, label, className }: { fields?: readonly string[]; label?: string; className?: string }) {
  const text = label ?? (fields && fields.length > 0 ? `corrupt: ${fields.join(", ")}` : "corrupt");
  return (
    <span
      title="The stored value did not parse; it is shown as it is in Redis, or as empty."
      className={`inline-flex items-center gap-1 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900 ring-1 ring-inset ring-amber-600/40 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-400/40 ${className ?? ""}`}
    >
      <span aria-hidden>⚠</span>
      {text}
    </span>
  );
}
