// Alert rules against figures, one kind at a time: when an instance starts firing, stays
// (no new transition), resolves; values not known leave it alone; rules removed or disabled
// resolve what they had firing. Pure.
import type { QueueDepths } from "@fleet/backend";
import { AlertConfigSchema, type AlertConfigInput } from "@fleet/schema";
import { describe, expect, it } from "vitest";

import { deadKey, evaluate, type AlertInputs, type FiringRecord } from "./evaluate";

type DepthsOver = Partial<Omit<QueueDepths, "pending">> & { pending?: number };

const depths = (name: string, { pending = 0, ...over }: DepthsOver = {}): QueueDepths => ({
  name,
  processing: 0,
  overdue: 0,
  scheduled: 0,
  due: 0,
  dead: 0,
  ...over,
  pending: { high: 0, normal: pending, low: 0, total: pending },
});

function inputs(over: Partial<AlertInputs> = {}): AlertInputs {
  return { now: 1000, queues: new Map(), deadBefore: new Map(), workers: null, pools: null, ...over };
}

const cfg = (c: AlertConfigInput) => AlertConfigSchema.parse(c);

function run(c: AlertConfigInput, i: AlertInputs, firing: FiringRecord[] = []) {
  const r = evaluate(cfg(c), i, new Map(firing.map((f) => [f.key, f])));
  return { ...r, kinds: r.transitions.map((t) => `${t.type} ${t.alert.key} ${t.alert.value}`) };
}

const q = (name: string, over: DepthsOver = {}, extra: { oldest?: number | null; drain?: number | null } = {}) =>
  [name, { depths: depths(name, over), oldestPendingAge: extra.oldest ?? null, drainSeconds: extra.drain ?? null }] as const;

describe("evaluate", () => {
  it("dead letters growth: needs the count T ago; fires above N; every queue for '*'", () => {
    const rules = { rules: [{ id: "d", name: "d", kind: "dead_letters_growth" as const, queue: "*", more_than: 5, within_seconds: 600 }] };
    const queues = new Map([q("a", { dead: 20 }), q("b", { dead: 20 })]);
    expect(run(rules, inputs({ queues })).kinds).toEqual([]); // no history that old: not known
    const deadBefore = new Map([
      [deadKey("a", 600), 10],
      [deadKey("b", 600), 16],
    ]);
    expect(run(rules, inputs({ queues, deadBefore })).kinds).toEqual(["firing d|a 10"]);
  });

  it("an instance already firing is never fired again; its changed value is an update; it resolves once below", () => {
    const rules = { rules: [{ id: "o", name: "o", kind: "overdue_leases" as const, queue: "jobs", more_than: 2 }] };
    const first = run(rules, inputs({ queues: new Map([q("jobs", { overdue: 3 })]) }));
    expect(first.kinds).toEqual(["firing o|jobs 3"]);
    const firing = [first.transitions[0]!.alert];
    const again = run(rules, inputs({ queues: new Map([q("jobs", { overdue: 4 })]) }), firing);
    expect(again.kinds).toEqual([]);
    expect(again.updates.map((u) => u.value)).toEqual([4]);
    expect(run(rules, inputs({ queues: new Map([q("jobs", { overdue: 1 })]) }), firing).kinds).toEqual(["resolved o|jobs 1"]);
  });

  it("oldest pending: an empty queue is 0; an unknown age with tasks waiting leaves the state as it is", () => {
    const rules = { rules: [{ id: "p", name: "p", kind: "oldest_pending" as const, queue: "jobs", older_than_seconds: 60 }] };
    expect(run(rules, inputs({ queues: new Map([q("jobs", { pending: 3 }, { oldest: 61 })]) })).kinds).toEqual(["firing p|jobs 61"]);
    const firing = [{ key: "p|jobs", rule_id: "p", rule_name: "p", kind: "oldest_pending", subject: "jobs", since: 1, value: 61, summary: "s" }];
    expect(run(rules, inputs({ queues: new Map([q("jobs", { pending: 3 }, { oldest: null })]) }), firing).kinds).toEqual([]);
    expect(run(rules, inputs({ queues: new Map([q("jobs", { pending: 0 })]) }), firing).kinds).toEqual(["resolved p|jobs 0"]);
  });

  it("drain time: a queue that is not draining fires; one draining fast enough does not", () => {
    const rules = { rules: [{ id: "t", name: "t", kind: "drain_time" as const, queue: "*", over_seconds: 600 }] };
    const queues = new Map([
      q("never", { pending: 9 }, { drain: Number.POSITIVE_INFINITY }),
      q("fast", { pending: 9 }, { drain: 30 }),
      q("unknown", { pending: 9 }, { drain: null }),
    ]);
    const r = run(rules, inputs({ queues }));
    expect(r.kinds).toEqual([`firing t|never ${Number.MAX_SAFE_INTEGER}`]);
    expect(r.transitions[0]!.alert.summary).toMatch(/never \(not draining\)/);
  });

  it("workers down counts the states asked for, per type", () => {
    const rules = { rules: [{ id: "w", name: "w", kind: "workers_down" as const, automation_type: "*", more_than: 1, states: ["offline" as const] }] };
    const workers = new Map([
      ["scraper", { offline: 2, error: 5 }],
      ["enricher", { offline: 1, error: 9 }],
    ]);
    expect(run(rules, inputs({ workers })).kinds).toEqual(["firing w|scraper 2"]);
  });

  it("pool free below N fires; a named pool that does not exist has 0 free", () => {
    const rules = { rules: [{ id: "f", name: "f", kind: "pool_free" as const, pool: "cookies", fewer_than: 3 }] };
    expect(run(rules, inputs({ pools: new Map([["cookies", { free: 5, size: 8 }]]) })).kinds).toEqual([]);
    expect(run(rules, inputs({ pools: new Map([["cookies", { free: 2, size: 8 }]]) })).kinds).toEqual(["firing f|cookies 2"]);
    expect(run(rules, inputs({ pools: new Map() })).kinds).toEqual(["firing f|cookies 0"]);
  });

  it("a disabled or removed rule resolves what it had firing, saying why", () => {
    const firing = [{ key: "o|jobs", rule_id: "o", rule_name: "o", kind: "overdue_leases", subject: "jobs", since: 1, value: 3, summary: "3 overdue" }];
    const disabled = run({ rules: [{ id: "o", name: "o", kind: "overdue_leases", queue: "jobs", more_than: 0, enabled: false }] }, inputs(), firing);
    expect(disabled.kinds).toEqual(["resolved o|jobs null"]);
    expect(disabled.transitions[0]!.alert.summary).toMatch(/the rule was disabled/);
    const removed = run({ rules: [] }, inputs(), firing);
    expect(removed.transitions[0]!.alert.summary).toMatch(/the rule was removed/);
  });
});
