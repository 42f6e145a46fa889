import { describe, expect, it } from "vitest";
import { createMemoryBackend } from "@fleet/backend/memory";
import { SIGN_IN_POLICY, SignInThrottle, addressBudgetId, pairBudgetId } from "./throttle";

describe("the sign-in backoff", () => {
  it("reserves 3 attempts per user and address, then makes them wait; a success starts over", async () => {
    const backend = createMemoryBackend();
    const th = new SignInThrottle(backend);
    const granted = [];
    for (let i = 0; i < SIGN_IN_POLICY.pairFree; i++) {
      const r = await th.reserve("ada", "1.2.3.4");
      expect(r.allowed).toBe(true);
      if (r.allowed) granted.push(r);
    }
    const refused = await th.reserve("ADA", "1.2.3.4");
    expect(refused).toEqual({ allowed: false, waitMs: expect.any(Number) });
    if (!refused.allowed) {
      expect(refused.waitMs).toBeGreaterThan(900);
      expect(refused.waitMs).toBeLessThanOrEqual(SIGN_IN_POLICY.baseDelayMs);
    }
    expect((await th.reserve("ada", "5.6.7.8")).allowed).toBe(true);
    await granted[2]!.settle("success");
    expect((await th.reserve("ada", "1.2.3.4")).allowed).toBe(true);
    await backend.close();
  });

  it("keeps budgets by address (IPv6 by its /64) and by name within it, whatever the name's shape", () => {
    expect(addressBudgetId(null)).toBe("unknown");
    expect(addressBudgetId("192.0.2.7")).toBe("192.0.2.7");
    expect(addressBudgetId("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(addressBudgetId("2001:db8:0:2::9")).toBe("2001:db8:0:2::/64");
    expect(addressBudgetId("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressBudgetId("::1")).toBe("0:0:0:0::/64");
    expect(pairBudgetId("Ada", "2001:db8:0:2::9")).toBe(pairBudgetId("ada", "2001:db8:0:2::1"));
    expect(pairBudgetId("ada", "192.0.2.7")).not.toBe(pairBudgetId("ada", "192.0.2.8"));
    expect(pairBudgetId("x\n:*{}".repeat(50), null)).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});
