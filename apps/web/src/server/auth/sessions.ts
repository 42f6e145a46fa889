// Sessions that end on the server (issue 12.2). A signed cookie alone would stay good for
// its whole lifetime, signed out or not; so every session also has a record in the
// backend, `fleet:console:session:<id>` (Redis: shared by every console replica; TTL = the
// session's lifetime), and a session cookie counts only while its record exists:
//   - sign-in stores it (with the sign-in's audit entry, in one atomic step);
//   - sign-out deletes it: the cookie, replayed, is worth nothing from then on;
//   - a removed user, or a new password hash in FLEET_AUTH_USERS, ends the session at once
//     (the cookie is bound to the user and the password, session.ts); the first request
//     that shows such a cookie also deletes its record (and, for a removed user, every
//     record of that user), so a replica still running the old configuration refuses it too.
// Cost: one GET per request made with a session cookie (tokens and proxy headers: none).
// The record's id is the SHA-256 of the cookie's session id: whoever reads Redis learns
// nothing that signs in (the cookie also needs FLEET_AUTH_SECRET's signature).
//
// Redis unreachable while a session is checked: the request fails closed, 503, reads
// included: every read is of Redis anyway, so it would fail too, and a cookie that may have
// been signed out must not get the answers of another source (the session info of the
// pages' layout is the one exception: it shows who the cookie names, and every request the
// page makes then answers 503).
import { createHash } from "node:crypto";

import { pyJsonBytes, type AuditWrite, type Backend } from "@fleet/backend";

import { ApiError } from "@/server/api/errors";
import { getBackend } from "@/server/backend";
import { logText } from "@/server/log-text";

import { authConfig, type AuthConfig, type ConfiguredUser } from "./config";
import { identify, type Identity } from "./identify";
import { cookieTransport, createSessionValue, newSessionId, readCookie, readSessionValue } from "./session";

export const SESSION_ENDED = "This session has ended (signed out, or the user or the password changed). Sign in again.";
export const SESSION_UNCHECKABLE = "Redis is unreachable, so the session cannot be checked; nothing was read or changed. Try again when it is back.";

/** The backend's id of a session: a digest of the cookie's id, never the id itself. */
export function sessionRecordId(sid: string): string {
  return createHash("sha256").update(`fleet-session-id:${sid}`).digest("base64url");
}

interface SessionRecord {
  user: string;
  iat: number;
  exp: number;
}

/** Starts a session: its record first (with `audit` in the same step), then the cookie value. */
export async function startSession(
  backend: Backend,
  config: AuthConfig,
  user: ConfiguredUser,
  nowSeconds: number,
  audit?: AuditWrite,
): Promise<{ value: string; expiresAt: number }> {
  if (!config.secret) throw new Error("sessions need FLEET_AUTH_SECRET");
  const ttl = config.sessionTtlSeconds;
  const sid = newSessionId();
  const record: SessionRecord = { user: user.name, iat: nowSeconds, exp: nowSeconds + ttl };
  await backend.sessionPut(sessionRecordId(sid), user.name, pyJsonBytes(record), ttl, audit ? { audit } : {});
  return { value: createSessionValue(config.secret, user, nowSeconds, ttl, sid), expiresAt: nowSeconds + ttl };
}

/** Ends one session (sign-out): true when it was live. */
export async function endSession(backend: Backend, sid: string): Promise<boolean> {
  return backend.sessionDelete(sessionRecordId(sid));
}

export interface LiveOptions {
  /**
   * `throw` (the API): Redis unreachable answers 503. `signature`: trust the signed cookie
   * instead (the layout's "signed in as", never an answer with data).
   */
  onUnavailable?: "throw" | "signature";
}

function recordBelongsTo(record: Buffer, user: string): boolean {
  try {
    const parsed = JSON.parse(record.toString("utf8")) as Partial<SessionRecord>;
    return parsed.user === user;
  } catch {
    return false;
  }
}

/**
 * identify(), and for a session cookie its record too: the one check every API request
 * (authorize), the session endpoint and the live stream make.
 */
export async function identifyLive(headers: Headers, nowSeconds: number, config: AuthConfig = authConfig(), opts: LiveOptions = {}): Promise<Identity> {
  const id = identify(headers, nowSeconds, config);
  if (id.kind === "anonymous") {
    await forgetStaleCookie(headers, nowSeconds, config);
    return id;
  }
  if (id.kind !== "principal" || id.sessionId === undefined) return id;
  let record: Buffer | null;
  try {
    record = await (await getBackend()).sessionGet(sessionRecordId(id.sessionId));
  } catch (err) {
    if (opts.onUnavailable === "signature") return id;
    console.error(`[auth] could not check the session of ${logText(id.principal.name)}:`, err instanceof Error ? err.message : err);
    throw new ApiError("backend_unavailable", SESSION_UNCHECKABLE);
  }
  if (record === null || !recordBelongsTo(record, id.principal.name)) return { kind: "rejected", reason: SESSION_ENDED };
  return id;
}

/**
 * A well-signed cookie of a user who was removed or has a new password: delete its record
 * (every record of a removed user), so that a replica not yet restarted with the new
 * configuration cannot accept it either. Best effort: this request is refused anyway.
 */
async function forgetStaleCookie(headers: Headers, nowSeconds: number, config: AuthConfig): Promise<void> {
  const value = readCookie(headers.get("cookie"), cookieTransport(headers, undefined, config.insecureHttpCookies).name);
  if (!value) return;
  const cookie = readSessionValue(config, value, nowSeconds);
  if (cookie?.status !== "stale") return;
  try {
    const backend = await getBackend();
    await backend.sessionDelete(sessionRecordId(cookie.sid));
    if (cookie.userRemoved) {
      const ended = await backend.sessionDeleteForUser(cookie.userName);
      if (ended > 0) console.warn(`[auth] ended ${ended} session(s) of ${logText(cookie.userName)}, who is no longer in FLEET_AUTH_USERS`);
    }
  } catch (err) {
    console.error(`[auth] could not end the stale session of ${logText(cookie.userName)}:`, err instanceof Error ? err.message : err);
  }
}
