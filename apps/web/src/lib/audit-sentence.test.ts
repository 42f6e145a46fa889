import { describe, expect, it } from "vitest";

import { auditSentence, configChangeText, parseTarget, viaText } from "./audit-sentence";

const base = { actor: "ada", status: 200, outcome: "done" as const };

describe("auditSentence", () => {
  it("says a config change as its settings, old → new", () => {
    expect(
      auditSentence({ ...base, action: "worker.config.patch", target: "worker:scraper/scrape-eu-01", before: { slots: 2, mode: "fast" }, after: { slots: 2, mode: "thorough" } }),
    ).toBe("changed the config of scrape-eu-01 (scraper): Mode fast → thorough");
    expect(configChangeText({ a: 1, gone: true }, { a: 2, new_key: "x" })).toBe("A 1 → 2, Gone removed (was true), New key set to x");
    expect(configChangeText({ a: 1 }, { a: 1 })).toBe("no setting changed");
  });
  it("says pauses, resumes, rollouts and the other actions", () => {
    expect(auditSentence({ ...base, action: "worker.config.patch", target: "worker:t/w1", details: { intent: "pause", slots_before: 3, slots_after: 0 } })).toBe(
      "paused w1 (t): slots 3 → 0",
    );
    expect(auditSentence({ ...base, action: "worker.config.patch", target: "worker:t/w1", details: { intent: "resume", slots_before: 0, slots_after: 3 } })).toBe(
      "resumed w1 (t): slots 0 → 3",
    );
    expect(
      auditSentence({
        ...base,
        action: "automation.config.rollout",
        target: "automation:scraper",
        changes_total: 4,
        changes: [{ worker_id: "a", before: { mode: "fast" }, after: { mode: "stealth" } }],
      }),
    ).toBe("rolled a config change out to 4 workers of scraper: Mode fast → stealth (first worker shown)");
    expect(
      auditSentence({
        ...base,
        action: "workers.bulk.config",
        target: "workers",
        details: { automation_type: "scraper", intent: "revert", written: 2 },
        changes_total: 2,
        changes: [{ worker_id: "a", before: { mode: "stealth" }, after: { mode: "fast" } }],
      }),
    ).toBe("reverted 2 workers of scraper to their config before an earlier change: Mode stealth → fast (first worker shown)");
    expect(
      auditSentence({
        ...base,
        action: "workers.bulk.config",
        target: "workers",
        details: { automation_type: "scraper", written: 1 },
        changes_total: 1,
        changes: [{ worker_id: "a", before: { slots: 1 }, after: { slots: 4 } }],
      }),
    ).toBe("changed the config of 1 selected worker of scraper: Slots 1 → 4");
    expect(auditSentence({ ...base, action: "workers.bulk.remove", target: "workers", details: { removed: 3, kept_online: 1 } })).toBe(
      "removed 3 offline workers (1 worker reporting again, kept)",
    );
    expect(auditSentence({ ...base, action: "pool.item.reveal", target: "pool:cookies/s1" })).toBe("revealed the masked secrets of item s1 (pool cookies)");
    expect(auditSentence({ ...base, action: "alerts.rules.put", target: "alerts:rules" })).toBe("changed the alert rules");
    expect(auditSentence({ ...base, action: "dead.requeue", target: "queue:jobs", details: { queue: "jobs", requeued: 1 } })).toBe("requeued 1 dead letter of jobs");
    expect(auditSentence({ ...base, action: "pool.delete", target: "pool:cookies", details: { items: 8 } })).toBe("removed pool cookies and its 8 items");
    expect(auditSentence({ ...base, action: "pool.item.release", target: "pool:cookies/c1" })).toBe("released the claim on c1 (pool cookies)");
    expect(auditSentence({ ...base, action: "counter.set", target: "counter:hits", details: { value: 3 } })).toBe("set counter hits to 3");
    expect(auditSentence({ ...base, action: "tasks.submit", target: "queue:jobs", details: { ids: ["a", "b"] } })).toBe("submitted 2 tasks to jobs");
    expect(auditSentence({ ...base, outcome: "refused", action: "dead.delete", target: "queue:jobs" })).toBe("tried to delete dead letters of jobs");
    expect(auditSentence({ ...base, action: "queue.bulk", target: "queue:jobs", details: { bulk_action: "requeue-dead", q: null, where: "attempts >= 3", expected: 12 } })).toBe(
      "started a job to requeue the matching dead letters of jobs (filter attempts >= 3), 12 tasks at the preview",
    );
    // one entry per bulk job: the start's, then completed with the counts at its end
    const job = { bulk_action: "requeue-dead", q: null, where: "attempts >= 3", rate: 200, expected: 12 };
    expect(auditSentence({ ...base, status: 202, action: "queue.bulk", target: "queue:jobs", details: { ...job, state: "running" } })).toBe(
      "started a job to requeue the matching dead letters of jobs (filter attempts >= 3), 12 tasks at the preview, at most 200 a second: running",
    );
    expect(auditSentence({ ...base, status: 202, action: "queue.bulk", target: "queue:jobs", details: { ...job, state: "done", done: 11, missing: 1, scanned: 40 } })).toBe(
      "requeued 11 dead letters of jobs matching filter attempts >= 3 (12 at the preview; 1 match gone before it could be requeued), at most 200 a second: finished",
    );
    expect(
      auditSentence({
        ...base,
        status: 202,
        action: "queue.bulk",
        target: "queue:jobs",
        details: { ...job, bulk_action: "delete-pending", q: "c17", where: null, state: "cancelled", done: 1, missing: 0, note: "cancelled by vera" },
      }),
    ).toBe("deleted 1 pending task of jobs matching text “c17” (12 at the preview), at most 200 a second: cancelled by vera");
    // entries of consoles before one entry per job: the end was an entry of its own
    expect(auditSentence({ ...base, action: "queue.bulk.done", target: "queue:jobs", details: { bulk_action: "requeue-dead", done: 11, missing: 1 } })).toBe(
      "ran a bulk job on jobs: finished, requeued 11 tasks (1 match gone meanwhile)",
    );
    expect(auditSentence({ ...base, action: "queue.bulk.cancel", target: "queue:jobs" })).toBe("cancelled a bulk job on jobs");
  });
  it("falls back to the action and target it does not know, as text", () => {
    expect(auditSentence({ ...base, action: "post /x/[y]", target: "<b>y</b>" })).toBe("post /x/[y] on <b>y</b>");
    expect(parseTarget("kv:ns:key:with:colons")).toEqual({ kind: "kv", name: "ns:key:with:colons", parent: null });
  });
  it("names how the actor came in", () => {
    expect(viaText("none")).toBe("sign-in switched off");
    expect(viaText("session")).toBeNull();
    expect(viaText("proxy")).toBe("via the sign-in proxy");
  });
});
