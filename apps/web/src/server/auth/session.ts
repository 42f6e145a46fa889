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
import { bindHostFromArgv, isLoopbackHost } from "./startup";

/** The session cookie on plain-http loopback; `__Host-` prefixed wherever it is Secure (cookieTransport). */
export const SESSION_COOKIE = "fleet_session";
export const SECURE_SESSION_COOKIE = "__Host-fleet_session";

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
export type SessionCookie = { status: "valid"; sid: string; user: ConfiguredUser; exp: number } | { status: "stale"; sid: string; userName: string; userRemoved: boolean };

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

/** Reached over https: a TLS proxy's X-Forwarded-Proto (first hop), else the URL's scheme. */
export function isHttps(headers: Headers, url?: string): boolean {
  const proto = headers.get("x-forwarded-proto");
  if (proto) return proto.split(",")[0]!.trim().toLowerCase() === "https";
  if (url === undefined) return false;
  try {
    return new URL(url).protocol === "https:";
  } catch {
    return false;
  }
}

export interface CookieTransport {
  /** The cookie is `Secure` (and so may carry the `__Host-` prefix). */
  secure: boolean;
  name: typeof SESSION_COOKIE | typeof SECURE_SESSION_COOKIE;
}

/**
 * How the session cookie travels. `Secure` whenever the console is reached over https, or
 * listens beyond loopback (then the network between browser and console is not this
 * machine's own) unless FLEET_INSECURE_HTTP_COOKIES=1 says it is a plain-http lab. A Secure
 * cookie is named `__Host-fleet_session`: the browser then takes it only with Secure,
 * Path=/ and no Domain, so a sibling subdomain or a plain-http page cannot plant or shadow
 * it. On plain-http loopback the prefix cannot be used (browsers refuse `__Host-` without
 * Secure), and the cookie is `fleet_session`. Only the cookie of the current transport is
 * read: a plain one is never accepted where the prefixed one is expected.
 */
export function cookieTransport(headers: Headers, url: string | undefined, insecureHttpCookies: boolean, boundToLoopback: boolean = listensOnLoopback()): CookieTransport {
  const secure = isHttps(headers, url) || (!boundToLoopback && !insecureHttpCookies);
  return { secure, name: secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE };
}

/** `next start -H <loopback>` (what `pnpm start` does by default); without -H Next listens on every interface. */
export function listensOnLoopback(argv: readonly string[] = process.argv): boolean {
  return isLoopbackHost(bindHostFromArgv(argv));
}

export function sessionCookieHeader(transport: CookieTransport, value: string, maxAgeSeconds: number): string {
  // SameSite=Lax: a link from chat or mail to a console page still arrives signed in;
  // such top-level GETs never change anything, and every mutation is checked in csrf.ts.
  const attrs = [`${transport.name}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeSeconds}`];
  if (transport.secure) attrs.push("Secure");
  return attrs.join("; ");
}

export function clearSessionCookieHeader(transport: CookieTransport): string {
  return sessionCookieHeader(transport, "", 0);
}
