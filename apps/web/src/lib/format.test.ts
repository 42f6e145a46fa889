import { describe, expect, it } from "vitest";

import { formatAge, formatBytes, formatDuration } from "./format";

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
});
