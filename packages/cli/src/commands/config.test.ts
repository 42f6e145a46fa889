import { describe, expect, it } from "vitest";
import { setPatch } from "./config";
import { UsageError } from "../exit-codes";

describe("--set KEY=VALUE", () => {
  it("parses JSON values, keeps other text as strings, and nests dotted keys", () => {
    const patch: Record<string, unknown> = {};
    for (const s of ["slots=4", "mode=fast", "flag=true", "proxy.region=eu", "proxy.port=8080", "list=[1,2]", "empty=", 'quoted="4"', "eq=a=b"]) setPatch(patch, s, "config patch");
    expect(patch).toEqual({ slots: 4, mode: "fast", flag: true, proxy: { region: "eu", port: 8080 }, list: [1, 2], empty: "", quoted: "4", eq: "a=b" });
  });

  it("refuses an assignment without a key or an =", () => {
    for (const bad of ["slots", "=4", "a..b=1", ".a=1"]) expect(() => setPatch({}, bad, "config patch"), bad).toThrow(UsageError);
  });
});
