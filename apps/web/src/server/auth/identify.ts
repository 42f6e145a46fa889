// Who is asking: a bearer token, the headers of a trusted SSO proxy, or a session cookie,
// checked in that order. Shared by the API's authorize(), the page proxy (redirects to
// /signin) and the root layout (the session the pages start with).
import { createHash, timingSafeEqual } from "node:crypto";

import { isRole } from "@fleet/schema";

import { authConfig, type AuthConfig } from "./config";
import { peerAddress } from "./peer";
import { cookieTransport, readCookie, verifySessionValue } from "./session";
import type { Principal } from "./roles";

/** How the console runs: `auth` asks everybody; `open` and `insecure` treat everybody as admin. */
export type AuthMode = "auth" | "open" | "insecure";

export type Identity =
  /** `sessionId`: the id of the session cookie's record (sessions.ts), for session principals. */
  | { kind: "principal"; principal: Principal; expiresAt?: number; sessionId?: string }
  | { kind: "anonymous" }
  /** Credentials were offered and are wrong: never fall back to another method. */
  | { kind: "rejected"; reason: string };

export const OPEN_PRINCIPAL: Principal = Object.freeze({ name: "anonymous", role: "admin", via: "none" }) as Principal;

export function authMode(config: AuthConfig = authConfig()): AuthMode {
  if (config.enabled) return "auth";
  return config.insecureNoAuth ? "insecure" : "open";
}

function bearerToken(headers: Headers): string | null | undefined {
  const h = headers.get("authorization");
  if (h === null) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

function tokenPrincipal(config: AuthConfig, token: string): Principal | null {
  const digest = createHash("sha256").update(token, "utf8").digest();
  let found: Principal | null = null;
  // every entry compared, in constant time: the answer's timing says nothing about which
  for (const t of config.tokens) {
    if (timingSafeEqual(digest, t.sha256) && found === null) found = { name: t.name, role: t.role, via: "token" };
  }
  return found;
}

export function identify(headers: Headers, nowSeconds: number, config: AuthConfig = authConfig()): Identity {
  if (!config.enabled) return { kind: "principal", principal: OPEN_PRINCIPAL };

  const bearer = bearerToken(headers);
  if (bearer !== undefined) {
    if (bearer === null) return { kind: "rejected", reason: "The Authorization header must be 'Bearer <token>'." };
    const p = tokenPrincipal(config, bearer);
    return p ? { kind: "principal", principal: p } : { kind: "rejected", reason: "The bearer token is not valid." };
  }

  if (config.proxy) {
    const user = headers.get(config.proxy.userHeader);
    if (user !== null) {
      const peer = peerAddress(headers);
      const trusted = peer !== null && config.proxy.trusted.check(peer, peer.includes(":") ? "ipv6" : "ipv4");
      // From anywhere else the header is just something a client typed: ignored.
      if (trusted) {
        const name = user.trim();
        if (name === "" || name.length > 256) return { kind: "rejected", reason: "The proxy sent an empty or overlong user name." };
        // The name goes into logs and the audit trail: no control or formatting characters.
        if (/[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/.test(name)) {
          return { kind: "rejected", reason: "The proxy sent a user name with control characters." };
        }
        const roleText = config.proxy.roleHeader ? headers.get(config.proxy.roleHeader)?.trim().toLowerCase() : undefined;
        if (roleText !== undefined && roleText !== "" && !isRole(roleText)) {
          return { kind: "rejected", reason: "The proxy sent a role that is not viewer, operator or admin." };
        }
        return { kind: "principal", principal: { name, role: roleText && isRole(roleText) ? roleText : "viewer", via: "proxy" } };
      }
    }
  }

  // `url` is unknown here (the layout has only headers): https is known from X-Forwarded-Proto
  const cookie = readCookie(headers.get("cookie"), cookieTransport(headers, undefined, config.insecureHttpCookies).name);
  if (cookie) {
    const s = verifySessionValue(config, cookie, nowSeconds);
    // An expired or forged cookie is the same as none: the browser is sent to sign in.
    if (s) return { kind: "principal", principal: { name: s.user.name, role: s.user.role, via: "session" }, expiresAt: s.exp, sessionId: s.sid };
  }
  return { kind: "anonymous" };
}
