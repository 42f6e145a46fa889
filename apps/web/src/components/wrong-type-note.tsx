import { CorruptBadge } from "./corrupt-badge";

/**
 * Says which parts of a queue, pool or stream sit under a Redis key of another type than
 * Fleet writes there (the API's `corrupt` list); they are shown as empty.
 */
export function WrongTypeNote({ parts, what }: { parts?: readonly string[]; what: string }) {
  if (!parts || parts.length === 0) return null;
  return (
    <p role="status" className="mt-3 mb-3 flex flex-wrap items-center gap-2 text-sm" data-testid="wrong-type-note">
      <CorruptBadge fields={parts} />
      <span className="text-slate-600 dark:text-slate-400">
        {`The Redis ${parts.length === 1 ? "key" : "keys"} of this ${what}'s ${parts.join(", ")} ${parts.length === 1 ? "holds" : "hold"} another type than Fleet writes there, so ${parts.length === 1 ? "it shows" : "they show"} as empty. Repair or delete ${parts.length === 1 ? "it" : "them"} with redis-cli.`}
      </span>
    </p>
  );
}
