import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { auditEntryId, revertableFleet, revertableWorker, stashFleetRevert, stashRevert, takeFleetRevert, takeRevert } from "./revert";

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

  it("takes a write whose entry lists values by their digest from the changes kept beside it, and refuses it when none are", () => {
    const digest = { truncated: true, bytes: 90_000, sha256: "ab".repeat(32) };
    const cut = {
      ...rollout,
      id: "0123456789abcdef",
      changes: [
        { worker_id: "a", before: { mode: "fast" }, after: { mode: "stealth" } },
        { worker_id: "b", before: { mode: "fast" }, after: digest },
      ],
      changes_kept: 2,
    };
    expect(revertableFleet(cut)).toEqual({ automationType: "scraper", workers: [], kept: { entryId: "0123456789abcdef", total: 2 } });
    expect(revertableFleet({ ...cut, changes: [cut.changes[0], { worker_id: "b", before: digest, after: {} }] })?.kept).toEqual({ entryId: "0123456789abcdef", total: 2 });
    // not kept (a write from before the changes were kept, or one too large to keep): not revertable
    expect(revertableFleet({ ...cut, changes_kept: undefined })).toBeNull();
    expect(revertableFleet({ ...cut, changes_kept: 1 })).toBeNull();
  });

  it("keeps single-worker entries to the worker page (and fleet ones off it)", () => {
    expect(revertableWorker({ action: "worker.config.patch", outcome: "done", path: "/api/v1/workers/a%2Fb/w%201/config", before: { slots: 1 } })).toEqual({
      automationType: "a/b",
      workerId: "w 1",
    });
    expect(revertableWorker({ action: "automation.config.rollout", outcome: "done", path: "/api/v1/automations/scraper/config", before: { slots: 1 } })).toBeNull();
  });
});

describe("the revert request handed to the page (the tab's sessionStorage)", () => {
  const store = new Map<string, string>();
  beforeEach(() => {
    store.clear();
    const storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> = {
      getItem: (k) => store.get(k) ?? null,
      setItem: (k, v) => void store.set(k, v),
      removeItem: (k) => void store.delete(k),
    };
    Object.defineProperty(globalThis, "sessionStorage", { value: storage, configurable: true });
  });
  afterEach(() => {
    Reflect.deleteProperty(globalThis, "sessionStorage");
  });
  const keyOf = (url: string) => new URL(url, "http://console").searchParams.get("revert")!;

  it("carries the audit entry's id to the save (revert_of), once", () => {
    expect(auditEntryId("0123456789abcdef")).toBe("0123456789abcdef");
    expect(auditEntryId("../x")).toBeUndefined();
    expect(auditEntryId(7)).toBeUndefined();
    const one = keyOf(stashRevert({ automationType: "t", workerId: "w", config: { limit: "NaN" }, actor: "ada", ts: 1, entryId: "0123456789abcdef" }));
    expect(takeRevert(one, "t", "w")?.entryId).toBe("0123456789abcdef");
    expect(takeRevert(one, "t", "w")).toBeNull();
    const fleet = keyOf(stashFleetRevert({ automationType: "t", workers: [{ workerId: "w", before: {}, after: {} }], actor: null, ts: null, entryId: "fedcba9876543210" }));
    expect(takeFleetRevert(fleet, "t")?.entryId).toBe("fedcba9876543210");
  });

  it("refuses a stored request whose entry id is not one the console makes", () => {
    store.set("fleet:revert:k1", JSON.stringify({ automationType: "t", workerId: "w", config: {}, actor: null, ts: null, entryId: "x&intent=pause" }));
    expect(takeRevert("k1", "t", "w")).toBeNull();
    store.set("fleet:revert:fleet:k2", JSON.stringify({ automationType: "t", workers: [], kept: { entryId: "0123456789abcdef", total: 150 }, actor: null, ts: null, entryId: 5 }));
    expect(takeFleetRevert("k2", "t")).toBeNull();
  });
});
