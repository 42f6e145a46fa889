// The Backend contract on kv entries (fleet:kv:<ns>:<key>). A part of describeBackendContract
// (./contract.ts), run on both implementations by contract-memory.test.ts and contract-
// redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import type { Backend } from "../src/types";
import { b, NOT_UTF8, sleep, type ContractState, type RawPlanter } from "./contract-support";

export function kvContract(state: ContractState): void {
  describe("kv", () => {
    let be: Backend;
    let raw: RawPlanter;
    beforeEach(() => {
      ({ be, raw } = state);
    });

    it("stores bytes as is under fleet:kv:<ns>:<key> and deletes them", async () => {
      await be.kvSet("ns", "k", NOT_UTF8);
      expect(await raw.get("fleet:kv:ns:k")).toEqual(NOT_UTF8);
      expect(await be.kvGet("ns", "k")).toEqual(NOT_UTF8);
      expect(await be.kvGet("ns", "other")).toBeNull();
      await be.kvSet("ns", "s", '"quoted é"');
      expect(await raw.get("fleet:kv:ns:s")).toEqual(Buffer.from([0x22, ...b("quoted "), 0xc3, 0xa9, 0x22]));
      expect(await be.kvDel("ns", "k")).toBe(true);
      expect(await be.kvDel("ns", "k")).toBe(false);
      expect(await be.kvGet("ns", "k")).toBeNull();
      expect(await raw.type("fleet:kv:ns:k")).toBe("none");
    });

    it("sets a TTL when asked and clears it on a plain overwrite", async () => {
      await be.kvSet("ns", "k", "v", 60);
      const e = await be.kvGetEntry("ns", "k");
      expect(e?.value).toEqual(b("v"));
      expect(e?.ttlMs).toBeGreaterThan(55_000);
      expect(e?.ttlMs).toBeLessThanOrEqual(60_000);
      await be.kvSet("ns", "k", "w");
      expect(await be.kvGetEntry("ns", "k")).toEqual({ value: b("w"), ttlMs: null });
      await be.kvSet("ns", "z", "x", 0);
      expect((await be.kvGetEntry("ns", "z"))?.ttlMs).toBeNull();
      expect(await be.kvGetEntry("ns", "missing")).toBeNull();
    });

    it("setnx writes only when absent", async () => {
      expect(await be.kvSetNx("ns", "k", "first")).toBe(true);
      expect(await be.kvSetNx("ns", "k", "second", 30)).toBe(false);
      expect(await be.kvGet("ns", "k")).toEqual(b("first"));
      expect((await be.kvGetEntry("ns", "k"))?.ttlMs).toBeNull();
      expect(await be.kvSetNx("ns", "t", "x", 30)).toBe(true);
      expect((await be.kvGetEntry("ns", "t"))?.ttlMs).toBeGreaterThan(25_000);
    });

    it("expires keys after their TTL", async () => {
      await be.kvSet("ns", "short", "v", 1);
      await be.kvSetNx("ns", "short-nx", "v", 1);
      await be.kvSet("ns", "long", "v");
      await sleep(1150);
      expect(await be.kvGet("ns", "short")).toBeNull();
      expect(await be.kvGetEntry("ns", "short-nx")).toBeNull();
      expect((await be.kvKeys("ns")).map((k) => k.key)).toEqual(["long"]);
      expect(await be.kvSetNx("ns", "short", "again")).toBe(true);
    });

    it("lists namespaces and keys, sorted, matching names literally", async () => {
      await be.kvSet("a", "x:y", "12345");
      await be.kvSet("a", "*", "1", 100);
      await be.kvSet("a", "[z", "");
      await be.kvSet("ab", "k", "1");
      await be.kvSet("a*", "k", "1");
      expect(await be.kvNamespaces()).toEqual([
        { ns: "a", keys: 3 },
        { ns: "a*", keys: 1 },
        { ns: "ab", keys: 1 },
      ]);
      const ks = await be.kvKeys("a");
      expect(ks.map((k) => k.key)).toEqual(["*", "[z", "x:y"]);
      expect(ks.find((k) => k.key === "x:y")).toEqual({ key: "x:y", ttlMs: null, bytes: 5 });
      expect(ks.find((k) => k.key === "*")?.ttlMs).toBeGreaterThan(90_000);
      expect(ks.find((k) => k.key === "[z")?.bytes).toBe(0);
      expect((await be.kvKeys("a*")).map((k) => k.key)).toEqual(["k"]);
      expect(await be.kvKeys("nope")).toEqual([]);
    });
  });
}
