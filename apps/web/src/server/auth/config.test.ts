import { describe, expect, it } from "vitest";
import { parseAuthEnv } from "@/server/env";
import { buildAuthConfig } from "./config";

describe("authentication settings", () => {
  const hash = "scrypt$1024$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g";
  const sha = "a".repeat(64);
  const build = (env: Record<string, string>) => buildAuthConfig(parseAuthEnv(env));

  it("parses users, tokens and the proxy; nothing configured means authentication off", () => {
    expect(build({}).enabled).toBe(false);
    const c = build({
      FLEET_AUTH_USERS: `alice:admin:${hash},\n bob:viewer:${hash}`,
      FLEET_AUTH_TOKENS: `prom:viewer:${sha}`,
      FLEET_AUTH_SECRET: "s".repeat(32),
      FLEET_AUTH_PROXY_USER_HEADER: "X-User",
      FLEET_AUTH_TRUSTED_PROXIES: "10.0.0.0/8, ::1",
    });
    expect(c.enabled).toBe(true);
    expect([...c.users.keys()]).toEqual(["alice", "bob"]);
    expect(c.tokens[0]).toMatchObject({ name: "prom", role: "viewer" });
    expect(c.proxy!.userHeader).toBe("x-user");
    expect(c.proxy!.trusted.check("10.1.2.3", "ipv4")).toBe(true);
    expect(c.proxy!.trusted.check("11.1.2.3", "ipv4")).toBe(false);
    expect(c.sessionTtlSeconds).toBe(43200);
    expect(c.auditMaxEntries).toBe(10000);
  });

  it("names the variable and entry that is wrong, never the secret", () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ FLEET_AUTH_USERS: `alice:root:${hash}`, FLEET_AUTH_SECRET: "s".repeat(32) }, /FLEET_AUTH_USERS.*role/],
      [{ FLEET_AUTH_USERS: "alice:admin:hunter2", FLEET_AUTH_SECRET: "s".repeat(32) }, /FLEET_AUTH_USERS.*hash-password/],
      [{ FLEET_AUTH_USERS: `alice:admin:${hash}` }, /FLEET_AUTH_SECRET is required/],
      [{ FLEET_AUTH_USERS: `alice:admin:${hash}`, FLEET_AUTH_SECRET: "short-secret" }, /at least 32/],
      [{ FLEET_AUTH_TOKENS: "ci:admin:my-plain-token" }, /SHA-256/],
      [{ FLEET_AUTH_PROXY_USER_HEADER: "X-User" }, /FLEET_AUTH_TRUSTED_PROXIES/],
      [{ FLEET_AUTH_PROXY_USER_HEADER: "X-User", FLEET_AUTH_TRUSTED_PROXIES: "proxy.internal" }, /not an IP address/],
      [{ FLEET_AUTH_TOKENS: `ci:admin:${sha}`, FLEET_INSECURE_NO_AUTH: "1" }, /FLEET_INSECURE_NO_AUTH/],
    ];
    for (const [env, message] of cases) {
      let error: Error | null = null;
      try {
        build(env);
      } catch (err) {
        error = err as Error;
      }
      expect(error, JSON.stringify(env)).not.toBeNull();
      expect(error!.message).toMatch(message);
      expect(error!.message).not.toContain("hunter2");
      expect(error!.message).not.toContain("my-plain-token");
      expect(error!.message).not.toContain("short-secret");
    }
  });
});
