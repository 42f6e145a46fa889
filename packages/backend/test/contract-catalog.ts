// The Backend contract on the catalog of automation types. A part of describeBackendContract
// (./contract.ts), run on both implementations by contract-memory.test.ts and contract-
// redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import type { Backend } from "../src/types";
import { b, NOT_UTF8, type ContractState, type RawPlanter } from "./contract-support";

export function catalogContract(state: ContractState): void {
  describe("catalog", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("sets, gets, lists and deletes documents", async () => {
      expect(await be.catalogGet("t")).toBeNull();
      await be.catalogSet("t", '{"config": {}}');
      await be.catalogSet("u:v", NOT_UTF8);
      expect(await raw.hgetall("fleet:catalog")).toEqual({ t: b('{"config": {}}'), "u:v": NOT_UTF8 });
      expect(await be.catalogGet("t")).toEqual(b('{"config": {}}'));
      const all = await be.catalogAll();
      expect([...all.entries()].sort(([x], [y]) => x.localeCompare(y))).toEqual([
        ["t", b('{"config": {}}')],
        ["u:v", NOT_UTF8],
      ]);
      expect(await be.catalogDelete("t")).toBe(true);
      expect(await be.catalogDelete("t")).toBe(false);
      expect([...(await be.catalogAll()).keys()]).toEqual(["u:v"]);
    });
  });
}
