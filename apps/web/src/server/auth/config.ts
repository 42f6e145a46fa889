// Who may sign in, which tokens are valid, and whether a trusted SSO proxy names the
// user: all from the environment (README, "Authentication"). Parsed once per parsed
// environment; every mistake names the variable and the entry, never a secret.
import { createHash } from "node:crypto";
import { BlockList, isIP } from "node:net";

import { isRole, type Role } from "@fleet/schema";

import { authEnv, type AuthEnv } from "@/server/env";

import { parseAllowedHosts, type HostPolicy } from "./hosts";
import { parseHash, type ParsedHash } from "./password";
import { normalizeAddress } from "./peer";

export interface ConfiguredUser {
  name: string;
  role: Role;
  hash: ParsedHash;
  /** A short fingerprint of the hash, bound into sessions: a new password ends old sessions. */
  passwordVersion: string;
}

export interface ConfiguredToken {
  name: string;
  role: Role;
  sha256: Buffer;
}

export interface ProxyAuth {
  userHeader: string;
  roleHeader: string | null;
  trusted: BlockList;
  trustedText: string;
}

export interface AuthConfig {
  /** Any way to authenticate is configured: every request must then prove who it is. */
  enabled: boolean;
  insecureNoAuth: boolean;
  users: Map<string, ConfiguredUser>;
  tokens: ConfiguredToken[];
  secret: Buffer | null;
  proxy: ProxyAuth | null;
  sessionTtlSeconds: number;
  auditMaxEntries: number;
  /** FLEET_ALLOWED_HOSTS (hosts.ts). */
  allowedHosts: HostPolicy;
  /** FLEET_INSECURE_HTTP_COOKIES=1: no `Secure` on plain http beyond loopback (session.ts). */
  insecureHttpCookies: boolean;
}

export const USER_NAME = /^[A-Za-z0-9._@+-]{1,64}$/;
export const MIN_SECRET_LENGTH = 32;

function entries(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== "" && !s.startsWith("#"));
}

function split3(entry: string, variable: string, index: number, what: string): [string, string, string] {
  const first = entry.indexOf(":");
  const second = first < 0 ? -1 : entry.indexOf(":", first + 1);
  if (first < 0 || second < 0) throw new Error(`${variable}: entry ${index + 1} is not name:role:${what}`);
  return [entry.slice(0, first), entry.slice(first + 1, second), entry.slice(second + 1)];
}

function checkNameRole(name: string, role: string, variable: string, index: number): Role {
  if (!USER_NAME.test(name)) throw new Error(`${variable}: entry ${index + 1} has the name '${name.slice(0, 64)}'; use 1 to 64 of A-Z a-z 0-9 . _ @ + -`);
  if (!isRole(role)) throw new Error(`${variable}: entry ${index + 1} (${name}) has the role '${role.slice(0, 32)}'; use viewer, operator or admin`);
  return role;
}

function parseUsers(value: string | undefined): Map<string, ConfiguredUser> {
  const users = new Map<string, ConfiguredUser>();
  entries(value).forEach((entry, i) => {
    const [name, roleText, hashText] = split3(entry, "FLEET_AUTH_USERS", i, "scrypt-hash");
    const role = checkNameRole(name, roleText, "FLEET_AUTH_USERS", i);
    let hash: ParsedHash;
    try {
      hash = parseHash(hashText);
    } catch (err) {
      throw new Error(`FLEET_AUTH_USERS: the hash of ${name} ${(err as Error).message}`);
    }
    if (users.has(name)) throw new Error(`FLEET_AUTH_USERS: ${name} is listed twice`);
    const passwordVersion = createHash("sha256").update(hashText).digest("base64url").slice(0, 12);
    users.set(name, { name, role, hash, passwordVersion });
  });
  return users;
}

function parseTokens(value: string | undefined): ConfiguredToken[] {
  const names = new Set<string>();
  return entries(value).map((entry, i) => {
    const [name, roleText, digest] = split3(entry, "FLEET_AUTH_TOKENS", i, "sha256-hex");
    const role = checkNameRole(name, roleText, "FLEET_AUTH_TOKENS", i);
    if (!/^[0-9a-fA-F]{64}$/.test(digest)) {
      throw new Error(`FLEET_AUTH_TOKENS: ${name} needs the SHA-256 of the token as 64 hex digits, never the token itself (printf %s "$TOKEN" | sha256sum)`);
    }
    if (names.has(name)) throw new Error(`FLEET_AUTH_TOKENS: ${name} is listed twice`);
    names.add(name);
    return { name, role, sha256: Buffer.from(digest, "hex") };
  });
}

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

export function parseTrustedProxies(value: string): BlockList {
  const list = new BlockList();
  for (const item of entries(value)) {
    const [addrText, prefixText] = item.split("/") as [string, string | undefined];
    const addr = normalizeAddress(addrText);
    const family = isIP(addr);
    if (family === 0) throw new Error(`FLEET_AUTH_TRUSTED_PROXIES: '${item}' is not an IP address or CIDR range`);
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefixText === undefined) {
      list.addAddress(addr, type);
    } else {
      const prefix = Number(prefixText);
      if (!/^\d+$/.test(prefixText) || prefix > (family === 4 ? 32 : 128)) throw new Error(`FLEET_AUTH_TRUSTED_PROXIES: '${item}' has a bad prefix length`);
      list.addSubnet(addr, prefix, type);
    }
  }
  return list;
}

function parseProxy(env: AuthEnv): ProxyAuth | null {
  const userHeader = env.FLEET_AUTH_PROXY_USER_HEADER;
  const roleHeader = env.FLEET_AUTH_PROXY_ROLE_HEADER;
  const trustedText = env.FLEET_AUTH_TRUSTED_PROXIES;
  if (!userHeader && !roleHeader && !trustedText) return null;
  if (!userHeader || !trustedText) {
    throw new Error("the proxy mode needs both FLEET_AUTH_PROXY_USER_HEADER and FLEET_AUTH_TRUSTED_PROXIES (the addresses the proxy connects from)");
  }
  for (const [v, h] of [
    ["FLEET_AUTH_PROXY_USER_HEADER", userHeader],
    ["FLEET_AUTH_PROXY_ROLE_HEADER", roleHeader],
  ] as const) {
    if (h !== undefined && !HEADER_NAME.test(h)) throw new Error(`${v}: '${h}' is not a header name`);
  }
  const trusted = parseTrustedProxies(trustedText);
  if (entries(trustedText).length === 0) throw new Error("FLEET_AUTH_TRUSTED_PROXIES lists no address");
  return { userHeader: userHeader.toLowerCase(), roleHeader: roleHeader ? roleHeader.toLowerCase() : null, trusted, trustedText };
}

export function buildAuthConfig(env: AuthEnv): AuthConfig {
  const users = parseUsers(env.FLEET_AUTH_USERS);
  const tokens = parseTokens(env.FLEET_AUTH_TOKENS);
  const proxy = parseProxy(env);
  const enabled = users.size > 0 || tokens.length > 0 || proxy !== null;
  let secret: Buffer | null = null;
  if (env.FLEET_AUTH_SECRET !== undefined) {
    if (env.FLEET_AUTH_SECRET.length < MIN_SECRET_LENGTH) {
      throw new Error(`FLEET_AUTH_SECRET must be at least ${MIN_SECRET_LENGTH} characters (e.g. openssl rand -base64 48)`);
    }
    secret = Buffer.from(env.FLEET_AUTH_SECRET, "utf8");
  }
  if (users.size > 0 && secret === null) {
    throw new Error(
      `FLEET_AUTH_SECRET is required when FLEET_AUTH_USERS is set: it signs the session cookies (at least ${MIN_SECRET_LENGTH} characters, e.g. openssl rand -base64 48)`,
    );
  }
  if (enabled && env.FLEET_INSECURE_NO_AUTH) {
    throw new Error("FLEET_INSECURE_NO_AUTH=1 and a user, token or proxy configuration are both set; remove one of them so it is clear whether the console asks who you are");
  }
  return {
    enabled,
    insecureNoAuth: env.FLEET_INSECURE_NO_AUTH,
    users,
    tokens,
    secret,
    proxy,
    sessionTtlSeconds: env.FLEET_AUTH_SESSION_TTL_SECONDS,
    auditMaxEntries: env.FLEET_AUDIT_MAX_ENTRIES,
    allowedHosts: parseAllowedHosts(env.FLEET_ALLOWED_HOSTS),
    insecureHttpCookies: env.FLEET_INSECURE_HTTP_COOKIES,
  };
}

let cache: { env: AuthEnv; config: AuthConfig } | undefined;

/** The configuration of the current environment (re-read after resetServerEnv()). */
export function authConfig(): AuthConfig {
  const env = authEnv();
  if (cache?.env !== env) cache = { env, config: buildAuthConfig(env) };
  return cache.config;
}
