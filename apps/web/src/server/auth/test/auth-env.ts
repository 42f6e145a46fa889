// Shared by the security tests: an authentication configuration with one user per role,
// tokens per role and a trusted proxy, and helpers to call route handlers as a browser
// (session cookie, same-origin headers), a script (bearer token) or a stranger.
import { createHash } from "node:crypto";

import type { Backend } from "@fleet/backend";

import { closeBackend, getBackend } from "@/server/backend";
import { resetServerEnv } from "@/server/env";

import { hashPassword } from "../password";
import { peerHeaderValue, PEER_HEADER } from "../peer";

export const ORIGIN = "http://console.test";
export const SECRET = "test-secret-0123456789-abcdefghijklmnop";
export const PASSWORDS = { vera: "vera-viewer-pw", otto: "otto-operator-pw", ada: "ada-admin-pw" } as const;
export const TOKENS = { viewer: "tok-viewer-xyz", operator: "tok-operator-xyz", admin: "tok-admin-xyz" } as const;
export const PROXY_ADDRESS = "10.9.8.7";

const AUTH_VARS = [
  "FLEET_AUTH_USERS",
  "FLEET_AUTH_TOKENS",
  "FLEET_AUTH_SECRET",
  "FLEET_AUTH_PROXY_USER_HEADER",
  "FLEET_AUTH_PROXY_ROLE_HEADER",
  "FLEET_AUTH_TRUSTED_PROXIES",
  "FLEET_INSECURE_NO_AUTH",
  "FLEET_AUTH_SESSION_TTL_SECONDS",
  "FLEET_BACKEND_URL",
  "FLEET_ALLOWED_HOSTS",
  "FLEET_INSECURE_HTTP_COOKIES",
] as const;

const sha = (t: string) => createHash("sha256").update(t).digest("hex");

/** Cheap scrypt cost: the tests hash and check many passwords. */
export async function userEntry(name: string, role: string, password: string): Promise<string> {
  return `${name}:${role}:${await hashPassword(password, { N: 1024 })}`;
}

export async function configureAuth(backendUrl: string, extra: Record<string, string> = {}): Promise<Backend> {
  process.env.FLEET_AUTH_USERS = [
    await userEntry("vera", "viewer", PASSWORDS.vera),
    await userEntry("otto", "operator", PASSWORDS.otto),
    await userEntry("ada", "admin", PASSWORDS.ada),
  ].join(",");
  process.env.FLEET_AUTH_TOKENS = Object.entries(TOKENS)
    .map(([role, t]) => `${role}-script:${role}:${sha(t)}`)
    .join(",");
  process.env.FLEET_AUTH_SECRET = SECRET;
  process.env.FLEET_AUTH_PROXY_USER_HEADER = "X-Forwarded-User";
  process.env.FLEET_AUTH_PROXY_ROLE_HEADER = "X-Forwarded-Role";
  process.env.FLEET_AUTH_TRUSTED_PROXIES = `${PROXY_ADDRESS},fd00::/8`;
  process.env.FLEET_BACKEND_URL = backendUrl;
  // the tests' requests name http://console.test: a name, so it must be allowed (hosts.ts)
  process.env.FLEET_ALLOWED_HOSTS = "console.test";
  // Handlers called here are not behind `next start -H 127.0.0.1`, i.e. as if listening on
  // every interface, where session cookies are Secure; these tests speak plain http, as a
  // lab would (cookies.test.ts covers the Secure cases).
  process.env.FLEET_INSECURE_HTTP_COOKIES = "1";
  for (const [k, v] of Object.entries(extra)) process.env[k] = v;
  resetServerEnv();
  return getBackend();
}

export async function clearAuth(): Promise<void> {
  await closeBackend();
  for (const k of AUTH_VARS) delete process.env[k];
  resetServerEnv();
}

export type Handler = (request: Request, context?: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface Reply {
  status: number;
  headers: Headers;
  // `any`: checked field by field
  json: any;
  text: string;
}

export async function call(handler: Handler, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers = new Headers(opts.headers);
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers.set("content-type", "application/json");
  }
  const res = await handler(new Request(`${ORIGIN}/api/v1${path}`, { method, headers, body }), { params: Promise.resolve({}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** What the console's own pages send with a mutation. */
export const SAME_ORIGIN = { origin: ORIGIN, "sec-fetch-site": "same-origin", "x-fleet-csrf": "1" } as const;

export function cookieOf(reply: Reply): string {
  const set = reply.headers.get("set-cookie");
  if (!set) throw new Error(`no Set-Cookie in a ${reply.status} answer: ${reply.text}`);
  return set.split(";")[0]!;
}

export function bearer(role: keyof typeof TOKENS): Record<string, string> {
  return { authorization: `Bearer ${TOKENS[role]}` };
}

export function fromPeer(address: string): Record<string, string> {
  return { [PEER_HEADER]: peerHeaderValue(address) };
}
