// The session cookie's transport (issue 12, point 8): `Secure` and the `__Host-` prefix over
// https and wherever the console listens beyond loopback, a plain `fleet_session` only on
// plain-http loopback (or with FLEET_INSECURE_HTTP_COOKIES=1), and a plain cookie is never
// taken where the prefixed one is expected. In-memory backend.
import { afterAll, describe, expect, it } from "vitest";

import * as queues from "@/app/api/v1/queues/route";

import { handleSignIn, handleSignOut } from "./handlers";
import { cookieTransport, listensOnLoopback, SECURE_SESSION_COOKIE, SESSION_COOKIE } from "./session";
import { PASSWORDS, SAME_ORIGIN, call, clearAuth, configureAuth } from "./test/auth-env";

afterAll(async () => {
  await clearAuth();
});

let n = 0;
async function withEnv(extra: Record<string, string>): Promise<void> {
  await clearAuth();
  n += 1;
  // a fresh memory backend per case: no sign-in budget or session carries over
  await configureAuth(`memory://cookies-${process.pid}-${n}`, extra);
}

const https = { ...SAME_ORIGIN, origin: "https://console.test", "x-forwarded-proto": "https" };
const signIn = (headers: Record<string, string>) => call(handleSignIn, "POST", "/auth/signin", { headers, body: { username: "ada", password: PASSWORDS.ada } });

describe("the session cookie's transport", () => {
  it("is Secure and __Host- prefixed over https, or listening beyond loopback; plain only on plain-http loopback", () => {
    const plain = new Headers();
    const tls = new Headers({ "x-forwarded-proto": "https" });
    expect(cookieTransport(plain, "http://127.0.0.1:3000/", false, true)).toEqual({ secure: false, name: SESSION_COOKIE });
    expect(cookieTransport(tls, "http://127.0.0.1:3000/", false, true)).toEqual({ secure: true, name: SECURE_SESSION_COOKIE });
    expect(cookieTransport(plain, "https://console.example/", false, true)).toEqual({ secure: true, name: SECURE_SESSION_COOKIE });
    expect(cookieTransport(plain, "http://10.0.0.5:3000/", false, false)).toEqual({ secure: true, name: SECURE_SESSION_COOKIE });
    // the documented switch for plain-http labs
    expect(cookieTransport(plain, "http://10.0.0.5:3000/", true, false)).toEqual({ secure: false, name: SESSION_COOKIE });
    expect(cookieTransport(tls, "http://10.0.0.5:3000/", true, false).secure).toBe(true);
  });

  it("knows whether next start listens on loopback from its -H", () => {
    expect(listensOnLoopback(["node", "next", "start", "-p", "3000", "-H", "127.0.0.1"])).toBe(true);
    expect(listensOnLoopback(["node", "next", "start", "--hostname=::1"])).toBe(true);
    expect(listensOnLoopback(["node", "next", "start", "-H", "0.0.0.0"])).toBe(false);
    // without -H Next listens on every interface
    expect(listensOnLoopback(["node", "next", "start"])).toBe(false);
  });

  it("over https: set as __Host-fleet_session with Secure and Path=/, no Domain; cleared the same way", async () => {
    await withEnv({ FLEET_INSECURE_HTTP_COOKIES: "0" });
    const res = await signIn(https);
    expect(res.status, res.text).toBe(200);
    const set = res.headers.get("set-cookie")!;
    expect(set).toMatch(/^__Host-fleet_session=v2\./);
    expect(set).toContain("; Path=/;");
    expect(set).toContain("; Secure");
    expect(set).not.toMatch(/Domain=/i);
    const cookie = set.split(";")[0]!;
    expect((await call(queues.GET, "GET", "/queues", { headers: { cookie, "x-forwarded-proto": "https" } })).status).toBe(200);
    const out = await call(handleSignOut, "POST", "/auth/signout", { headers: { ...https, cookie } });
    expect(out.headers.get("set-cookie")).toMatch(/^__Host-fleet_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0; Secure$/);
  });

  it("never takes a plain fleet_session where the __Host- one is expected (a planted cookie)", async () => {
    await withEnv({ FLEET_INSECURE_HTTP_COOKIES: "1" });
    // a valid session value, obtained on plain http, then offered as the unprefixed cookie over https
    const value = (await signIn(SAME_ORIGIN)).headers.get("set-cookie")!.split(";")[0]!.split("=").slice(1).join("=");
    expect((await call(queues.GET, "GET", "/queues", { headers: { cookie: `${SESSION_COOKIE}=${value}` } })).status).toBe(200);
    const planted = await call(queues.GET, "GET", "/queues", { headers: { cookie: `${SESSION_COOKIE}=${value}`, "x-forwarded-proto": "https" } });
    expect(planted.status).toBe(401);
    expect((await call(queues.GET, "GET", "/queues", { headers: { cookie: `${SECURE_SESSION_COOKIE}=${value}`, "x-forwarded-proto": "https" } })).status).toBe(200);
  });

  it("listening beyond loopback, refuses a sign-in over plain http from another machine and says what to do", async () => {
    // vitest runs without `next start -H <loopback>`: as if listening on every interface
    expect(listensOnLoopback()).toBe(false);
    await withEnv({ FLEET_INSECURE_HTTP_COOKIES: "0", FLEET_ALLOWED_HOSTS: "console.test,localhost" });
    const res = await signIn(SAME_ORIGIN);
    expect(res.status).toBe(403);
    expect(res.json.error.message).toContain("FLEET_INSECURE_HTTP_COOKIES=1");
    expect(res.headers.get("set-cookie")).toBeNull();
    // on a loopback name browsers keep Secure cookies over http
    const local = await signIn({ ...SAME_ORIGIN, host: "localhost:3000", origin: "http://localhost:3000" });
    expect(local.status, local.text).toBe(200);
    expect(local.headers.get("set-cookie")).toMatch(/^__Host-fleet_session=.*; Secure$/);
  });
});
