// Sign-in, sign-out and "who am I" (GET/POST /api/v1/auth/*). Sign-in answers one
// message for every wrong combination, checks an unknown name against a dummy hash so
// the timing does not tell names apart either, and slows repeated failures down per
// user name and client address (throttle.ts).
import { z } from "zod";

import { appendAudit, buildEntry } from "@/server/audit/audit";
import { requireAllowedHost, requireJsonMutation } from "@/server/api/authorize";
import { parseJsonBody, readBodyBytes } from "@/server/api/body";
import { ApiError, errorResponse, jsonResponse, toErrorResponse } from "@/server/api/errors";
import { getBackend } from "@/server/backend";

import { authConfig } from "./config";
import { csrfProblem } from "./csrf";
import { authMode, identify } from "./identify";
import { dummyHash, verifyPassword } from "./password";
import { peerAddress } from "./peer";
import type { Principal } from "./roles";
import { clearSessionCookieHeader, cookieTransport, createSessionValue, isHttps, sessionCookieHeader } from "./session";
import { isLoopbackHost } from "./startup";
import { signInThrottle } from "./throttle";

export const WRONG_CREDENTIALS = "The user name or password is wrong.";

const SignInBody = z.object({
  username: z.string().max(256),
  password: z.string().max(1024),
});

const SIGN_IN_BODY_LIMIT = 8 * 1024;

function now(): number {
  return Math.floor(Date.now() / 1000);
}

export interface SessionInfo {
  /** `auth`: sign-in required; `open`: the loopback demo without authentication; `insecure`: FLEET_INSECURE_NO_AUTH=1. */
  mode: "auth" | "open" | "insecure";
  user: { name: string; role: Principal["role"]; via: NonNullable<Principal["via"]> } | null;
  expires_at: number | null;
  /** Whether the sign-in form can work (users are configured). */
  password_sign_in: boolean;
}

/** What the pages start with (root layout) and GET /api/v1/auth/session answer. */
export function sessionInfo(headers: Headers): SessionInfo {
  const config = authConfig();
  const mode = authMode(config);
  const id = identify(headers, now(), config);
  const p = id.kind === "principal" ? id.principal : null;
  return {
    mode,
    user: p ? { name: p.name, role: p.role, via: p.via ?? "none" } : null,
    expires_at: id.kind === "principal" ? (id.expiresAt ?? null) : null,
    password_sign_in: config.users.size > 0,
  };
}

export async function handleSession(request: Request): Promise<Response> {
  try {
    requireAllowedHost(request);
    return jsonResponse(200, sessionInfo(request.headers));
  } catch (err) {
    return toErrorResponse(err, "GET /auth/session");
  }
}

async function audit(principal: Principal, request: Request, action: string): Promise<void> {
  try {
    const backend = await getBackend();
    await appendAudit(backend, buildEntry(principal, request, "/auth", {}, 200, undefined, { action, target: `user:${principal.name}` }));
  } catch (err) {
    console.error(`[audit] could not record ${action} of ${principal.name}`, err);
  }
}

/**
 * A sign-in whose cookie would be Secure (the console listens beyond loopback) arriving over
 * plain http from another machine: the browser would drop the cookie and the user would
 * land on the sign-in page again, and the password has just crossed the network in clear.
 * Say so instead. On a loopback name browsers keep Secure cookies over http.
 */
function plainHttpProblem(request: Request, insecureHttpCookies: boolean): string | null {
  if (!cookieTransport(request.headers, request.url, insecureHttpCookies).secure || isHttps(request.headers, request.url)) return null;
  const host = (request.headers.get("host") ?? "").replace(/:\d+$/, "");
  if (isLoopbackHost(host)) return null;
  return (
    "Sign-in over plain http is refused: this console listens beyond loopback, so its session cookie is Secure and would only travel over https. " +
    "Serve it over https (a TLS proxy that sends X-Forwarded-Proto: https), or set FLEET_INSECURE_HTTP_COOKIES=1 on a network you trust."
  );
}

export async function handleSignIn(request: Request): Promise<Response> {
  try {
    requireAllowedHost(request);
    const config = authConfig();
    if (config.users.size === 0 || !config.secret) {
      throw new ApiError("bad_request", "Sign-in with a password is not configured on this console (FLEET_AUTH_USERS).");
    }
    const problem = csrfProblem(request);
    if (problem !== null) throw new ApiError("forbidden", `Sign-in was refused because ${problem}; use the console's sign-in page.`);
    requireJsonMutation(request, true);
    const plain = plainHttpProblem(request, config.insecureHttpCookies);
    if (plain !== null) throw new ApiError("forbidden", plain);
    const parsed = SignInBody.safeParse(parseJsonBody(await readBodyBytes(request, SIGN_IN_BODY_LIMIT)));
    if (!parsed.success) throw new ApiError("bad_request", "Send {\"username\": \"…\", \"password\": \"…\"}.");
    const { username, password } = parsed.data;
    const address = peerAddress(request.headers);
    const throttle = signInThrottle();
    const wait = throttle.waitMs(username, address);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      const res = jsonResponse(429, {
        error: { code: "too_many_requests", message: `Too many failed sign-ins. Try again in ${seconds} second${seconds === 1 ? "" : "s"}.` },
      });
      res.headers.set("Retry-After", String(seconds));
      return res;
    }
    const user = config.users.get(username);
    // the same work for an unknown name as for a wrong password
    const ok = (await verifyPassword(password, user ? user.hash : await dummyHash())) && user !== undefined;
    if (!ok || !user) {
      throttle.fail(username, address);
      console.warn(`[auth] failed sign-in for '${username.slice(0, 64)}' from ${address ?? "an unknown address"}`);
      return errorResponse("unauthenticated", WRONG_CREDENTIALS);
    }
    throttle.succeed(username, address);
    const ttl = config.sessionTtlSeconds;
    const transport = cookieTransport(request.headers, request.url, config.insecureHttpCookies);
    const value = createSessionValue(config.secret, user, now(), ttl);
    const principal: Principal = { name: user.name, role: user.role, via: "session" };
    await audit(principal, request, "auth.signin");
    const res = jsonResponse(200, { user: { name: user.name, role: user.role, via: "session" }, expires_at: now() + ttl });
    res.headers.append("Set-Cookie", sessionCookieHeader(transport, value, ttl));
    return res;
  } catch (err) {
    return toErrorResponse(err, "POST /auth/signin");
  }
}

export async function handleSignOut(request: Request): Promise<Response> {
  try {
    requireAllowedHost(request);
    const problem = csrfProblem(request);
    if (problem !== null) throw new ApiError("forbidden", `Sign-out was refused because ${problem}.`);
    requireJsonMutation(request, false);
    const id = identify(request.headers, now());
    if (id.kind === "principal" && id.principal.via === "session") await audit(id.principal, request, "auth.signout");
    const res = jsonResponse(200, { signed_out: true });
    res.headers.append("Set-Cookie", clearSessionCookieHeader(cookieTransport(request.headers, request.url, authConfig().insecureHttpCookies)));
    return res;
  } catch (err) {
    return toErrorResponse(err, "POST /auth/signout");
  }
}
