// An audit entry as a sentence a person reads ("ada changed scrape-eu-01: mode fast → thorough"),
// built from the entry's own fields (action, target, details, config before/after); the raw
// request stays one click away on the page. Text only: every part is data, never markup.
import type { AuditItem } from "@fleet/schema";

import { humanizeKey } from "./labels";

/** The fields of an audit entry (GET /audit's AuditItem) a sentence is built from. */
export type AuditEntryLike = Pick<AuditItem, "actor" | "action" | "target" | "status" | "outcome" | "details" | "before" | "after" | "changes" | "changes_total">;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function show(v: unknown, max = 40): string {
  if (v === undefined) return "not set";
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** "Mode fast → thorough, Slots 2 → 3" for the top-level members that differ (nested ones whole). */
export function configChangeText(before: unknown, after: unknown, max = 4): string {
  const b = isObj(before) ? before : {};
  const a = isObj(after) ? after : {};
  const keys = [...Object.keys(b), ...Object.keys(a).filter((k) => !Object.hasOwn(b, k))];
  const parts: string[] = [];
  for (const k of keys) {
    const bv = Object.hasOwn(b, k) ? b[k] : undefined;
    const av = Object.hasOwn(a, k) ? a[k] : undefined;
    if (JSON.stringify(bv) === JSON.stringify(av)) continue;
    parts.push(
      av === undefined ? `${humanizeKey(k)} removed (was ${show(bv)})` : bv === undefined ? `${humanizeKey(k)} set to ${show(av)}` : `${humanizeKey(k)} ${show(bv)} → ${show(av)}`,
    );
  }
  if (parts.length === 0) return "no setting changed";
  return parts.length > max ? `${parts.slice(0, max).join(", ")} and ${parts.length - max} more` : parts.join(", ");
}

/** "worker:scraper/w1" → { kind: "worker", name: "w1", parent: "scraper" }. */
export function parseTarget(target: string | null): { kind: string; name: string; parent: string | null } {
  if (!target) return { kind: "", name: "", parent: null };
  const i = target.indexOf(":");
  if (i < 0) return { kind: "", name: target, parent: null };
  const kind = target.slice(0, i);
  const rest = target.slice(i + 1);
  if (kind === "worker" || kind === "pool") {
    const j = rest.indexOf("/");
    if (j >= 0) return { kind, name: rest.slice(j + 1), parent: rest.slice(0, j) };
  }
  return { kind, name: rest, parent: null };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The entry as one sentence, without the actor (the page shows the actor first, in bold). */
export function auditSentence(e: AuditEntryLike): string {
  const d = e.details ?? {};
  const t = parseTarget(e.target);
  const action = e.action ?? "";
  // A refused request did nothing: "tried to pause", not "paused".
  const refused = e.outcome === "refused";
  const v = (past: string, base: string) => (refused ? `tried to ${base}` : past);
  switch (action) {
    case "worker.config.patch":
    case "worker.config.put": {
      const who = `${t.name}${t.parent ? ` (${t.parent})` : ""}`;
      if (d.intent === "pause") return `${v("paused", "pause")} ${who}: slots ${show(d.slots_before)} → 0`;
      if (d.intent === "resume") return `${v("resumed", "resume")} ${who}: slots 0 → ${show(d.slots_after)}`;
      if (d.intent === "revert") {
        const what = e.before !== undefined || e.after !== undefined ? `: ${configChangeText(e.before, e.after)}` : "";
        return `${v("reverted", "revert")} the config of ${who} to an earlier version${what}`;
      }
      if (e.before !== undefined || e.after !== undefined) return `${v("changed", "change")} the config of ${who}: ${configChangeText(e.before, e.after)}`;
      return `${v("changed", "change")} the config of ${who}`;
    }
    case "automation.config.rollout": {
      const n = num(e.changes_total) ?? (Array.isArray(e.changes) ? e.changes.length : null);
      const first = Array.isArray(e.changes) && isObj(e.changes[0]) ? e.changes[0] : null;
      const what = first ? `: ${configChangeText(first.before, first.after)}` : "";
      return `${v("rolled", "roll")} a config change out to ${n === null ? "the workers" : plural(n, "worker")} of ${t.name}${what}${n !== null && n > 1 ? " (first worker shown)" : ""}`;
    }
    case "workers.bulk.config": {
      const n = num(e.changes_total) ?? (Array.isArray(e.changes) ? e.changes.length : num(d.written));
      const first = Array.isArray(e.changes) && isObj(e.changes[0]) ? e.changes[0] : null;
      const what = first ? `: ${configChangeText(first.before, first.after)}` : "";
      const of = typeof d.automation_type === "string" ? ` of ${d.automation_type}` : "";
      const workers = n === null ? "workers" : plural(n, "worker");
      const shown = n !== null && n > 1 && first ? " (first worker shown)" : "";
      if (d.intent === "revert") return `${v("reverted", "revert")} ${workers}${of} to their config before an earlier change${what}${shown}`;
      return `${v("changed", "change")} the config of ${n === null ? "selected workers" : `${plural(n, "selected worker")}`}${of}${what}${shown}`;
    }
    case "workers.bulk.remove": {
      const n = num(d.removed);
      const kept = num(d.kept_online);
      return `${v("removed", "remove")} ${n === null ? "offline workers" : plural(n, "offline worker")}${kept ? ` (${plural(kept, "worker")} reporting again, kept)` : ""}`;
    }
    case "pool.item.reveal":
      return `${v("revealed", "reveal")} the masked secrets of item ${t.name} (pool ${t.parent ?? "?"})`;
    case "alerts.rules.put":
      return `${v("changed", "change")} the alert rules`;
    case "worker.delete":
      return `${v("removed", "remove")} worker ${t.name}${t.parent ? ` (${t.parent})` : ""}`;
    case "tasks.submit": {
      const ids = Array.isArray(d.ids) ? d.ids.length : null;
      const n = num(d.ids_count) ?? ids;
      return `${v("submitted", "submit")} ${n === null ? "tasks" : plural(n, "task")} to ${t.name}`;
    }
    case "dead.requeue":
      return `${v("requeued", "requeue")} ${num(d.requeued) === null ? "dead letters" : plural(num(d.requeued)!, "dead letter")} of ${t.name}`;
    case "dead.delete":
      return `${v("deleted", "delete")} ${num(d.deleted) === null ? "dead letters" : plural(num(d.deleted)!, "dead letter")} of ${t.name}`;
    case "queue.sweep":
      return `${v("swept", "sweep")} ${t.name}${num(d.requeued) !== null ? `: ${plural(num(d.requeued)!, "overdue task")} put back` : ""}`;
    case "queue.bulk": {
      // one entry per job: written at its start (state "running"), completed with the counts at its end
      const what =
        d.bulk_action === "requeue-dead"
          ? "requeue the matching dead letters"
          : d.bulk_action === "delete-pending"
            ? "delete the matching pending tasks"
            : "delete the matching dead letters";
      const noun: [string, string] = d.bulk_action === "delete-pending" ? ["pending task", "pending tasks"] : ["dead letter", "dead letters"];
      const filter = [typeof d.q === "string" ? `text “${d.q}”` : null, typeof d.where === "string" ? `filter ${d.where}` : null].filter(Boolean).join(", ");
      const rate = num(d.rate) !== null ? `, at most ${num(d.rate)} a second` : "";
      const expected = num(d.expected);
      const state = typeof d.state === "string" ? d.state : null;
      if (refused || state === null || state === "running") {
        return `${v("started a job to", "start a job to")} ${what} of ${t.name}${filter ? ` (${filter})` : ""}${expected !== null ? `, ${plural(expected, "task")} at the preview` : ""}${state === "running" ? `${rate}: running` : ""}`;
      }
      const verb = d.bulk_action === "requeue-dead" ? "requeued" : "deleted";
      const done = num(d.done);
      const missing = num(d.missing);
      const how = state === "done" ? "finished" : state === "cancelled" ? "cancelled" : state === "failed" ? "failed" : state;
      const facts = [
        expected !== null ? `${expected} at the preview` : null,
        missing ? `${plural(missing, "match", "matches")} gone before ${missing === 1 ? "it" : "they"} could be ${verb}` : null,
      ].filter(Boolean);
      const note = typeof d.note === "string" ? d.note : "";
      const end = note.startsWith(how) ? note : note ? `${how} (${note})` : how;
      return `${verb} ${done === null ? noun[1] : plural(done, ...noun)} of ${t.name} matching ${filter || "the search"}${facts.length ? ` (${facts.join("; ")})` : ""}${rate}: ${end}`;
    }
    case "queue.bulk.done":
    case "queue.bulk.cancelled":
    case "queue.bulk.failed": {
      const how = action === "queue.bulk.done" ? "finished" : action === "queue.bulk.cancelled" ? "cancelled" : "failed";
      const verb = d.bulk_action === "requeue-dead" ? "requeued" : "deleted";
      return `ran a bulk job on ${t.name}: ${how}, ${verb} ${num(d.done) === null ? "tasks" : plural(num(d.done)!, "task")}${num(d.missing) ? ` (${plural(num(d.missing)!, "match", "matches")} gone meanwhile)` : ""}`;
    }
    case "queue.bulk.cancel":
      return `${v("cancelled", "cancel")} a bulk job on ${t.name}`;
    case "pool.item.release":
      return `${v("released", "release")} the claim on ${t.name} (pool ${t.parent ?? "?"})`;
    case "pool.item.delete":
      return `${v("removed", "remove")} item ${t.name} from pool ${t.parent ?? "?"}`;
    case "pool.delete":
      return `${v("removed", "remove")} pool ${t.name}${num(d.items) !== null ? ` and its ${plural(num(d.items)!, "item")}` : ""}`;
    case "lock.release":
      return `${v("force-released", "force-release")} lock ${t.name}`;
    case "counter.set":
      return `${v("set", "set")} counter ${t.name}${d.value !== undefined ? ` to ${show(d.value)}` : ""}`;
    case "counter.delete":
      return `${v("deleted", "delete")} counter ${t.name}`;
    case "kv.set":
      return `${v("set", "set")} key ${t.name}`;
    case "kv.delete":
      return `${v("deleted", "delete")} key ${t.name}`;
    case "auth.signin":
      return e.outcome === "refused" ? "failed to sign in" : "signed in";
    case "auth.signout":
      return "signed out";
    default:
      return `${refused ? "tried: " : ""}${action || "did something"}${e.target ? ` on ${e.target}` : ""}`;
  }
}

/** How the actor was identified, for people; null when there is nothing worth saying. */
export function viaText(via: string | null): string | null {
  switch (via) {
    case null:
    case "":
    case "session":
      return null;
    case "none":
      return "sign-in switched off";
    case "proxy":
      return "via the sign-in proxy";
    case "token":
    case "bearer":
      return "with an API token";
    default:
      return `via ${via}`;
  }
}
