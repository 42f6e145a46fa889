import { describe, expect, it } from "vitest";

import { parseAuthEnv } from "@/server/env";

import { buildAuthConfig } from "./config";
import { csrfProblem } from "./csrf";
import { hashPassword, parseHash, verifyPassword } from "./password";
import { normalizeAddress, peerAddress, peerHeaderValue, PEER_HEADER } from "./peer";
import { bindHostFromArgv, decideStartup, isLoopbackHost, type StartupFacts } from "./startup";
import { createMemoryBackend } from "@fleet/backend/memory";

import { logText } from "@/server/log-text";

import { waitFor } from "@/server/events/test/helpers";

import { BUSY, HashGate } from "./hash-gate";
import { SIGN_IN_POLICY, SignInThrottle, addressBudgetId, pairBudgetId } from "./throttle";

describe("password hashes", () => {
  it("are scrypt$N$r$p$salt$hash, salted, and verify only the right password", async () => {
    const a = await hashPassword("hunter2-hunter2", { N: 1024 });
    const b = await hashPassword("hunter2-hunter2", { N: 1024 });
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("hunter2-hunter2", parseHash(a))).toBe(true);
    expect(await verifyPassword("hunter2-hunter3", parseHash(a))).toBe(false);
    expect(await verifyPassword("", parseHash(a))).toBe(false);
  });

  it("use the default cost N=2^15 and verify a hash made by `pnpm hash-password`", async () => {
    expect(parseHash(await hashPassword("x")).N).toBe(32768);
    // printf %s 'correct horse battery' | pnpm hash-password
    const made = "scrypt$32768$8$1$DEB2X0RlVBt1D35SwJKETg$QxcNHipWMO1NlvY3Lwdto6A9wAzh0Dm-ql0KYLqKBZE";
    expect(await verifyPassword("correct horse battery", parseHash(made))).toBe(true);
    expect(await verifyPassword("correct horse batterY", parseHash(made))).toBe(false);
  });

  it("refuse malformed or abusive parameters without echoing the hash", () => {
    for (const bad of [
      "plain",
      "bcrypt$2b$10$x",
      "scrypt$1000$8$1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
      "scrypt$4194304$8$1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
      "scrypt$1024$8$1$!!$aGFzaA",
    ]) {
      expect(() => parseHash(bad), bad).toThrow();
      try {
        parseHash(bad);
      } catch (err) {
        expect((err as Error).message).not.toContain(bad);
      }
    }
  });
});

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

describe("the cross-site check", () => {
  const req = (headers: Record<string, string>) => new Request("http://console.test/api/v1/counters/x", { method: "PUT", headers: { host: "console.test", ...headers } });

  it("passes the console's own fetch and refuses everything else", () => {
    expect(csrfProblem(req({ origin: "http://console.test", "sec-fetch-site": "same-origin", "x-fleet-csrf": "1" }))).toBeNull();
    expect(csrfProblem(req({ origin: "http://console.test", "x-fleet-csrf": "1" }))).toBeNull();
    expect(csrfProblem(req({ origin: "http://console.test.evil", "x-fleet-csrf": "1" }))).toMatch(/another origin/);
    expect(csrfProblem(req({ origin: "https://console.test", "x-fleet-csrf": "1" }))).toMatch(/another origin/);
    expect(csrfProblem(req({ "sec-fetch-site": "same-site", origin: "http://console.test", "x-fleet-csrf": "1" }))).toMatch(/another site/);
    expect(csrfProblem(req({ "sec-fetch-site": "none", "x-fleet-csrf": "1" }))).toMatch(/another site/);
    expect(csrfProblem(req({ "x-fleet-csrf": "1" }))).toMatch(/no origin/);
    expect(csrfProblem(req({ origin: "http://console.test", "x-fleet-csrf": "0" }))).toMatch(/x-fleet-csrf/);
  });
});

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

describe("the password hash gate", () => {
  it("runs at most `concurrency` checks at once; the rest wait their turn or give up", async () => {
    // waiters wait up to a minute here: a loaded machine must not make them give up mid-test
    const gate = new HashGate(2, 3, 60_000);
    const releases: Array<() => void> = [];
    let started = 0;
    const job = () =>
      new Promise<string>((resolve) => {
        started++;
        releases.push(() => resolve("done"));
      });
    const running = [gate.run(job), gate.run(job), gate.run(job), gate.run(job), gate.run(job)];
    expect(await gate.run(job)).toBe(BUSY); // 2 running, 3 waiting: no room
    expect(gate.stats()).toMatchObject({ running: 2, waiting: 3 });
    expect(started).toBe(2);
    // release one at a time: each frees exactly one waiter
    for (let i = 0; i < 5; i++) {
      releases.shift()!();
      const finished = i + 1;
      const expected = Math.min(5, 2 + finished);
      await waitFor(() => started === expected && gate.stats().running === expected - finished, { what: `${expected} started` });
      expect(gate.stats()).toMatchObject({ running: expected - finished, waiting: 5 - expected });
    }
    expect(await Promise.all(running)).toEqual(["done", "done", "done", "done", "done"]);
    expect(gate.stats()).toMatchObject({ running: 0, waiting: 0, maxRunning: 2, total: 5 });
  });

  it("a waiter gives up after its wait when nobody releases", async () => {
    const gate = new HashGate(2, 3, 200);
    const releases: Array<() => void> = [];
    const job = () => new Promise<string>((resolve) => releases.push(() => resolve("done")));
    const stuck = [gate.run(job), gate.run(job)];
    const t0 = Date.now();
    expect(await gate.run(job)).toBe(BUSY);
    // by its wait (200 ms), not at once
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    for (const r of releases.splice(0)) r();
    expect(await Promise.all(stuck)).toEqual(["done", "done"]);
  });
});

describe("log text", () => {
  it("escapes control characters, separators and bidi overrides, so a name cannot forge a line", () => {
    expect(logText("ada\n[auth] signed in as root")).toBe("ada\\u000a[auth] signed in as root");
    expect(logText("a\rb\u2028c\u202ed\u0000")).toBe("a\\u000db\\u2028c\\u202ed\\u0000");
    expect(logText("back\\slash")).toBe("back\\\\slash");
    expect(logText("x".repeat(200), 10)).toBe("xxxxxxxxxx…(200 chars)");
    expect(logText("plain ada@example.test")).toBe("plain ada@example.test");
  });
});

describe("the peer address stamp", () => {
  it("vouches only for values made with this process's key", () => {
    expect(peerAddress(new Headers({ [PEER_HEADER]: peerHeaderValue("::ffff:10.0.0.1") }))).toBe("10.0.0.1");
    expect(peerAddress(new Headers({ [PEER_HEADER]: "guess 10.0.0.1" }))).toBeNull();
    expect(peerAddress(new Headers({ "x-forwarded-for": "10.0.0.1" }))).toBeNull();
    expect(peerAddress(new Headers({ [PEER_HEADER]: peerHeaderValue("not-an-ip") }))).toBeNull();
    expect(normalizeAddress(" 192.0.2.1 ")).toBe("192.0.2.1");
  });
});
