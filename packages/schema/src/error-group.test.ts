import { describe, expect, it } from "vitest";

import { ERROR_GROUP_MAX, normalizeErrorMessage } from "./error-group";

describe("normalizeErrorMessage", () => {
  it("groups messages that differ only in numbers, ids, urls, hex and quoted values", () => {
    const pairs: Array<[string, string]> = [
      ["Timeout after 30s fetching https://shop.example/p/1234?x=1", "Timeout after 45s fetching https://other.example/q"],
      ["task t-12 failed: HTTP 503", "task t-9981 failed: HTTP 502"],
      ["object 5f2b9c1e8d7a not found", "object a1b2c3d4e5f6a7b8 not found"],
      ["user 'ada' has no cookie", "user 'grace hopper' has no cookie"],
      ["connect ECONNREFUSED 10.0.0.12:6379", "connect ECONNREFUSED 127.0.0.1:6380"],
      ["id 123e4567-e89b-12d3-a456-426614174000 gone", "id 00000000-0000-0000-0000-000000000000 gone"],
      ["  lots   of\n space 1.5 ", "lots of space 2"],
    ];
    for (const [a, b] of pairs) expect(normalizeErrorMessage(a), `${a} ~ ${b}`).toBe(normalizeErrorMessage(b));
  });

  it("keeps what tells errors apart", () => {
    expect(normalizeErrorMessage("Timeout")).not.toBe(normalizeErrorMessage("Forbidden"));
    expect(normalizeErrorMessage("Timeout after 30s")).toBe("Timeout after <n>s");
    expect(normalizeErrorMessage("bad face")).toBe("bad face");
  });

  it("an empty or missing message is the empty group", () => {
    expect(normalizeErrorMessage("")).toBe("");
    expect(normalizeErrorMessage(null)).toBe("");
    expect(normalizeErrorMessage(undefined)).toBe("");
  });

  it("is bounded in length and linear in time on crafted input", () => {
    for (const evil of ["1".repeat(1e6), "a1".repeat(5e5), "'".repeat(1e6), "http://".repeat(1e5), "a@".repeat(5e5), "9.".repeat(5e5), " \t".repeat(5e5)]) {
      const t = performance.now();
      const g = normalizeErrorMessage(evil);
      expect(performance.now() - t).toBeLessThan(500);
      expect(g.length).toBeLessThanOrEqual(ERROR_GROUP_MAX);
    }
  });
});
