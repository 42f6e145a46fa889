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
import { clearSessionCookieHeader, createSessionValue, sessionCookieHeader } from "./session";
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
    const value = createSessionValue(config.secret, user, now(), ttl);
    const principal: Principal = { name: user.name, role: user.role, via: "session" };
    await audit(principal, request, "auth.signin");
    const res = jsonResponse(200, { user: { name: user.name, role: user.role, via: "session" }, expires_at: now() + ttl });
    res.headers.append("Set-Cookie", sessionCookieHeader(request, value, ttl));
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
    res.headers.append("Set-Cookie", clearSessionCookieHeader(request));
    return res;
  } catch (err) {
    return toErrorResponse(err, "POST /auth/signout");
  }
}
