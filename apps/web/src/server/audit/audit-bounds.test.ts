// What one audit entry may hold, whatever a request or the stored configs hold: each value up to
// MAX_VALUE_BYTES, lists cut at MAX_LIST_ITEMS (and then bounded like any value), a fleet write's
// listed configs up to MAX_CHANGES_BYTES in all (past it by size and digest).
import { createHash } from "node:crypto";

import { pyJsonBytes } from "@fleet/backend";
import { describe, expect, it } from "vitest";

import { MAX_CHANGES_BYTES, MAX_LIST_ITEMS, MAX_VALUE_BYTES, buildEntry, currentScope, noteAction, noteConfigChange, runInAuditScope } from "./audit";

const admin = { name: "ada", role: "admin" as const, via: "token" as const };
const digestOf = (v: unknown) => {
  const bytes = pyJsonBytes(v);
  return { truncated: true, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
};

describe("an audit entry's size", () => {
  it("cuts a long list in the details to its first items, bounded like any value, and keeps its length", async () => {
    const ids = Array.from({ length: 150 }, (_, i) => `${i}-${"x".repeat(2000)}`);
    const entry = await runInAuditScope(async () => {
      noteAction({ ids, queue: "jobs" });
      return buildEntry(admin, new Request("http://console/api/v1/automations/jobs/tasks", { method: "POST" }), "/automations/[type]/tasks", { type: "jobs" }, 200, currentScope());
    });
    const first = ids.slice(0, MAX_LIST_ITEMS);
    expect(pyJsonBytes(first).length).toBeGreaterThan(MAX_VALUE_BYTES);
    expect(entry.details).toEqual({ ids: digestOf(first), ids_count: 150, queue: "jobs" });
    expect(pyJsonBytes(entry).length).toBeLessThan(1024);
  });

  it("lists a fleet write's configs whole while they fit MAX_CHANGES_BYTES, then by size and digest (small values whole)", async () => {
    const big = (i: number) => ({ i, pad: "y".repeat(30 * 1024) });
    const entry = await runInAuditScope(async () => {
      for (let i = 0; i < 6; i++) noteConfigChange(`w${i}`, i === 5 ? null : big(i), { ...big(i), mode: "slow" });
      return buildEntry(admin, new Request("http://console/api/v1/automations/t/config", { method: "PATCH" }), "/automations/[type]/config", { type: "t" }, 200, currentScope());
    });
    const changes = entry.changes!;
    expect(entry.changes_total).toBe(6);
    // two changes of ~60 KiB fit 128 KiB; from the third the values go by digest, except a small one
    expect(changes[0]).toEqual({ worker_id: "w0", before: big(0), after: { ...big(0), mode: "slow" } });
    expect(changes[1]!.before).toEqual(big(1));
    expect(changes[2]!.after).toEqual(digestOf({ ...big(2), mode: "slow" }));
    expect(changes[5]).toEqual({ worker_id: "w5", before: null, after: digestOf({ ...big(5), mode: "slow" }) });
    expect(pyJsonBytes(entry).length).toBeLessThan(MAX_CHANGES_BYTES + 2048);
  });
});
