// The Host allow-list, against DNS rebinding: a hostile page whose name (evil.example) is
// made to resolve to the console's address is, to the browser, same-origin with itself, so
// its requests pass every cross-site check; only the Host header it must send
// (`evil.example:3000`) gives it away. Every request (pages through src/proxy.ts, every API
// route) must name an allowed host.
//
// FLEET_ALLOWED_HOSTS: comma-separated `host` (any port) or `host:port`, IPv6 in brackets
// (`[::1]:3000`), or `*` (no check at all). Unset: the loopback names (localhost,
// *.localhost, 127.0.0.0/8, [::1]) and any IP address, with any port. A rebinding page
// always reaches the console by a DNS name, never by an address, so addresses are safe to
// allow; a console served under a name (console.example.com) must list it.
import { isIP } from "node:net";

export interface AllowedHost {
  host: string;
  /** null: any port. */
  port: number | null;
}

export interface HostPolicy {
  /** null: the default (loopback names and IP addresses); "any": `*`. */
  list: AllowedHost[] | "any" | null;
}

const NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?$/;

/** `host`, `host:port`, `[v6]` or `[v6]:port`, lower-cased; null when it is none of these. */
export function parseHostPort(text: string): AllowedHost | null {
  const t = text.trim().toLowerCase();
  if (t === "" || t.length > 300) return null;
  let host: string;
  let portText: string | undefined;
  if (t.startsWith("[")) {
    const end = t.indexOf("]");
    if (end < 0) return null;
    host = t.slice(1, end);
    const rest = t.slice(end + 1);
    if (rest !== "") {
      if (!rest.startsWith(":")) return null;
      portText = rest.slice(1);
    }
    if (isIP(host) !== 6) return null;
  } else {
    const colon = t.indexOf(":");
    if (colon >= 0) {
      if (t.indexOf(":", colon + 1) >= 0) return null; // a bare IPv6 address must be bracketed
      host = t.slice(0, colon);
      portText = t.slice(colon + 1);
    } else host = t;
    if (isIP(host) !== 4 && !NAME.test(host)) return null;
  }
  if (portText === undefined) return { host: host.replace(/\.$/, ""), port: null };
  if (!/^\d{1,5}$/.test(portText)) return null;
  const port = Number(portText);
  if (port < 1 || port > 65535) return null;
  return { host: host.replace(/\.$/, ""), port };
}

export function parseAllowedHosts(value: string | undefined): HostPolicy {
  if (value === undefined || value.trim() === "") return { list: null };
  const items = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.includes("*")) {
    if (items.length > 1) throw new Error("FLEET_ALLOWED_HOSTS: '*' allows every host; list it alone");
    return { list: "any" };
  }
  return {
    list: items.map((item) => {
      const parsed = parseHostPort(item);
      if (!parsed) throw new Error(`FLEET_ALLOWED_HOSTS: '${item.slice(0, 100)}' is not host, host:port or [ipv6]:port`);
      return parsed;
    }),
  };
}

function isLoopbackName(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1") return true;
  return isIP(host) === 4 && host.startsWith("127.");
}

export function hostAllowed(policy: HostPolicy, claimed: AllowedHost): boolean {
  if (policy.list === "any") return true;
  if (policy.list === null) return isLoopbackName(claimed.host) || isIP(claimed.host) !== 0;
  return policy.list.some((a) => a.host === claimed.host && (a.port === null || a.port === claimed.port));
}

/**
 * Null when the request may be served, else why not. Checks the Host header and, when a
 * proxy (or anybody) added one, the first X-Forwarded-Host: the console builds its own
 * origin from both (csrf.ts). A request without a Host header (HTTP/1.0, a test calling a
 * handler) is checked by the host of its URL.
 */
export function hostProblem(headers: Headers, url: string, policy: HostPolicy): string | null {
  if (policy.list === "any") return null;
  let fallback = "";
  try {
    fallback = new URL(url).host;
  } catch {
    /* no URL host */
  }
  const claims = [headers.get("host") ?? fallback, headers.get("x-forwarded-host")?.split(",")[0]?.trim()];
  for (const claim of claims) {
    if (claim === undefined || claim === null) continue;
    const parsed = parseHostPort(claim);
    const shown = claim.slice(0, 100).replace(/[^\x20-\x7e]/g, "?");
    if (!parsed) return `the Host '${shown}' is not a host name`;
    if (!hostAllowed(policy, parsed)) {
      return policy.list === null
        ? `the host '${shown}' is not a loopback name or an IP address; set FLEET_ALLOWED_HOSTS to the names this console is served under`
        : `the host '${shown}' is not in FLEET_ALLOWED_HOSTS`;
    }
  }
  return null;
}

/** The sentence of a 421 answer. */
export function misdirectedMessage(problem: string): string {
  return `This console does not serve this address: ${problem}. (A page reaching it under a name it does not know may be a DNS rebinding attack.)`;
}
