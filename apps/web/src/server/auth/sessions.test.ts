// Sessions that end on the server (issue 12, point 2), against a real Redis
// (REDIS_TEST_URL, its own database): a cookie replayed after sign-out is worth nothing, a
// removed user's sessions end, the live stream closes when its session ends or expires,
// a session costs one GET, and Redis unreachable fails closed.
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { startMonitor } from "@/server/test/monitor";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import * as counter from "@/app/api/v1/counters/[name]/route";
import * as events from "@/app/api/v1/events/route";
import * as queues from "@/app/api/v1/queues/route";
import { redisTestUrl } from "@/server/api/test/harness";
import { resetServerEnv } from "@/server/env";
import { getEventHub, resetEventHub } from "@/server/events";
import { createEventsHandler } from "@/server/events/sse-response";
import { SseReader, waitFor } from "@/server/events/test/helpers";

import { handleSession, handleSignIn, handleSignOut, sessionInfo } from "./handlers";
import { SESSION_ENDED, SESSION_UNCHECKABLE } from "./sessions";
import { ORIGIN, PASSWORDS, PROXY_ADDRESS, SAME_ORIGIN, bearer, call, clearAuth, configureAuth, cookieOf, fromPeer, userEntry, type Handler } from "./test/auth-env";

const DB = testRedisDb("apps/web/src/server/auth/sessions.test.ts");
let admin: Redis;

beforeAll(async () => {
  admin = new Redis(redisTestUrl(DB), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  process.env.FLEET_EVENTS_INTERVAL_MS = "50";
  await configureAuth(redisTestUrl(DB));
});

afterAll(async () => {
  await resetEventHub();
  delete process.env.FLEET_EVENTS_INTERVAL_MS;
  await admin.quit();
  await clearAuth();
});

beforeEach(async () => {
  await admin.flushdb();
});

const signIn = async (username: keyof typeof PASSWORDS) => {
  const res = await call(handleSignIn, "POST", "/auth/signin", { headers: SAME_ORIGIN, body: { username, password: PASSWORDS[username] } });
  expect(res.status, res.text).toBe(200);
  return cookieOf(res);
};
const signOut = (cookie: string, body?: unknown) => call(handleSignOut, "POST", "/auth/signout", { headers: { ...SAME_ORIGIN, cookie }, body });
const read = (cookie: string) => call(queues.GET, "GET", "/queues", { headers: { cookie } });
const write = (cookie: string, value: number) => call(counter.PUT, "PUT", "/counters/c", { headers: { ...SAME_ORIGIN, cookie }, body: { value } });

async function sessionKeys(): Promise<string[]> {
  return (await admin.keys("fleet:console:session:*")).sort();
}

describe("sign-out", () => {
  it("ends the session on the server: the same cookie, replayed, can neither read nor write", async () => {
    const cookie = await signIn("ada");
    expect((await read(cookie)).status).toBe(200);
    expect((await write(cookie, 1)).status).toBe(200);

    const out = await signOut(cookie);
    expect(out.status).toBe(200);
    expect(out.json).toEqual({ signed_out: true });

    const replayedRead = await read(cookie);
    expect(replayedRead.status).toBe(401);
    expect(replayedRead.json.error.message).toBe(SESSION_ENDED);
    const replayedWrite = await write(cookie, 2);
    expect(replayedWrite.status).toBe(401);
    expect(await admin.get("fleet:counter:c")).toBe("1");
    const info = await call(handleSession as Handler, "GET", "/auth/session", { headers: { cookie } });
    expect(info.json.user).toBeNull();
    // signing out again is harmless
    expect((await signOut(cookie)).status).toBe(200);
  });

  it("keeps the session in Redis, where every replica sees it: one record with the session's lifetime, deleted by sign-out", async () => {
    const cookie = await signIn("vera");
    const keys = await sessionKeys();
    expect(keys).toHaveLength(1);
    const ttl = await admin.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(43_190_000);
    expect(ttl).toBeLessThanOrEqual(43_200_000);
    // the key names a digest of the session id, not the id the cookie carries
    const payload = JSON.parse(Buffer.from(cookie.split("=")[1]!.split(".")[1]!, "base64url").toString()) as { sid: string };
    expect(keys[0]).not.toContain(payload.sid);
    expect(JSON.parse((await admin.get(keys[0]!))!)).toMatchObject({ user: "vera" });
    // another replica's sign-out is a DEL of that key: this one refuses the cookie at once
    await admin.del(keys[0]!);
    expect((await read(cookie)).status).toBe(401);
  });

  it('ends only its own session; {"everywhere": true} ends every session of the user and no one else\'s', async () => {
    const laptop = await signIn("otto");
    const phone = await signIn("otto");
    const tablet = await signIn("otto");
    const other = await signIn("vera");
    expect((await signOut(laptop)).status).toBe(200);
    expect((await read(laptop)).status).toBe(401);
    // only its own: otto's other sessions and vera's still work
    expect((await read(phone)).status).toBe(200);
    expect((await read(tablet)).status).toBe(200);
    expect((await read(other)).status).toBe(200);
    const everywhere = await signOut(phone, { everywhere: true });
    expect(everywhere.status).toBe(200);
    expect((await read(phone)).status).toBe(401);
    expect((await read(tablet)).status).toBe(401);
    expect((await read(other)).status).toBe(200);
    const [newest] = await admin.lrange("fleet:console:audit", 0, 0);
    expect(JSON.parse(newest!)).toMatchObject({ action: "auth.signout", actor: "otto", details: { everywhere: true, sessions_ended: 2 } });
    expect((await signOut(other, { everywhere: "yes" })).status).toBe(400);
  });
});

describe("a change of users", () => {
  let before: string;
  beforeEach(() => {
    before = process.env.FLEET_AUTH_USERS!;
  });
  afterEach(() => {
    process.env.FLEET_AUTH_USERS = before;
    resetServerEnv();
  });

  it("a removed user's sessions end at once, and stay ended when the same entry comes back", async () => {
    const cookie = await signIn("ada");
    const second = await signIn("ada");
    process.env.FLEET_AUTH_USERS = before
      .split(",")
      .filter((e) => !e.startsWith("ada:"))
      .join(",");
    resetServerEnv();
    expect((await read(cookie)).status).toBe(401);
    // a replica still configured with ada (the same entry restored) accepts neither session
    process.env.FLEET_AUTH_USERS = before;
    resetServerEnv();
    expect((await read(cookie)).status).toBe(401);
    expect((await read(second)).status).toBe(401);
    expect(await sessionKeys()).toEqual([]);
  });

  it("a new password ends the session at once, and a replica with the old password no longer accepts it", async () => {
    const cookie = await signIn("otto");
    process.env.FLEET_AUTH_USERS = before
      .split(",")
      .filter((e) => !e.startsWith("otto:"))
      .concat(await userEntry("otto", "operator", "a-new-password"))
      .join(",");
    resetServerEnv();
    expect((await read(cookie)).status).toBe(401);
    process.env.FLEET_AUTH_USERS = before;
    resetServerEnv();
    expect((await read(cookie)).status).toBe(401);
  });
});

describe("the live stream", () => {
  const open: Array<{ abort: AbortController; reader: SseReader }> = [];
  afterEach(() => {
    for (const c of open.splice(0)) c.abort.abort();
  });

  async function connect(handler: (r: Request) => Promise<Response>, headers: Record<string, string>) {
    const abort = new AbortController();
    const res = await handler(new Request(`${ORIGIN}/api/v1/events`, { headers, signal: abort.signal }));
    expect(res.status).toBe(200);
    const reader = new SseReader(res.body!);
    open.push({ abort, reader });
    await waitFor(() => reader.frames.some((f) => f.comment === "connected"), { what: "the first comment" });
    return reader;
  }

  it("closes when its session is signed out, at the next check", async () => {
    const handler = createEventsHandler({ hub: getEventHub, sessionCheckMs: 100 });
    const cookie = await signIn("vera");
    const ended = await connect(handler, { cookie });
    const other = await signIn("vera");
    const stays = await connect(handler, { cookie: other });
    const token = await connect(handler, bearer("viewer"));
    const witnessCookie = await signIn("vera");
    const witness = await connect(handler, { cookie: witnessCookie });
    await signOut(cookie);
    await waitFor(() => ended.isDone, { timeoutMs: 30_000, what: "the signed-out stream to close" });
    expect(ended.frames.some((f) => f.comment === "credentials ended")).toBe(true);
    // a third session signed out only now, and its stream closed: the checks have gone round
    // again since, so the other session's stream and the token's were checked and stay open
    await signOut(witnessCookie);
    await waitFor(() => witness.isDone, { timeoutMs: 30_000, what: "the witness stream to close" });
    expect(stays.isDone).toBe(false);
    expect(token.isDone).toBe(false);
  });

  it("closes when its session's user is removed", async () => {
    const handler = createEventsHandler({ hub: getEventHub, sessionCheckMs: 100 });
    const before = process.env.FLEET_AUTH_USERS!;
    const reader = await connect(handler, { cookie: await signIn("ada") });
    try {
      process.env.FLEET_AUTH_USERS = before
        .split(",")
        .filter((e) => !e.startsWith("ada:"))
        .join(",");
      resetServerEnv();
      await waitFor(() => reader.isDone, { timeoutMs: 30_000, what: "the removed user's stream to close" });
    } finally {
      process.env.FLEET_AUTH_USERS = before;
      resetServerEnv();
    }
  });

  it("the route closes a stream when its session expires, without waiting for a check", async () => {
    const ttlBefore = process.env.FLEET_AUTH_SESSION_TTL_SECONDS;
    process.env.FLEET_AUTH_SESSION_TTL_SECONDS = "2";
    resetServerEnv();
    try {
      const cookie = await signIn("vera");
      const opened = Date.now();
      const reader = await connect(events.GET as (r: Request) => Promise<Response>, { cookie });
      await waitFor(() => reader.isDone, { timeoutMs: 25_000, what: "the expired session's stream to close" });
      // the route checks every 30 s: a close before that came with the expiry (2 s), not with a check
      expect(Date.now() - opened).toBeLessThan(25_000);
      expect((await read(cookie)).status).toBe(401);
    } finally {
      if (ttlBefore === undefined) delete process.env.FLEET_AUTH_SESSION_TTL_SECONDS;
      else process.env.FLEET_AUTH_SESSION_TTL_SECONDS = ttlBefore;
      resetServerEnv();
    }
  });
});

describe("the cost of a session", () => {
  it("is one GET of its record per request; tokens and proxy headers cost nothing", async () => {
    const cookie = await signIn("vera");
    const seen: string[][] = [];
    const monitor = await startMonitor(redisTestUrl(DB), (c) => {
      if (c.db === DB) seen.push(c.args);
    });
    try {
      const sessionLookups = () => seen.filter((a) => a.some((x) => x.startsWith("fleet:console:")));
      await waitFor(async () => {
        await admin.ping("sync");
        return seen.some((a) => a[0]?.toLowerCase() === "ping" && a[1] === "sync");
      });
      seen.length = 0;
      expect((await read(cookie)).status).toBe(200);
      expect((await call(queues.GET, "GET", "/queues", { headers: bearer("viewer") })).status).toBe(200);
      const asProxy = { ...fromPeer(PROXY_ADDRESS), "x-forwarded-user": "carol" };
      expect((await call(queues.GET, "GET", "/queues", { headers: asProxy })).status).toBe(200);
      await admin.ping("done");
      await waitFor(() => seen.some((a) => a[0]?.toLowerCase() === "ping" && a[1] === "done"), { what: "the monitor to catch up" });
      const lookups = sessionLookups();
      expect(lookups).toHaveLength(1);
      expect(lookups[0]![0]!.toLowerCase()).toBe("get");
      expect(lookups[0]![1]).toMatch(/^fleet:console:session:[A-Za-z0-9_-]{43}$/);
      expect(seen.some((a) => a[0]?.toLowerCase() === "scan" && a.some((x) => x.includes("fleet:console")))).toBe(false);
    } finally {
      monitor.close();
    }
  });
});

describe("Redis unreachable while a session is checked", () => {
  it("fails closed with 503 for writes and reads; the pages' session info trusts the signature", async () => {
    const cookie = await signIn("ada");
    const url = process.env.FLEET_BACKEND_URL!;
    process.env.FLEET_BACKEND_URL = "redis://127.0.0.1:1/2";
    resetServerEnv();
    try {
      const w = await write(cookie, 5);
      expect(w.status).toBe(503);
      expect(w.json.error).toEqual({ code: "backend_unavailable", message: SESSION_UNCHECKABLE });
      const r = await read(cookie);
      expect(r.status).toBe(503);
      expect(r.json.error.message).toBe(SESSION_UNCHECKABLE);
      expect((await call(handleSession as Handler, "GET", "/auth/session", { headers: { cookie } })).status).toBe(503);
      const layout = await sessionInfo(new Headers({ cookie }), { onUnavailable: "signature" });
      expect(layout.user).toMatchObject({ name: "ada", role: "admin" });
    } finally {
      process.env.FLEET_BACKEND_URL = url;
      resetServerEnv();
    }
    expect(await admin.exists("fleet:counter:c")).toBe(0);
  });
});
