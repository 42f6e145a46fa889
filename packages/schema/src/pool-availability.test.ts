import { describe, expect, it } from "vitest";

import { poolAvailability } from "./api";

describe("poolAvailability", () => {
  it("exhausted only on exact counts, low when little is free and some is claimed, never low when all is free", () => {
    expect(poolAvailability({ live: 0, free: 0 })).toBe("empty");
    expect(poolAvailability({ live: 5, free: 0 })).toBe("exhausted");
    expect(poolAvailability({ live: 5, free: 0, estimated: { sampled: 1000 } })).toBe("low");
    expect(poolAvailability({ live: 20, free: 2 })).toBe("low");
    expect(poolAvailability({ live: 100, free: 10 })).toBe("low");
    expect(poolAvailability({ live: 100, free: 11 })).toBe("ok");
    expect(poolAvailability({ live: 2, free: 2 })).toBe("ok");
    expect(poolAvailability({ live: 2, free: 1 })).toBe("low");
  });
});
