// Alert rules against one tick's figures: which alert instances fire, which of those firing
// before no longer do. Pure: the engine (./engine.ts) reads the inputs and commits the result.
// An instance is one rule about one subject (`<rule id>|<queue, type or pool>`); a rule whose
// subject is "*" has one instance per queue (type, pool) the tick knows. A value that cannot
// be known yet (no history T ago, no oldest-age mark yet) leaves an instance as it was.
import type { AlertConfig, AlertRule } from "@fleet/schema";
import type { QueueDepths } from "@fleet/backend";

import { formatSpan } from "./text";

export interface QueueInputs {
  depths: QueueDepths;
  oldestPendingAge: number | null;
  /** Infinity: not draining; null: not known yet. */
  drainSeconds: number | null;
}

export interface AlertInputs {
  now: number;
  queues: Map<string, QueueInputs>;
  /** Dead letters of a queue `within_seconds` ago, by `deadKey(queue, seconds)`; absent when history does not reach back. */
  deadBefore: Map<string, number>;
  /** Workers by automation type and status; null when no rule needs them (not read). */
  workers: Map<string, { offline: number; error: number }> | null;
  /** Free (live and unclaimed) items by pool; null when no rule needs them. */
  pools: Map<string, { free: number; size: number }> | null;
}

export const deadKey = (queue: string, seconds: number) => `${seconds}|${queue}`;

/** One firing alert instance, as stored in fleet:console:alerts:firing (JSON). */
export interface FiringRecord {
  key: string;
  rule_id: string;
  rule_name: string;
  kind: string;
  subject: string;
  since: number;
  value: number | null;
  summary: string;
}

export interface Transition {
  type: "firing" | "resolved";
  alert: FiringRecord;
}

export interface Evaluation {
  transitions: Transition[];
  /** Instances still firing whose value or summary changed (stored, never sent again). */
  updates: FiringRecord[];
}

interface Reading {
  subject: string;
  /** Undefined: not known this tick. */
  value: number | undefined;
  firing: boolean;
  summary: string;
}

export function instanceKey(ruleId: string, subject: string): string {
  return `${ruleId}|${subject}`;
}

function subjects(all: Iterable<string>, subject: string): string[] {
  return subject === "*" ? [...all].sort() : [subject];
}

function readingsOf(rule: AlertRule, inputs: AlertInputs): Reading[] {
  const q = (name: string): QueueInputs | undefined => inputs.queues.get(name);
  switch (rule.kind) {
    case "dead_letters_growth":
      return subjects(inputs.queues.keys(), rule.queue).map((name) => {
        const now = q(name)?.depths.dead ?? 0;
        const before = inputs.deadBefore.get(deadKey(name, rule.within_seconds));
        const value = before === undefined ? undefined : now - before;
        return {
          subject: name,
          value,
          firing: value !== undefined && value > rule.more_than,
          summary: `Dead letters of queue '${name}' grew by ${value ?? "?"} in ${formatSpan(rule.within_seconds)} (alert above ${rule.more_than}); ${now} now`,
        };
      });
    case "oldest_pending":
      return subjects(inputs.queues.keys(), rule.queue).map((name) => {
        const x = q(name);
        const pending = x?.depths.pending.total ?? 0;
        const value = pending === 0 ? 0 : (x?.oldestPendingAge ?? undefined);
        return {
          subject: name,
          value,
          firing: value !== undefined && value > rule.older_than_seconds,
          summary: `The oldest pending task of queue '${name}' has waited ${value === undefined ? "?" : `at least ${formatSpan(value)}`} (alert above ${formatSpan(rule.older_than_seconds)}); ${pending} pending`,
        };
      });
    case "drain_time":
      return subjects(inputs.queues.keys(), rule.queue).map((name) => {
        const x = q(name);
        const pending = x?.depths.pending.total ?? 0;
        const d = pending === 0 ? 0 : (x?.drainSeconds ?? undefined);
        const text = d === undefined ? "?" : Number.isFinite(d) ? `~${formatSpan(d)}` : "never (not draining)";
        return {
          subject: name,
          value: d === undefined ? undefined : Number.isFinite(d) ? d : Number.MAX_SAFE_INTEGER,
          firing: d !== undefined && d > rule.over_seconds,
          summary: `Queue '${name}' drains in ${text} at the current rate (alert above ${formatSpan(rule.over_seconds)}); ${pending} pending`,
        };
      });
    case "overdue_leases":
      return subjects(inputs.queues.keys(), rule.queue).map((name) => {
        const value = q(name)?.depths.overdue ?? 0;
        return {
          subject: name,
          value,
          firing: value > rule.more_than,
          summary: `${value} reservation${value === 1 ? "" : "s"} of queue '${name}' ${value === 1 ? "is" : "are"} past the deadline (alert above ${rule.more_than}): is a sweeper (master) running?`,
        };
      });
    case "workers_down": {
      const workers = inputs.workers ?? new Map();
      return subjects(workers.keys(), rule.automation_type).map((type) => {
        const c = workers.get(type) ?? { offline: 0, error: 0 };
        const value = (rule.states.includes("offline") ? c.offline : 0) + (rule.states.includes("error") ? c.error : 0);
        return {
          subject: type,
          value,
          firing: value > rule.more_than,
          summary: `${value} worker${value === 1 ? "" : "s"} of type '${type}' ${rule.states.join(" or ")} (alert above ${rule.more_than})`,
        };
      });
    }
    case "pool_free": {
      const pools = inputs.pools ?? new Map();
      return subjects(pools.keys(), rule.pool).map((name) => {
        const p = pools.get(name) ?? { free: 0, size: 0 };
        return {
          subject: name,
          value: p.free,
          firing: p.free < rule.fewer_than,
          summary: `Pool '${name}' has ${p.free} free item${p.free === 1 ? "" : "s"} of ${p.size} (alert below ${rule.fewer_than})`,
        };
      });
    }
  }
}

/** Which rule kinds need the worker list or the pools read (they cost a read each tick). */
export function needs(config: AlertConfig): { workers: boolean; pools: boolean; deadWindows: Set<number> } {
  const live = config.rules.filter((r) => r.enabled);
  return {
    workers: live.some((r) => r.kind === "workers_down"),
    pools: live.some((r) => r.kind === "pool_free"),
    deadWindows: new Set(live.flatMap((r) => (r.kind === "dead_letters_growth" ? [r.within_seconds] : []))),
  };
}

export function evaluate(config: AlertConfig, inputs: AlertInputs, firing: Map<string, FiringRecord>): Evaluation {
  const transitions: Transition[] = [];
  const updates: FiringRecord[] = [];
  const seen = new Set<string>();
  for (const rule of config.rules) {
    if (!rule.enabled) continue;
    for (const r of readingsOf(rule, inputs)) {
      const key = instanceKey(rule.id, r.subject);
      seen.add(key);
      const current = firing.get(key);
      if (r.value === undefined) continue; // not known: leave it as it is
      if (r.firing && !current) {
        transitions.push({
          type: "firing",
          alert: { key, rule_id: rule.id, rule_name: rule.name, kind: rule.kind, subject: r.subject, since: inputs.now, value: r.value, summary: r.summary },
        });
      } else if (r.firing && current && (current.value !== r.value || current.summary !== r.summary)) {
        updates.push({ ...current, value: r.value, summary: r.summary, rule_name: rule.name });
      } else if (!r.firing && current) {
        transitions.push({ type: "resolved", alert: { ...current, value: r.value, summary: r.summary } });
      }
    }
  }
  // Firing instances no rule speaks for any more (rule removed or disabled, subject gone).
  const rules = new Map(config.rules.map((r) => [r.id, r]));
  for (const [key, current] of firing) {
    if (seen.has(key)) continue;
    const rule = rules.get(current.rule_id);
    const why = !rule ? "the rule was removed" : !rule.enabled ? "the rule was disabled" : `'${current.subject}' is no longer there`;
    transitions.push({ type: "resolved", alert: { ...current, value: null, summary: `${current.summary} (resolved: ${why})` } });
  }
  return { transitions, updates };
}
