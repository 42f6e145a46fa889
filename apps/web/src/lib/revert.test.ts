import { describe, expect, it } from "vitest";

import { revertableFleet, revertableWorker } from "./revert";

const rollout = {
  action: "automation.config.rollout",
  outcome: "done",
  target: "automation:scraper",
  changes: [
    { worker_id: "a", before: { mode: "fast" }, after: { mode: "stealth" } },
    { worker_id: "b", before: null, after: { mode: "stealth" } },
  ],
  changes_total: 2,
};

describe("revert to before", () => {
  it("takes a rollout's workers and their configs before it (none before: an empty one)", () => {
    expect(revertableFleet(rollout)).toEqual({
      automationType: "scraper",
      workers: [
        { workerId: "a", before: { mode: "fast" }, after: { mode: "stealth" } },
        { workerId: "b", before: {}, after: { mode: "stealth" } },
      ],
    });
    // the automation of a bulk change is in its details (its target is "workers")
    expect(revertableFleet({ ...rollout, action: "workers.bulk.config", target: "workers", details: { automation_type: "a/b" } })?.automationType).toBe("a/b");
  });

  it("refuses what it cannot revert whole: not done, workers left out, a value kept as its digest, a malformed list", () => {
    expect(revertableFleet({ ...rollout, outcome: "failed" })).toBeNull();
    expect(revertableFleet({ ...rollout, changes_total: 150 })).toBeNull();
    expect(revertableFleet({ ...rollout, changes: [{ worker_id: "a", before: { truncated: true, bytes: 70000, sha256: "ab" }, after: {} }] })).toBeNull();
    expect(revertableFleet({ ...rollout, changes: [{ before: {}, after: {} }] })).toBeNull();
    expect(revertableFleet({ ...rollout, changes: [] })).toBeNull();
    expect(revertableFleet({ ...rollout, action: "workers.bulk.config", target: "workers" })).toBeNull();
    expect(revertableFleet({ ...rollout, action: "worker.config.patch" })).toBeNull();
  });

  it("takes a write of more than 100 workers whose changes were all kept beside the entry, to be read by its id", () => {
    const big = { ...rollout, id: "0123456789abcdef", changes_total: 150, changes_kept: 150 };
    expect(revertableFleet(big)).toEqual({ automationType: "scraper", workers: [], kept: { entryId: "0123456789abcdef", total: 150 } });
    // not all kept, no id, an id the console does not make, not done: not revertable
    expect(revertableFleet({ ...big, changes_kept: undefined })).toBeNull();
    expect(revertableFleet({ ...big, changes_kept: 149 })).toBeNull();
    expect(revertableFleet({ ...big, id: undefined })).toBeNull();
    expect(revertableFleet({ ...big, id: "../../x" })).toBeNull();
    expect(revertableFleet({ ...big, outcome: "failed" })).toBeNull();
  });

  it("keeps single-worker entries to the worker page (and fleet ones off it)", () => {
    expect(revertableWorker({ action: "worker.config.patch", outcome: "done", path: "/api/v1/workers/a%2Fb/w%201/config", before: { slots: 1 } })).toEqual({
      automationType: "a/b",
      workerId: "w 1",
    });
    expect(revertableWorker({ action: "automation.config.rollout", outcome: "done", path: "/api/v1/automations/scraper/config", before: { slots: 1 } })).toBeNull();
  });
});
