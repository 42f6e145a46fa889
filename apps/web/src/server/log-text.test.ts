import { describe, expect, it } from "vitest";
import { logText } from "@/server/log-text";

describe("log text", () => {
  it("escapes control characters, separators and bidi overrides, so a name cannot forge a line", () => {
    expect(logText("ada\n[auth] signed in as root")).toBe("ada\\u000a[auth] signed in as root");
    expect(logText("a\rb\u2028c\u202ed\u0000")).toBe("a\\u000db\\u2028c\\u202ed\\u0000");
    expect(logText("back\\slash")).toBe("back\\\\slash");
    expect(logText("x".repeat(200), 10)).toBe("xxxxxxxxxx…(200 chars)");
    expect(logText("plain ada@example.test")).toBe("plain ada@example.test");
  });
});
