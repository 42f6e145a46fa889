import { describe, expect, it } from "vitest";

import { absoluteTime, clockTime, formatAge, formatBytes, formatDuration, localDateTime } from "./format";

describe("format", () => {
  it("formats ages coarsely and durations precisely", () => {
    expect(formatAge(12.4)).toBe("12 s");
    expect(formatAge(125)).toBe("2 min");
    expect(formatAge(3 * 3600 + 60 * 5)).toBe("3 h 5 min");
    expect(formatDuration(125)).toBe("2 min 5 s");
    expect(formatDuration(86400 * 2 + 3600)).toBe("2 d 1 h");
  });
  it("formats bytes in binary units", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(4096)).toBe("4.0 KiB");
    expect(formatBytes(17179869184)).toBe("16 GiB");
    expect(formatBytes(null)).toBe("—");
  });
  it("writes absolute times in 24-hour local time, whatever the locale", () => {
    // Built from local parts, so the expectations hold in any time zone the tests run in.
    const afternoon = new Date(2026, 10, 30, 13, 5, 9).getTime() / 1000;
    expect(clockTime(afternoon)).toBe("13:05:09");
    expect(clockTime(afternoon, { seconds: false })).toBe("13:05");
    const midnight = new Date(2026, 0, 2, 0, 0, 7).getTime() / 1000;
    expect(clockTime(midnight)).toBe("00:00:07");
    expect(localDateTime(midnight)).toBe("2026-01-02 00:00:07");
    const abs = absoluteTime(afternoon);
    expect(abs).toBe(`2026-11-30 13:05:09 (${new Date(afternoon * 1000).toISOString()})`);
    expect(abs).not.toMatch(/AM|PM/);
    expect(clockTime(Number.NaN)).toBe("NaN");
  });
});
