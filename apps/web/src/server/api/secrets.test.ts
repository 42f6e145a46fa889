import { describe, expect, it } from "vitest";

import { isSecretKey, looksLikeSecret, maskPayload, maskTags } from "./secrets";

const masked = (s: string) => maskPayload(Buffer.from(s, "utf8"));

describe("secrets in pool items", () => {
  it("knows secret key names, whatever their case and separators, and not their look-alikes", () => {
    for (const k of [
      "cookies",
      "Set-Cookie",
      "access_token",
      "refreshToken",
      "PASSWORD",
      "client_secret",
      "Authorization",
      "api-key",
      "session_id",
      "auth",
      "sid",
      "cf_clearance",
      "PHPSESSID",
      "JSESSIONID",
    ]) {
      expect(isSecretKey(k), k).toBe(true);
    }
    for (const k of ["author", "site", "region", "id", "tokens_used_count_x".replace("token", "tkn"), "name", "domain"]) expect(isSecretKey(k), k).toBe(false);
  });

  it("masks the demo's cf-cookies item (a cf_clearance member at the top level)", () => {
    const out = masked(JSON.stringify({ cf_clearance: "0uSI6AVpQxSO08YRj2Uh_hSLBKyoc7JK", user_agent: "Mozilla/5.0 FleetDemo/1.0" }));
    expect(out.masked).toEqual(["$.cf_clearance"]);
    expect(JSON.parse(out.bytes.toString("utf8"))).toEqual({ cf_clearance: "••• masked (32 chars)", user_agent: "Mozilla/5.0 FleetDemo/1.0" });
  });

  it("knows secret shapes: JWT, auth schemes, header lines, PEM keys, cookie strings", () => {
    expect(looksLikeSecret("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")).toBe(true);
    expect(looksLikeSecret("Bearer abcdef0123456789")).toBe(true);
    expect(looksLikeSecret("GET / HTTP/1.1\nCookie: a=b")).toBe(true);
    expect(looksLikeSecret("-----BEGIN RSA PRIVATE KEY-----\nMIIE...")).toBe(true);
    expect(looksLikeSecret("cf_clearance=abc123; __cf_bm=xyz; path=/")).toBe(true);
    for (const plain of ["hello world", "https://example.com/a?b=c", "a=b", "proxy.example.com:8080", "Bearer"]) expect(looksLikeSecret(plain), plain).toBe(false);
  });

  it("masks members by key at any depth and secret-shaped strings, keeps the rest, says where", () => {
    const payload = {
      site: "forum.example",
      cookies: [{ name: "sid", value: "s3cr3t-cookie-value", domain: ".forum.example" }],
      headers: { "User-Agent": "Mozilla/5.0", Authorization: "Bearer abcdef0123456789" },
      note: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
      password: "",
    };
    const { bytes, masked: paths } = masked(JSON.stringify(payload));
    const text = bytes.toString("utf8");
    expect(paths).toEqual(["$.cookies", "$.headers.Authorization", "$.note"]);
    expect(text).not.toContain("s3cr3t");
    expect(text).not.toContain("abcdef0123456789");
    expect(text).not.toContain("c2lnbmF0dXJl");
    const parsed = JSON.parse(text);
    expect(parsed.site).toBe("forum.example");
    expect(parsed.headers["User-Agent"]).toBe("Mozilla/5.0");
    expect(parsed.cookies).toMatch(/^••• masked \(\d+ chars\)$/);
    expect(parsed.password).toBe("");
  });

  it("masks a whole text payload shaped like a secret; leaves plain text, plain JSON and binary bytes as they are", () => {
    expect(masked("cf_clearance=abc123; __cf_bm=xyz").masked).toEqual(["$"]);
    expect(masked("cf_clearance=abc123; __cf_bm=xyz").bytes.toString()).toBe("••• masked (32 chars)");
    for (const plain of ['{"proxy": "10.0.0.1:8080"}', "10.0.0.1:8080", "[1, 2]"]) {
      const r = masked(plain);
      expect(r.masked).toEqual([]);
      expect(r.bytes.toString()).toBe(plain);
    }
    const bin = Buffer.from([0xff, 0xfe, 0x41]);
    expect(maskPayload(bin).bytes).toBe(bin);
  });

  it("masks tags by key name", () => {
    expect(maskTags({ site: "a", token: "t0k3n", session: null })).toEqual({ tags: { site: "a", token: "••• masked (5 chars)", session: null }, masked: ["tags.token"] });
    expect(maskTags(null)).toEqual({ tags: null, masked: [] });
  });
});
