// Sign-in, sessions, tokens, the trusted proxy, SSE and /metrics, and GET /api/v1/audit,
// with authentication on, against a real Redis (REDIS_TEST_URL, its own database).
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import type { Backend } from "@fleet/backend";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import * as audit from "@/app/api/v1/audit/route";
import * as events from "@/app/api/v1/events/route";
import * as metrics from "@/app/api/v1/metrics/route";
import * as counter from "@/app/api/v1/counters/[name]/route";
import * as queues from "@/app/api/v1/queues/route";
import * as queue from "@/app/api/v1/queues/[name]/route";
import * as pool from "@/app/api/v1/pools/[name]/route";
import * as stream from "@/app/api/v1/streams/[name]/route";
import * as tasks from "@/app/api/v1/automations/[type]/tasks/route";
import * as workers from "@/app/api/v1/workers/route";
import { redisTestUrl } from "@/server/api/test/harness";
import { endpoints, handlerOf } from "@/server/api/test/route-walk";
import { resetServerEnv } from "@/server/env";

import { authConfig } from "./config";
import { WRONG_CREDENTIALS, handleSession, handleSignIn, handleSignOut } from "./handlers";
import { createSessionValue } from "./session";
import { ORIGIN, PASSWORDS, PROXY_ADDRESS, SAME_ORIGIN, bearer, call, clearAuth, configureAuth, cookieOf, fromPeer, userEntry, type Handler } from "./test/auth-env";

const DB = testRedisDb("apps/web/src/server/auth/auth-flow.test.ts");
let backend: Backend;
let admin: Redis;

beforeAll(async () => {
  admin = new Redis(redisTestUrl(DB), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  backend = await configureAuth(redisTestUrl(DB));
});

afterAll(async () => {
  await admin.quit();
  await clearAuth();
});

beforeEach(async () => {
  await admin.flushdb();
});

const signIn = (username: string, password: string, headers: Record<string, string> = SAME_ORIGIN) =>
  call(handleSignIn, "POST", "/auth/signin", { headers, body: { username, password } });

describe("sign-in", () => {
  it("sets an httpOnly, SameSite, expiring session cookie and says who signed in", async () => {
    const res = await signIn("ada", PASSWORDS.ada);
    expect(res.status).toBe(200);
    expect(res.json.user).toEqual({ name: "ada", role: "admin", via: "session" });
    const set = res.headers.get("set-cookie")!;
    expect(set).toMatch(/^fleet_session=v2\./);
    expect(set).toContain("HttpOnly");
    expect(set).toContain("SameSite=Lax");
    expect(set).toMatch(/Max-Age=\d+/);
    expect(set).not.toContain("Secure"); // plain http here; https requests get Secure
    const session = await call(handleSession as Handler, "GET", "/auth/session", { headers: { cookie: cookieOf(res) } });
    expect(session.json).toMatchObject({ mode: "auth", user: { name: "ada", role: "admin" }, password_sign_in: true });
    expect(session.json.expires_at).toBeGreaterThan(Date.now() / 1000);
  });

  it("marks the cookie Secure behind https", async () => {
    const res = await signIn("ada", PASSWORDS.ada, { ...SAME_ORIGIN, origin: "https://console.test", "x-forwarded-proto": "https" });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toMatch(/^__Host-fleet_session=v2\..*; Path=\/; .*Secure/);
  });

  it("answers a wrong password and an unknown user alike, never saying which part was wrong", async () => {
    const wrongPassword = await signIn("ada", "not-her-password");
    const unknownUser = await signIn("mallory", PASSWORDS.ada);
    const both = await signIn("mallory", "nothing");
    for (const res of [wrongPassword, unknownUser, both]) {
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: { code: "unauthenticated", message: WRONG_CREDENTIALS } });
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    expect(WRONG_CREDENTIALS).not.toMatch(/unknown|no such|exists|incorrect password/i);
  });

  it("slows repeated failures down per user and address, even for the right password, and a success resets it", async () => {
    for (let i = 0; i < 3; i++) expect((await signIn("otto", "wrong")).status).toBe(401);
    const blocked = await signIn("otto", PASSWORDS.otto);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(blocked.json.error.message).not.toContain("password");
    // another user is not slowed down by otto's failures
    expect((await signIn("vera", PASSWORDS.vera)).status).toBe(200);
    // once the wait is over a success clears otto's record: it takes three failures again
    // (without the reset the second one would already answer 429)
    // (the throttle reads the real clock; a refused attempt does not count as a failure)
    const deadline = Date.now() + 60_000; // a guard: the wait is a second
    let after = await signIn("otto", PASSWORDS.otto);
    while (after.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = await signIn("otto", PASSWORDS.otto);
    }
    expect(after.status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await signIn("otto", "wrong")).status, `failure ${i + 1} after the reset`).toBe(401);
    expect((await signIn("otto", PASSWORDS.otto)).status).toBe(429);
  });

  it("refuses a sign-in posted from another site (login CSRF)", async () => {
    const res = await signIn("ada", PASSWORDS.ada, { origin: "https://evil.test", "x-fleet-csrf": "1" });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("is audited, and sign-out clears the cookie", async () => {
    const res = await signIn("vera", PASSWORDS.vera);
    const out = await call(handleSignOut, "POST", "/auth/signout", { headers: { ...SAME_ORIGIN, cookie: cookieOf(res) } });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^fleet_session=;.*Max-Age=0/);
    const { items } = await backend.auditRange(0, 10);
    expect(items.map((b) => JSON.parse(b.toString()).action)).toEqual(["auth.signout", "auth.signin"]);
  });
});

describe("sessions", () => {
  it("reject a tampered, expired or foreign-secret cookie", async () => {
    const good = cookieOf(await signIn("vera", PASSWORDS.vera));
    const [name, value] = good.split("=") as [string, string];
    const [v, payload, sig] = value.split(".") as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), u: "ada" })).toString("base64url");
    const user = authConfig().users.get("vera")!;
    const expired = createSessionValue(authConfig().secret!, user, Math.floor(Date.now() / 1000) - 100_000, 60);
    const foreign = createSessionValue(Buffer.from("another-secret-another-secret-another"), user, Math.floor(Date.now() / 1000), 600);
    for (const cookie of [`${name}=${v}.${forged}.${sig}`, `${name}=${expired}`, `${name}=${foreign}`, `${name}=garbage`]) {
      expect((await call(queues.GET, "GET", "/queues", { headers: { cookie } })).status, cookie).toBe(401);
    }
    expect((await call(queues.GET, "GET", "/queues", { headers: { cookie: good } })).status).toBe(200);
  });

  it("end when the user's password changes, and follow a role change at once", async () => {
    const cookie = cookieOf(await signIn("otto", PASSWORDS.otto));
    const before = process.env.FLEET_AUTH_USERS!;
    try {
      // same password hash, role raised: the session now has the new role
      process.env.FLEET_AUTH_USERS = before.replace("otto:operator:", "otto:admin:");
      resetServerEnv();
      const put = await call(counter.PUT, "PUT", "/counters/c", { headers: { ...SAME_ORIGIN, cookie }, body: { value: 1 } });
      expect(put.status).toBe(200);
      // a new password: the old session is over
      process.env.FLEET_AUTH_USERS = before
        .split(",")
        .filter((e) => !e.startsWith("otto:"))
        .concat(await userEntry("otto", "operator", "a-new-password"))
        .join(",");
      resetServerEnv();
      expect((await call(queues.GET, "GET", "/queues", { headers: { cookie } })).status).toBe(401);
    } finally {
      process.env.FLEET_AUTH_USERS = before;
      resetServerEnv();
    }
  });
});

describe("tokens", () => {
  it("work for reads and writes without a CSRF header; a wrong or malformed one is 401, never anonymous", async () => {
    expect((await call(queues.GET, "GET", "/queues", { headers: bearer("viewer") })).status).toBe(200);
    expect((await call(counter.PUT, "PUT", "/counters/c", { headers: bearer("admin"), body: { value: 2 } })).status).toBe(200);
    for (const authorization of ["Bearer nope", "Basic YWRhOng=", "Bearer"]) {
      const res = await call(queues.GET, "GET", "/queues", { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
    }
    // a wrong token is not rescued by a valid cookie riding along
    const cookie = cookieOf(await signIn("ada", PASSWORDS.ada));
    expect((await call(queues.GET, "GET", "/queues", { headers: { authorization: "Bearer nope", cookie } })).status).toBe(401);
  });
});

describe("trusted proxy", () => {
  const asProxy = (user: string, role?: string) => ({
    ...fromPeer(PROXY_ADDRESS),
    "x-forwarded-user": user,
    ...(role ? { "x-forwarded-role": role } : {}),
  });

  it("takes user and role from the headers when the connection comes from the proxy", async () => {
    const read = await call(queues.GET, "GET", "/queues", { headers: asProxy("carol", "viewer") });
    expect(read.status).toBe(200);
    const write = await call(counter.PUT, "PUT", "/counters/c", { headers: { ...asProxy("carol", "admin"), ...SAME_ORIGIN }, body: { value: 3 } });
    expect(write.status).toBe(200);
    const { items } = await backend.auditRange(0, 1);
    expect(JSON.parse(items[0]!.toString())).toMatchObject({ actor: "carol", role: "admin", via: "proxy" });
    // an IPv6 address inside the trusted range, and a missing role header means viewer
    const v6 = await call(counter.PUT, "PUT", "/counters/c", { headers: { ...fromPeer("fd00::1"), "x-forwarded-user": "dan", ...SAME_ORIGIN }, body: { value: 4 } });
    expect(v6.status).toBe(403);
    expect(v6.json.error.message).toContain("viewer");
  });

  it("ignores the headers from any other address, and a forged peer stamp", async () => {
    const attempts: Array<Record<string, string>> = [
      { ...fromPeer("192.0.2.50"), "x-forwarded-user": "carol", "x-forwarded-role": "admin" },
      { "x-fleet-peer": `not-the-key ${PROXY_ADDRESS}`, "x-forwarded-user": "carol", "x-forwarded-role": "admin" },
      { "x-forwarded-for": PROXY_ADDRESS, "x-forwarded-user": "carol", "x-forwarded-role": "admin" },
    ];
    for (const headers of attempts) {
      expect((await call(queues.GET, "GET", "/queues", { headers })).status).toBe(401);
    }
  });

  it("rejects a role that is not one of the three, and needs the CSRF check for mutations", async () => {
    expect((await call(queues.GET, "GET", "/queues", { headers: asProxy("carol", "root") })).status).toBe(401);
    const noCsrf = await call(counter.PUT, "PUT", "/counters/c", { headers: { ...asProxy("carol", "admin"), origin: "https://evil.test" }, body: { value: 1 } });
    expect(noCsrf.status).toBe(403);
  });
});

describe("the live stream and /metrics", () => {
  it("need at least viewer; a bearer token works (Prometheus)", async () => {
    expect((await call(metrics.GET as Handler, "GET", "/metrics")).status).toBe(401);
    const scrape = await call(metrics.GET as Handler, "GET", "/metrics", { headers: bearer("viewer") });
    expect(scrape.status).toBe(200);
    expect(scrape.text).toContain("fleet_backend_up");

    const denied = await (events.GET as Handler)(new Request(`${ORIGIN}/api/v1/events`));
    expect(denied.status).toBe(401);
    await denied.text();
    const ac = new AbortController();
    const res = await (events.GET as Handler)(new Request(`${ORIGIN}/api/v1/events`, { headers: bearer("viewer"), signal: ac.signal }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    ac.abort();
    await res.body?.cancel().catch(() => undefined);
  });
});

describe("GET /api/v1/audit", () => {
  async function seedTrail(): Promise<void> {
    await call(counter.PUT, "PUT", "/counters/a", { headers: bearer("admin"), body: { value: 1 } });
    await call(counter.DELETE, "DELETE", "/counters/a", { headers: bearer("admin") });
    const cookie = cookieOf(await signIn("ada", PASSWORDS.ada));
    await call(counter.PUT, "PUT", "/counters/b", { headers: { ...SAME_ORIGIN, cookie }, body: { value: 2 } });
  }

  it("is for admins only", async () => {
    expect((await call(audit.GET, "GET", "/audit")).status).toBe(401);
    expect((await call(audit.GET, "GET", "/audit", { headers: bearer("operator") })).status).toBe(403);
    expect((await call(audit.GET, "GET", "/audit", { headers: bearer("admin") })).status).toBe(200);
  });

  it("pages newest first with a total, and filters by actor, action (prefix at a dot) and target", async () => {
    await seedTrail();
    const all = await call(audit.GET, "GET", "/audit", { headers: bearer("admin") });
    expect(all.json.total).toBe(4);
    expect(all.json.items.map((i: { action: string }) => i.action)).toEqual(["counter.set", "auth.signin", "counter.delete", "counter.set"]);
    const page = await call(audit.GET, "GET", "/audit?limit=1&offset=1", { headers: bearer("admin") });
    expect(page.json).toMatchObject({ total: 4, items: [{ action: "auth.signin" }] });
    const byActor = await call(audit.GET, "GET", "/audit?actor=admin-script", { headers: bearer("admin") });
    expect(byActor.json.total).toBe(2);
    const byAction = await call(audit.GET, "GET", "/audit?action=counter", { headers: bearer("admin") });
    expect(byAction.json.total).toBe(3);
    const byTarget = await call(audit.GET, "GET", "/audit?target=counter:b", { headers: bearer("admin") });
    expect(byTarget.json.items).toEqual([expect.objectContaining({ actor: "ada", target: "counter:b", details: { counter: "b", value: 2 } })]);
    expect((await call(audit.GET, "GET", "/audit?limit=5000", { headers: bearer("admin") })).status).toBe(400);
  });

  it("shows an entry that does not parse as corrupt instead of failing", async () => {
    await admin.lpush("fleet:console:audit", "{not json");
    const res = await call(audit.GET, "GET", "/audit", { headers: bearer("admin") });
    expect(res.status).toBe(200);
    expect(res.json.items[0]).toMatchObject({ action: null, raw: "{not json", corrupt: ["entry"] });
  });

  it("is capped at FLEET_AUDIT_MAX_ENTRIES", async () => {
    process.env.FLEET_AUDIT_MAX_ENTRIES = "3";
    resetServerEnv();
    try {
      for (let i = 0; i < 5; i++) await call(counter.PUT, "PUT", "/counters/x", { headers: bearer("admin"), body: { value: i } });
      const res = await call(audit.GET, "GET", "/audit", { headers: bearer("admin") });
      expect(res.json.total).toBe(3);
      expect(res.json.items[0].details.value).toBe(4);
    } finally {
      delete process.env.FLEET_AUDIT_MAX_ENTRIES;
      resetServerEnv();
    }
  });

  it("never returns a secret: no password, hash, token or session value in any answer", async () => {
    await seedTrail();
    const answers = [
      (await call(audit.GET, "GET", "/audit", { headers: bearer("admin") })).text,
      (await signIn("ada", PASSWORDS.ada)).text,
      (await call(handleSession as Handler, "GET", "/auth/session", { headers: bearer("admin") })).text,
    ];
    // and every other JSON GET of the route walk, as an admin (the live stream and the search's NDJSON stream apart)
    const gets = endpoints().filter((e) => e.method === "GET" && !/\/(events|search)$/.test(e.apiPath));
    expect(gets.length).toBeGreaterThan(30);
    for (const e of gets) answers.push((await call(await handlerOf(e), "GET", e.apiPath.replace(/^\/v1/, "").replace(/\[([^\]]+)\]/g, "x"), { headers: bearer("admin") })).text);
    const texts = answers.join("\n");
    expect(texts).not.toContain(PASSWORDS.ada);
    expect(texts).not.toContain("scrypt$");
    expect(texts).not.toContain("tok-admin");
    expect(texts).not.toContain("fleet_session=");
  });
});

describe("hostile data comes back as JSON data", () => {
  const XSS = {
    error: `<img src=x onerror="alert('worker')">`,
    task: "</script><script>alert('task')</script>",
    tag: `"><svg onload=alert('tag')>`,
    envelope: `<iframe srcdoc="<script>alert('stream')</script>"></iframe>`,
  };

  it("worker errors, task bodies, pool tags and stream envelopes are JSON strings, byte for byte", async () => {
    const now = Math.floor(Date.now() / 1000);
    await backend.workerRegister("scraper", "w1", { hostname: "h" });
    await backend.workerSetState("scraper", "w1", "ERROR", XSS.error, now);
    const submitted = await call(tasks.POST, "POST", "/automations/scraper/tasks", { headers: bearer("operator"), body: { payload: { html: XSS.task } } });
    expect(submitted.status).toBe(201);
    await backend.poolPut("proxies", "a", XSS.tag, { region: XSS.tag });
    await backend.streamPush("out", XSS.envelope, { score: now, maxLen: 10, ttlSeconds: 60 });

    const answers = {
      workers: await call(workers.GET, "GET", "/workers", { headers: bearer("viewer") }),
      queue: await call(queue.GET, "GET", "/queues/scraper", { headers: bearer("viewer") }),
      pool: await call(pool.GET, "GET", "/pools/proxies", { headers: bearer("viewer") }),
      stream: await call(stream.GET, "GET", "/streams/out", { headers: bearer("viewer") }),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect(res.status, name).toBe(200);
      expect(res.headers.get("content-type"), name).toBe("application/json; charset=utf-8");
    }
    expect(answers.workers.json.workers[0].last_error).toBe(XSS.error);
    expect(answers.queue.json.pending_items[0].body.json.payload.html).toBe(XSS.task);
    expect(answers.pool.json.items[0].tags.region).toBe(XSS.tag);
    expect(answers.pool.json.items[0].payload.text).toBe(XSS.tag);
    expect(answers.stream.json.entries[0].envelope.text).toBe(XSS.envelope);
  });
});
