import { describe, expect, it } from "vitest";
import { checkToken, parseBaseUrl } from "./client";
import { UsageError } from "./exit-codes";

describe("FLEET_URL and FLEET_TOKEN", () => {
  it("takes a console URL with or without /api/v1 and refuses what is not one", () => {
    expect(parseBaseUrl("http://console:3000/api/v1/").href).toBe("http://console:3000/");
    expect(parseBaseUrl("https://ops.example/fleet/").pathname).toBe("/fleet");
    expect(() => parseBaseUrl("console:3000")).toThrow(/http:\/\/ or https:\/\//);
    expect(() => parseBaseUrl("not a url")).toThrow(/not a URL/);
    expect(() => parseBaseUrl("http://u:pw@console")).toThrow(/must not carry credentials/);
  });

  it("trims a token, treats an empty one as none, and refuses one a header cannot carry without showing it", () => {
    expect(checkToken("  abc.DEF-123\n")).toBe("abc.DEF-123");
    expect(checkToken("   ")).toBeUndefined();
    expect(checkToken(undefined)).toBeUndefined();
    try {
      checkToken("sec ret-token");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).not.toContain("sec ret");
    }
  });
});
