// The Backend contract on the console's audit trail. A part of describeBackendContract
// (./contract.ts), run on both implementations by contract-memory.test.ts and contract-
// redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import { AUDIT_CHANGES_STEP, type Backend } from "../src/types";
import { b, texts, type ContractState, type RawPlanter } from "./contract-support";

export function auditContract(state: ContractState): void {
  describe("audit", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("keeps the newest entries first, capped", async () => {
      for (let i = 0; i < 5; i++) await be.auditAppend(`e${i}`, 3);
      expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["e4", "e3", "e2"]);
      expect(await be.auditRange(0, 10)).toEqual({ total: 3, items: [b("e4"), b("e3"), b("e2")] });
      expect(await be.auditRange(1, 1)).toEqual({ total: 3, items: [b("e3")] });
      expect(await be.auditRange(5, 1)).toEqual({ total: 3, items: [] });
    });

    it("keeps a fleet write's changes whole under its entry id, in order and with a TTL, and pages them", async () => {
      const id = "0123456789abcdef";
      const items = Array.from({ length: 2 * AUDIT_CHANGES_STEP + 7 }, (_, i) => `{"worker_id": "w${i}", "before": {}, "after": {"n": ${i}}}`);
      await be.auditChangesPut(id, items, 3600);
      const key = `fleet:console:audit:changes:${id}`;
      expect(texts(await raw.lrange(key))).toEqual(items);
      const ttl = await raw.pttl(key);
      expect(ttl).toBeGreaterThan(3_000_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
      expect(await be.auditChangesRange(id, 1000, 5)).toEqual({ total: items.length, items: items.slice(1000, 1005).map(b) });
      expect(await be.auditChangesRange(id, items.length, 5)).toEqual({ total: items.length, items: [] });
      // written again (a retried write): replaced, not appended
      await be.auditChangesPut(id, ["x", "y"], 60);
      expect(await be.auditChangesRange(id, 0, 10)).toEqual({ total: 2, items: [b("x"), b("y")] });
      // nothing kept: null, not an empty page
      expect(await be.auditChangesRange("fedcba9876543210", 0, 10)).toBeNull();
    });

    it("refuses an entry id the console does not make, before touching Redis", async () => {
      for (const bad of ["", "0123456789ABCDEF", "0123456789abcde", "*", "0123456789abcdef:x"]) {
        await expect(be.auditChangesPut(bad, ["x"], 60)).rejects.toThrow(/not an audit entry id/);
        await expect(be.auditChangesRange(bad, 0, 1)).rejects.toThrow(/not an audit entry id/);
      }
      expect((await raw.keys()).filter((k) => k.startsWith("fleet:console:audit:changes"))).toEqual([]);
    });

    it("replaces an entry in place, removes it, or appends the replacement when it is gone", async () => {
      for (const e of ["a", "pending-1", "b"]) await be.auditAppend(e, 10);
      expect(await be.auditReplace("pending-1", "done-1", 10)).toBe(true);
      expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["b", "done-1", "a"]);
      expect(await be.auditReplace("done-1", null, 10)).toBe(true);
      expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["b", "a"]);
      // trimmed away meanwhile: the outcome is appended, never lost; a removal of it is a no-op
      expect(await be.auditReplace("gone", "late", 2)).toBe(false);
      expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["late", "b"]);
      expect(await be.auditReplace("gone", null, 2)).toBe(false);
      expect(texts(await raw.lrange("fleet:console:audit"))).toEqual(["late", "b"]);
    });

    it("counts refusals per actor and window: records the first ones, then one marker, then nothing; the next window reports the rest", async () => {
      const t0 = 1_700_000_000_000;
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push((await be.auditRefusalSlot("addr:192.0.2.1", 3, 60, t0 + i)).decision);
      expect(decisions).toEqual(["record", "record", "record", "marker", "suppress", "suppress"]);
      // another actor has its own budget
      expect((await be.auditRefusalSlot("user:ada", 3, 60, t0 + 10)).decision).toBe("record");
      // a minute later: recorded again, with the count of those not listed (marker included)
      expect(await be.auditRefusalSlot("addr:192.0.2.1", 3, 60, t0 + 60_000)).toEqual({ decision: "record", suppressedBefore: 3, windowStartMs: t0 });
      expect(await be.auditRefusalSlot("addr:192.0.2.1", 3, 60, t0 + 60_001)).toEqual({ decision: "record", suppressedBefore: 0, windowStartMs: t0 + 60_000 });
      const ttl = await raw.pttl("fleet:console:audit:refusals:addr:192.0.2.1");
      expect(ttl).toBeGreaterThan(3600_000);
    });
  });
}
