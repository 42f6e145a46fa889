// Session cookies, signed with HMAC-SHA256 under FLEET_AUTH_SECRET, and a record of each
// session in Redis (sessions.ts) that sign-out deletes:
//   v2.<payload base64url>.<signature base64url>,  payload = {"sid", "u", "pv", "iat", "exp"}
// The role is not in the cookie: it is looked up in the configuration on every request,
// so a changed role applies at once; `pv` binds the session to the password hash, so a
// new password ends the sessions made with the old one. Changing FLEET_AUTH_SECRET ends
// every session. `sid` names the session's record: without it (ended, expired) the
// cookie is worth nothing, however well signed.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

import type { AuthConfig, ConfiguredUser } from "./config";

export const SESSION_COOKIE = "fleet_session";

const VERSION = "v2";

interface SessionPayload {
  sid: string;
  u: string;
  pv: string;
  iat: number;
  exp: number;
}

function sign(secret: Buffer, data: string): Buffer {
  return createHmac("sha256", secret).update(`fleet-session:${data}`).digest();
}

/** A fresh session id: 192 random bits. */
export function newSessionId(): string {
  return randomBytes(24).toString("base64url");
}

export function createSessionValue(secret: Buffer, user: ConfiguredUser, nowSeconds: number, ttlSeconds: number, sid: string = newSessionId()): string {
  const payload: SessionPayload = { sid, u: user.name, pv: user.passwordVersion, iat: nowSeconds, exp: nowSeconds + ttlSeconds };
  const data = `${VERSION}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  return `${data}.${sign(secret, data).toString("base64url")}`;
}

/**
 * What a cookie says, once its signature is checked: `valid` (a configured user, the same
 * password, not expired), `stale` (well signed, but its user is gone or has a new password:
 * its record should go), or null (forged, foreign, malformed or expired).
 */
export type SessionCookie =
  | { status: "valid"; sid: string; user: ConfiguredUser; exp: number }
  | { status: "stale"; sid: string; userName: string; userRemoved: boolean };

export function readSessionValue(config: AuthConfig, value: string, nowSeconds: number): SessionCookie | null {
  if (!config.secret || value.length > 4096) return null;
  const parts = value.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION) return null;
  const data = `${parts[0]}.${parts[1]}`;
  const given = Buffer.from(parts[2]!, "base64url");
  const expected = sign(config.secret, data);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let payload: SessionPayload;
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as SessionPayload;
  } catch {
    return null;
  }
  if (typeof payload.exp !== "number" || payload.exp <= nowSeconds) return null;
  if (typeof payload.sid !== "string" || payload.sid === "" || typeof payload.u !== "string") return null;
  const user = config.users.get(payload.u);
  if (!user || user.passwordVersion !== payload.pv) return { status: "stale", sid: payload.sid, userName: payload.u, userRemoved: !user };
  return { status: "valid", sid: payload.sid, user, exp: payload.exp };
}

/** The user of a valid, unexpired session whose password has not changed; else null. */
export function verifySessionValue(config: AuthConfig, value: string, nowSeconds: number): { user: ConfiguredUser; exp: number; sid: string } | null {
  const s = readSessionValue(config, value, nowSeconds);
  return s?.status === "valid" ? { user: s.user, exp: s.exp, sid: s.sid } : null;
}

/** The value of one cookie from a Cookie header. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function isHttps(request: Request): boolean {
  const proto = request.headers.get("x-forwarded-proto");
  if (proto) return proto.split(",")[0]!.trim().toLowerCase() === "https";
  try {
    return new URL(request.url).protocol === "https:";
  } catch {
    return false;
  }
}

export function sessionCookieHeader(request: Request, value: string, maxAgeSeconds: number): string {
  // SameSite=Lax: a link from chat or mail to a console page still arrives signed in;
  // such top-level GETs never change anything, and every mutation is checked in csrf.ts.
  const attrs = [`${SESSION_COOKIE}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeSeconds}`];
  if (isHttps(request)) attrs.push("Secure");
  return attrs.join("; ");
}

export function clearSessionCookieHeader(request: Request): string {
  return sessionCookieHeader(request, "", 0);
}
