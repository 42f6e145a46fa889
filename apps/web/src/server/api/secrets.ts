// Secrets in pool items (issue 19.8): pools hold cookies, sessions and tokens, and a viewer
// (or a screen shared in a call) should not see them. What looks like a secret is masked on
// the server before the item is serialized, so the bytes never reach a browser that did not
// ask for them; an operator reveals one item through POST /pools/{name}/items/{id}/reveal
// (audited). The rules, by key name and by shape (fixed patterns, never user input):
//
// - a JSON member (at any depth) whose key, lower-cased without `-` and `_`, contains one of
//   SECRET_KEY_PARTS (cookie, token, password, secret, authorization, apikey, session,
//   credential, clearance, sessid, ...) or is exactly `auth`, `sid` or `pin`: its whole value is masked
//   (an object or array of cookies included);
// - a string value (or the whole payload, when it is text and not JSON) shaped like a secret:
//   a JWT (`eyJ….….…`), an `Authorization`-style value (`Bearer …`, `Basic …`, `Token …`),
//   a header line `Cookie:`/`Set-Cookie:`/`Authorization:`, a PEM private key, or a cookie
//   string (`name=value; name2=value2`);
// - tags: by key name only (tags are for matching, their values are short).
//
// A masked value becomes the text `••• masked (N chars)`; the payload is then the masked JSON
// (or that text), and the item says which paths were masked (`masked`). Binary payloads
// (not UTF-8) are left as they are: nothing can be said about their shape.
import type { JsonObject } from "@fleet/backend";

export const SECRET_KEY_PARTS = [
  "cookie",
  "token",
  "password",
  "passwd",
  "passphrase",
  "secret",
  "authorization",
  "apikey",
  "accesskey",
  "privatekey",
  "session",
  "credential",
  "bearer",
  "csrf",
  "xsrf",
  "jwt",
  "signature",
  // Cloudflare's clearance cookie (cf_clearance), what a cf-cookies pool holds at the top level
  "clearance",
  // PHPSESSID, JSESSIONID, ASP.NET_SessionId (the last has "session")
  "sessid",
] as const;
const SECRET_KEY_EXACT = new Set(["auth", "sid", "pin", "otp"]);

const JWT = /^eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*$/;
const AUTH_SCHEME = /^(bearer|basic|token|digest)\s+\S{8,}/i;
const HEADER_LINE = /^(set-)?cookie\s*:|^(proxy-)?authorization\s*:/im;
const PEM_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
/** `a=b; c=d` (two or more pairs, or one pair with a cookie attribute after it). */
const COOKIE_STRING = /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+=[^;\s]*(\s*;\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+(=[^;]*)?)+\s*;?\s*$/;

export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_\s]/g, "");
  return SECRET_KEY_EXACT.has(k) || SECRET_KEY_PARTS.some((p) => k.includes(p));
}

export function looksLikeSecret(text: string): boolean {
  const t = text.trim();
  return JWT.test(t) || AUTH_SCHEME.test(t) || HEADER_LINE.test(t) || PEM_KEY.test(t) || COOKIE_STRING.test(t);
}

export function maskText(value: unknown): string {
  const n = typeof value === "string" ? value.length : (JSON.stringify(value)?.length ?? 0);
  return `••• masked (${n} chars)`;
}

function pathOf(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/** A copy of `value` with secrets masked, and the paths masked (appended to `out`). */
export function maskJson(value: unknown, path: string, out: string[]): unknown {
  if (typeof value === "string") {
    if (looksLikeSecret(value)) {
      out.push(path);
      return maskText(value);
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => maskJson(v, pathOf(path, i), out));
  if (value !== null && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const p = pathOf(path, k);
      if (isSecretKey(k) && v !== null && v !== "") {
        out.push(p);
        copy[k] = maskText(v);
      } else copy[k] = maskJson(v, p, out);
    }
    return copy;
  }
  return value;
}

/**
 * The payload as it may be shown: the same bytes when nothing looks secret, else the masked
 * JSON (or the mask text for a secret text payload), with the masked paths.
 */
export function maskPayload(payload: Buffer): { bytes: Buffer; masked: string[] } {
  const text = decodeStrictUtf8(payload);
  if (text === null) return { bytes: payload, masked: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (!looksLikeSecret(text)) return { bytes: payload, masked: [] };
    return { bytes: Buffer.from(maskText(text), "utf8"), masked: ["$"] };
  }
  const masked: string[] = [];
  const copy = maskJson(parsed, "$", masked);
  if (masked.length === 0) return { bytes: payload, masked };
  return { bytes: Buffer.from(typeof copy === "string" ? copy : JSON.stringify(copy), "utf8"), masked };
}

/** Tags with secret-named members masked. */
export function maskTags(tags: JsonObject | null): { tags: JsonObject | null; masked: string[] } {
  if (tags === null) return { tags, masked: [] };
  const masked: string[] = [];
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(tags)) {
    if (isSecretKey(k) && v !== null && v !== "") {
      masked.push(`tags.${k}`);
      out[k] = maskText(v);
    } else out[k] = v;
  }
  return { tags: masked.length > 0 ? out : tags, masked };
}

function decodeStrictUtf8(b: Buffer): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(b);
  } catch {
    return null;
  }
}
