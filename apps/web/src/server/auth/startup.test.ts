import { describe, expect, it } from "vitest";
import { bindHostFromArgv, decideStartup, isLoopbackHost, type StartupFacts } from "./startup";

describe("the start-up decision", () => {
  const base: StartupFacts = { backendUrl: "memory://demo", bindHost: "127.0.0.1", authConfigured: false, insecureNoAuth: false, development: false };

  it("lets the memory demo run without authentication on loopback only", () => {
    for (const bindHost of ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"]) {
      expect(decideStartup({ ...base, bindHost }), bindHost).toEqual({ start: true, mode: "open" });
    }
    for (const bindHost of ["0.0.0.0", "::", "192.168.1.5", "console.example", null]) {
      const d = decideStartup({ ...base, bindHost });
      expect(d.start, String(bindHost)).toBe(false);
      if (!d.start) expect(d.reason).toMatch(/FLEET_INSECURE_NO_AUTH=1/);
    }
  });

  it("refuses a Redis backend without authentication, even on loopback and in development", () => {
    for (const facts of [
      { ...base, backendUrl: "redis://127.0.0.1:6379/0" },
      { ...base, backendUrl: "rediss://u:p@redis.internal:6380" },
      { ...base, backendUrl: "redis://127.0.0.1:6379/0", development: true },
    ]) {
      const d = decideStartup(facts);
      expect(d.start).toBe(false);
      if (!d.start) {
        expect(d.reason).toContain("Redis");
        expect(d.reason).not.toContain("u:p@");
      }
    }
  });

  it("starts with authentication anywhere, and with FLEET_INSECURE_NO_AUTH=1 as insecure", () => {
    expect(decideStartup({ ...base, backendUrl: "redis://r:6379", bindHost: "0.0.0.0", authConfigured: true })).toEqual({ start: true, mode: "auth" });
    expect(decideStartup({ ...base, backendUrl: "redis://r:6379", bindHost: null, insecureNoAuth: true })).toEqual({ start: true, mode: "insecure" });
    expect(decideStartup({ ...base, bindHost: null, development: true })).toEqual({ start: true, mode: "open" });
  });

  it("reads the bind address from next start's argv", () => {
    expect(bindHostFromArgv(["node", "next", "start", "-p", "3000", "-H", "127.0.0.1"])).toBe("127.0.0.1");
    expect(bindHostFromArgv(["node", "next", "start", "--hostname", "0.0.0.0"])).toBe("0.0.0.0");
    expect(bindHostFromArgv(["node", "next", "start", "--hostname=::1"])).toBe("::1");
    expect(bindHostFromArgv(["node", "next", "start", "-p", "3000"])).toBeNull();
    expect(isLoopbackHost("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopbackHost("128.0.0.1")).toBe(false);
  });
});
