// Alert rules in words, for the Alerts page. Pure.
import type { AlertConfig, AlertRule } from "@fleet/schema";

import { formatDuration } from "@/lib/format";

export const KIND_LABEL: Record<AlertRule["kind"], string> = {
  dead_letters_growth: "Dead letters growing",
  oldest_pending: "Oldest pending task",
  drain_time: "Drain time",
  workers_down: "Workers offline or in error",
  overdue_leases: "Overdue leases",
  pool_free: "Pool running dry",
};

const every = (s: string, what: string) => (s === "*" ? `every ${what}` : `${what} ${s}`);

export function subjectText(r: AlertRule): string {
  switch (r.kind) {
    case "workers_down":
      return every(r.automation_type, "automation type");
    case "pool_free":
      return every(r.pool, "pool");
    default:
      return every(r.queue, "queue");
  }
}

export function conditionText(r: AlertRule): string {
  switch (r.kind) {
    case "dead_letters_growth":
      return `more than ${r.more_than} new dead letters within ${formatDuration(r.within_seconds)}`;
    case "oldest_pending":
      return `the oldest pending task waits longer than ${formatDuration(r.older_than_seconds)}`;
    case "drain_time":
      return `draining would take longer than ${formatDuration(r.over_seconds)} at the current rate`;
    case "workers_down":
      return `more than ${r.more_than} workers ${r.states.join(" or ")}`;
    case "overdue_leases":
      return `more than ${r.more_than} reservations past their deadline`;
    case "pool_free":
      return `fewer than ${r.fewer_than} free items`;
  }
}

/** A new rule of a kind, with an id not yet used, to start from. */
export function ruleTemplate(kind: AlertRule["kind"], taken: ReadonlySet<string>): Record<string, unknown> {
  let n = 1;
  while (taken.has(`${kind.replace(/_/g, "-")}-${n}`)) n++;
  const base = { id: `${kind.replace(/_/g, "-")}-${n}`, name: KIND_LABEL[kind], enabled: true, webhooks: [] as string[] };
  switch (kind) {
    case "dead_letters_growth":
      return { ...base, kind, queue: "*", more_than: 10, within_seconds: 600 };
    case "oldest_pending":
      return { ...base, kind, queue: "*", older_than_seconds: 900 };
    case "drain_time":
      return { ...base, kind, queue: "*", over_seconds: 3600 };
    case "workers_down":
      return { ...base, kind, automation_type: "*", more_than: 0, states: ["offline", "error"] };
    case "overdue_leases":
      return { ...base, kind, queue: "*", more_than: 0 };
    case "pool_free":
      return { ...base, kind, pool: "*", fewer_than: 2 };
  }
}

/**
 * The document keyed by ids (`rules › dead › more_than`), so the review lists what changed
 * field by field rather than "rules: the whole list before, the whole list after".
 */
export function byIds(config: unknown): Record<string, unknown> {
  if (typeof config !== "object" || config === null || Array.isArray(config)) return { document: config };
  const c = config as Partial<Record<keyof AlertConfig, unknown>> & Record<string, unknown>;
  const keyed = (list: unknown) =>
    Array.isArray(list)
      ? Object.fromEntries(list.map((x, i) => [typeof x === "object" && x !== null && typeof (x as { id?: unknown }).id === "string" ? (x as { id: string }).id : `#${i + 1}`, x]))
      : list;
  return { ...c, webhooks: keyed(c.webhooks ?? []), rules: keyed(c.rules ?? []) };
}

export const ALERT_KINDS_LIST: ReadonlyArray<AlertRule["kind"]> = ["dead_letters_growth", "oldest_pending", "drain_time", "workers_down", "overdue_leases", "pool_free"];
