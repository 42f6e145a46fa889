// Sign-in throttling under concurrency (issue 12, point 5), against a real Redis
// (REDIS_TEST_URL, its own database): parallel guesses are counted before any password is
// hashed, a per-address budget holds across user names, replicas share the counts, and
// a right password gets in once the wait is over.
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { createRedisBackend } from "@fleet/backend/redis";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import * as queues from "@/app/api/v1/queues/route";
import { redisTestUrl } from "@/server/api/test/harness";
import { waitFor } from "@/server/events/test/helpers";

import { handleSignIn } from "./handlers";
import { hashGate } from "./hash-gate";
import { passwordChecks } from "./password";
import { addressBudgetId, SIGN_IN_POLICY, SignInThrottle } from "./throttle";
import { PASSWORDS, SAME_ORIGIN, call, clearAuth, configureAuth, cookieOf, fromPeer } from "./test/auth-env";

const DB = testRedisDb("apps/web/src/server/auth/signin-throttle.test.ts");
let admin: Redis;

beforeAll(async () => {
  admin = new Redis(redisTestUrl(DB), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  await configureAuth(redisTestUrl(DB));
});

afterAll(async () => {
  await admin.quit();
  await clearAuth();
});

beforeEach(async () => {
  await admin.flushdb();
});

const signIn = (username: string, password: string, address = "198.51.100.7") =>
  call(handleSignIn, "POST", "/auth/signin", { headers: { ...SAME_ORIGIN, ...fromPeer(address) }, body: { username, password } });

/**
 * Returns once the wait of an address at its budget (the `until` of its count in Redis, on
 * this machine's clock, as the throttle writes it) has at least half a second left, which
 * requests sent at once right after fall within. Under load it may have less: the rest of it
 * is let pass (a known deadline), and the next guess is then let through, checked (a wrong
 * password: 401) and doubles the wait, so this ends within a few guesses.
 */
async function untilBackingOff(next: (i: number) => { user: string; address: string }, key: string): Promise<void> {
  for (let i = 0; i < 12; i++) {
    const left = Number((await admin.hget(key, "until")) ?? 0) - Date.now();
    if (left >= 500) return;
    if (left > 0) await new Promise((r) => setTimeout(r, left + 5));
    const { user, address } = next(i);
    expect([401, 429], `guess ${i}`).toContain((await signIn(user, "guess", address)).status);
  }
  throw new Error(`${key} never backed off with half a second left`);
}

describe("parallel guesses", () => {
  it("48 wrong passwords sent at once for one user from one address: at most 3 are checked, the rest answer 429 unchecked", async () => {
    const checksBefore = passwordChecks();
    const answers = await Promise.all(Array.from({ length: 48 }, (_, i) => signIn("ada", `guess-${i}`)));
    const checks = passwordChecks() - checksBefore;
    const statuses = answers.map((a) => a.status);
    expect(checks).toBeLessThanOrEqual(SIGN_IN_POLICY.pairFree);
    expect(statuses.filter((s) => s === 401)).toHaveLength(checks);
    expect(statuses.filter((s) => s === 429)).toHaveLength(48 - checks);
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(Number(a.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(a.json.error.code).toBe("too_many_requests");
    }
    // never more than 2 hashes ran at once in this process
    expect(hashGate().stats().maxRunning).toBeLessThanOrEqual(hashGate().concurrency);
  });

  it("the right password gets in once the wait is over (within seconds, not minutes)", async () => {
    for (let i = 0; i < 3; i++) expect((await signIn("otto", `wrong-${i}`)).status).toBe(401);
    const refused = await signIn("otto", PASSWORDS.otto);
    expect(refused.status).toBe(429);
    // seconds, not minutes: the wait the throttle set, as it says it (its growth is checked in throttle.test.ts)
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_POLICY.baseDelayMs / 1000 + 1);
    // the first attempt the throttle lets through is checked, and it is right (60 s: a guard against hanging)
    const ok = await waitFor(
      async () => {
        const res = await signIn("otto", PASSWORDS.otto);
        return res.status === 429 ? null : res;
      },
      { timeoutMs: 60_000, stepMs: 100, what: "otto's backoff to end" },
    );
    expect(ok.status).toBe(200);
    expect((await call(queues.GET, "GET", "/queues", { headers: { cookie: cookieOf(ok) } })).status).toBe(200);
    // a success starts over: three more tries before the next wait
    for (let i = 0; i < 3; i++) expect((await signIn("otto", `wrong-again-${i}`)).status).toBe(401);
  });

  it("one address guessing many names hits the address budget (30), whatever the names; another address does not", async () => {
    const statuses = [];
    for (let i = 0; i < SIGN_IN_POLICY.addressFree; i++) statuses.push((await signIn(`nobody-${i}`, "guess", "203.0.113.9")).status);
    expect(statuses.every((s) => s === 401)).toBe(true);
    // the budget is spent: the address backs off, whatever name comes next
    expect(await admin.hget("fleet:console:signin:addr:203.0.113.9", "n")).toBe(String(SIGN_IN_POLICY.addressFree));
    await untilBackingOff((i) => ({ user: `nobody-more-${i}`, address: "203.0.113.9" }), "fleet:console:signin:addr:203.0.113.9");
    // at once, while it backs off: more names and a user behind that address wait too (at most
    // 5 minutes, README); elsewhere they sign in
    const burst = await Promise.all([...Array.from({ length: 4 }, (_, i) => signIn(`nobody-burst-${i}`, "guess", "203.0.113.9")), signIn("vera", PASSWORDS.vera, "203.0.113.9")]);
    expect(burst.map((r) => r.status)).toEqual([429, 429, 429, 429, 429]);
    expect((await signIn("vera", PASSWORDS.vera, "203.0.113.10")).status).toBe(200);
    // IPv6: one /64 is one address
    for (let i = 0; i < SIGN_IN_POLICY.addressFree; i++) await signIn(`v6-${i}`, "guess", `2001:db8:5:6::${(i + 1).toString(16)}`);
    await untilBackingOff(
      (i) => ({ user: `v6-more-${i}`, address: `2001:db8:5:6::${(1000 + i).toString(16)}` }),
      `fleet:console:signin:addr:${addressBudgetId("2001:db8:5:6::1")}`,
    );
    expect((await signIn("vera", PASSWORDS.vera, "2001:db8:5:6::ffff")).status).toBe(429);
    expect((await signIn("vera", PASSWORDS.vera, "2001:db8:5:7::1")).status).toBe(200);
    // Each unknown name is checked against the dummy hash at the default scrypt cost (32 MiB),
    // as in production, so that timing never tells unknown names apart: some 60 such checks,
    // one after the other, take well over the default 30 s on a loaded two-core machine.
  }, 180_000);

  it("the counts live in Redis with TTLs, so they are shared and forgotten", async () => {
    await signIn("ada", "wrong");
    const keys = (await admin.keys("fleet:console:signin:*")).sort();
    expect(keys).toEqual(["fleet:console:signin:addr:198.51.100.7", expect.stringMatching(/^fleet:console:signin:pair:[A-Za-z0-9_-]{32}$/)]);
    for (const k of keys) {
      const ttl = await admin.pttl(k);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(30 * 60_000);
    }
  });
});

describe("replicas", () => {
  it("two console processes on one Redis share the counts: guesses spread over both are throttled as one", async () => {
    const one = createRedisBackend(redisTestUrl(DB));
    const two = createRedisBackend(redisTestUrl(DB));
    try {
      const a = new SignInThrottle(one);
      const b = new SignInThrottle(two);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).reserve("ada", "192.0.2.44")));
      expect(answers.filter((r) => r.allowed)).toHaveLength(SIGN_IN_POLICY.pairFree);
      // what one replica counted, the other refuses
      expect((await b.reserve("ADA", "192.0.2.44")).allowed).toBe(false);
      expect((await a.reserve("ada", "192.0.2.45")).allowed).toBe(true);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
