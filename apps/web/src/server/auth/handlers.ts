// Sign-in, sign-out and "who am I" (GET/POST /api/v1/auth/*). Sign-in answers one
// message for every wrong combination, checks an unknown name against a dummy hash so
// the timing does not tell names apart either, counts every attempt before checking it
// (per user name and address, and per address: throttle.ts), checks at most a few
// passwords at once (hash-gate.ts), and starts a session that sign-out ends on the server
// (sessions.ts). Failed and refused sign-ins go to the audit trail (audit/refusals.ts).
import { pyJsonBytes } from "@fleet/backend";
import { SignInBodySchema, SignOutBodySchema, type SessionInfo, type SignInResult, type SignOutResult } from "@fleet/schema";

import { appendAudit, buildEntry } from "@/server/audit/audit";
import { requireAllowedHost, requireJsonMutation } from "@/server/api/authorize";
import { recordRefusal } from "@/server/audit/refusals";
import { parseJsonBody, readBodyBytes } from "@/server/api/body";
import { ApiError, errorResponse, isBackendUnavailable, jsonResponse, toErrorResponse } from "@/server/api/errors";
import { getBackend } from "@/server/backend";
import { logText } from "@/server/log-text";

import { authConfig } from "./config";
import { csrfProblem } from "./csrf";
import { BUSY, hashGate } from "./hash-gate";
import { authMode, identify } from "./identify";
import { dummyHash, verifyPassword } from "./password";
import { peerAddress } from "./peer";
import type { Principal } from "./roles";
import { clearSessionCookieHeader, cookieTransport, isHttps, sessionCookieHeader } from "./session";
import { endSession, identifyLive, startSession, type LiveOptions } from "./sessions";
import { isLoopbackHost } from "./startup";
import { SignInThrottle } from "./throttle";

export const WRONG_CREDENTIALS = "The user name or password is wrong.";
export const SIGN_IN_UNRECORDED = "Nobody was signed in: the sign-in could not be written to the audit trail (fleet:console:audit). The cause is in the server log.";

const SIGN_IN_BODY_LIMIT = 8 * 1024;

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * What the pages start with (root layout) and GET /api/v1/auth/session answer. A session
 * cookie counts only while its session is live (sessions.ts); the layout passes
 * `onUnavailable: "signature"` so a page still renders while Redis is away.
 */
export async function sessionInfo(headers: Headers, opts: LiveOptions = {}): Promise<SessionInfo> {
  const config = authConfig();
  const mode = authMode(config);
  const id = await identifyLive(headers, now(), config, opts);
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
    return jsonResponse(200, await sessionInfo(request.headers));
  } catch (err) {
    return toErrorResponse(err, "GET /auth/session");
  }
}

function tooMany(message: string, waitMs: number): Response {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  const res = errorResponse("too_many_requests", message.replace("{s}", `${seconds} second${seconds === 1 ? "" : "s"}`));
  res.headers.set("Retry-After", String(seconds));
  return res;
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
    if (problem !== null) {
      const message = `Sign-in was refused because ${problem}; use the console's sign-in page.`;
      await recordRefusal(request, { principal: null, action: "auth.signin", target: "", status: 403, reason: message });
      throw new ApiError("forbidden", message);
    }
    requireJsonMutation(request, true);
    const plain = plainHttpProblem(request, config.insecureHttpCookies);
    if (plain !== null) throw new ApiError("forbidden", plain);
    const parsed = SignInBodySchema.safeParse(parseJsonBody(await readBodyBytes(request, SIGN_IN_BODY_LIMIT)));
    if (!parsed.success) throw new ApiError("bad_request", 'Send {"username": "…", "password": "…"}.');
    const { username, password } = parsed.data;
    const address = peerAddress(request.headers);
    const target = `user:${username.slice(0, 64)}`;
    const backend = await getBackend();
    // Counted before anything is checked: parallel guesses see each other (throttle.ts).
    const reservation = await new SignInThrottle(backend).reserve(username, address);
    if (!reservation.allowed) {
      await recordRefusal(request, { principal: null, action: "auth.signin", target, status: 429, reason: "too many failed sign-ins: throttled" });
      return tooMany("Too many failed sign-ins. Try again in {s}.", reservation.waitMs);
    }
    const user = config.users.get(username);
    // the same work for an unknown name as for a wrong password, a few at a time
    const checked = await hashGate().run(async () => (await verifyPassword(password, user ? user.hash : await dummyHash())) && user !== undefined);
    if (checked === BUSY) {
      await reservation.settle("refund"); // never checked: not a failure
      return tooMany("The console is busy checking other sign-ins. Try again in {s}.", 1000);
    }
    if (!checked || !user) {
      await reservation.settle("failure");
      console.warn(`[auth] failed sign-in for '${logText(username, 64)}' from ${address ?? "an unknown address"}`);
      await recordRefusal(request, { principal: null, action: "auth.signin", target, status: 401, reason: "wrong user name or password" });
      return errorResponse("unauthenticated", WRONG_CREDENTIALS);
    }
    await reservation.settle("success");
    const principal: Principal = { name: user.name, role: user.role, via: "session" };
    const entry = buildEntry(principal, request, "/auth", {}, 200, undefined, { action: "auth.signin", target: `user:${user.name}` });
    let session: { value: string; expiresAt: number };
    try {
      // the audit entry and the session in one atomic step: no entry, no session
      session = await startSession(backend, config, user, now(), { entry: pyJsonBytes(entry), maxEntries: config.auditMaxEntries });
    } catch (err) {
      if (isBackendUnavailable(err)) throw err;
      console.error(`[audit] refused the sign-in of ${logText(user.name)}: its entry could not be written:`, err instanceof Error ? err.message : err);
      throw new ApiError("backend_unavailable", SIGN_IN_UNRECORDED);
    }
    const answer: SignInResult = { user: { name: user.name, role: user.role, via: "session" }, expires_at: session.expiresAt };
    const res = jsonResponse(200, answer);
    res.headers.append("Set-Cookie", sessionCookieHeader(cookieTransport(request.headers, request.url, config.insecureHttpCookies), session.value, config.sessionTtlSeconds));
    return res;
  } catch (err) {
    return toErrorResponse(err, "POST /auth/signin");
  }
}

/**
 * Ends the session on the server (sessions.ts) and clears the cookie; `{"everywhere": true}`
 * ends every session of the user. Ending a session is never refused for want of an audit
 * entry: the entry is written after it, best effort. Redis unreachable: 503, the cookie
 * is cleared all the same, and the message says the session could not be ended.
 */
export async function handleSignOut(request: Request): Promise<Response> {
  try {
    requireAllowedHost(request);
    const problem = csrfProblem(request);
    if (problem !== null) {
      const message = `Sign-out was refused because ${problem}.`;
      await recordRefusal(request, { principal: null, action: "auth.signout", target: "", status: 403, reason: message });
      throw new ApiError("forbidden", message);
    }
    requireJsonMutation(request, false);
    const raw = await readBodyBytes(request, SIGN_IN_BODY_LIMIT);
    const body = SignOutBodySchema.safeParse(raw.length === 0 ? {} : parseJsonBody(raw));
    if (!body.success) throw new ApiError("bad_request", 'Send no body, or {"everywhere": true} to end every session of this user.');
    const id = identify(request.headers, now());
    let ended = 0;
    if (id.kind === "principal" && id.principal.via === "session" && id.sessionId !== undefined) {
      const backend = await getBackend();
      try {
        if (body.data.everywhere) ended = await backend.sessionDeleteForUser(id.principal.name);
        else ended = (await endSession(backend, id.sessionId)) ? 1 : 0;
      } catch (err) {
        console.error(`[auth] could not end the session of ${logText(id.principal.name)}:`, err instanceof Error ? err.message : err);
        const res = errorResponse(
          "backend_unavailable",
          "Signed out in this browser only: Redis is unreachable, so the session could not be ended on the server. Sign in and out again once it is back.",
        );
        res.headers.append("Set-Cookie", clearSessionCookieHeader(cookieTransport(request.headers, request.url, authConfig().insecureHttpCookies)));
        return res;
      }
      const entry = buildEntry(id.principal, request, "/auth", {}, 200, undefined, {
        action: "auth.signout",
        target: `user:${id.principal.name}`,
        ...(body.data.everywhere ? { details: { everywhere: true, sessions_ended: ended } } : {}),
      });
      await appendAudit(backend, entry);
    }
    const answer: SignOutResult = { signed_out: true };
    const res = jsonResponse(200, answer);
    res.headers.append("Set-Cookie", clearSessionCookieHeader(cookieTransport(request.headers, request.url, authConfig().insecureHttpCookies)));
    return res;
  } catch (err) {
    return toErrorResponse(err, "POST /auth/signout");
  }
}
