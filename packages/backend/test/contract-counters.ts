// The Backend contract on counters: increment, read, set, list. A part of
// describeBackendContract (./contract.ts), run on both implementations by contract-
// memory.test.ts and contract-redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import { CorruptDataError } from "../src/errors";
import type { Backend } from "../src/types";
import { b, NOT_UTF8, type ContractState, type RawPlanter } from "./contract-support";

export function countersContract(state: ContractState): void {
  describe("counters", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("increments, reads, sets and deletes", async () => {
      expect(await be.counterGet("c")).toBe(0);
      expect(await be.counterIncr("c", 5)).toBe(5);
      expect(await be.counterIncr("c", -7)).toBe(-2);
      expect(await be.counterGet("c")).toBe(-2);
      expect(await raw.get("fleet:counter:c")).toEqual(b("-2"));
      await be.counterSet("c", 42);
      expect(await raw.get("fleet:counter:c")).toEqual(b("42"));
      expect(await be.counterIncr("c", 1)).toBe(43);
      expect(await be.counterDel("c")).toBe(true);
      expect(await be.counterDel("c")).toBe(false);
      expect(await be.counterGet("c")).toBe(0);
    });

    it("lists counters sorted, a non-integer one with value null and its raw bytes", async () => {
      await be.counterSet("b:x", 7);
      await be.counterIncr("a*", 3);
      await raw.set("fleet:counter:bad", "12abc");
      await raw.set("fleet:counter:worse", NOT_UTF8);
      expect(await be.counterList()).toEqual([
        { name: "a*", value: 3, raw: b("3") },
        { name: "b:x", value: 7, raw: b("7") },
        { name: "bad", value: null, raw: b("12abc") },
        { name: "worse", value: null, raw: NOT_UTF8 },
      ]);
    });

    it("refuses arithmetic on a non-integer counter with CorruptDataError, changing nothing", async () => {
      await raw.set("fleet:counter:bad", "12abc");
      await expect(be.counterIncr("bad", 1)).rejects.toBeInstanceOf(CorruptDataError);
      await expect(be.counterGet("bad")).rejects.toBeInstanceOf(CorruptDataError);
      expect(await raw.get("fleet:counter:bad")).toEqual(b("12abc"));
    });
  });
}
