// Cross-site request protection, in every mode (issue 12). A web page the operator visits
// can make the browser send requests to the console: forms and `no-cors` fetches with
// `text/plain`, `application/x-www-form-urlencoded` or `multipart/form-data` bodies need no
// CORS preflight. So every mutation (any method but GET, HEAD, OPTIONS):
//   - that carries a body must say `Content-Type: application/json` (or
//     `application/merge-patch+json`), which no cross-site page can send without a
//     preflight the console never grants; a mutation without a body may omit Content-Type,
//     but any Content-Type it sends must be one of those;
//   - that a browser sent must come from the console's own origin: `Sec-Fetch-Site:
//     same-origin`, else a matching `Origin`. With ambient credentials (the session cookie,
//     an SSO proxy's headers) it must also name its origin and carry the `X-Fleet-Csrf: 1`
//     header the console's own fetches send. Without authentication (the loopback demo,
//     FLEET_INSECURE_NO_AUTH=1) a request naming no origin at all is a script's (curl), not
//     a browser's: browsers name the origin of every cross-site mutation.
// Bearer-token requests carry no ambient credential: no origin check, the JSON rule still.
// DNS rebinding (a hostile page reaching the console under its own name) is same-origin to
// the browser; the Host allow-list (hosts.ts) stops it.
export const CSRF_HEADER = "x-fleet-csrf";
export const CSRF_VALUE = "1";

export const JSON_MEDIA_TYPES: ReadonlySet<string> = new Set(["application/json", "application/merge-patch+json"]);

export function isMutation(method: string): boolean {
  const m = method.toUpperCase();
  return m !== "GET" && m !== "HEAD" && m !== "OPTIONS";
}

/** The origin the browser used to reach the console: Host (or the forwarded host) and protocol. */
export function ownOrigins(request: Request): Set<string> {
  const out = new Set<string>();
  const url = new URL(request.url);
  const proto = (request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() || url.protocol.replace(/:$/, "")).toLowerCase();
  for (const host of [request.headers.get("host"), request.headers.get("x-forwarded-host")?.split(",")[0]?.trim(), url.host]) {
    if (host) out.add(`${proto}://${host.toLowerCase()}`);
  }
  return out;
}

/**
 * Null when the request may come from where it says, else the reason (for a 403 message).
 * `ambient`: it is authenticated by a cookie or proxy headers, so it must name its origin
 * and carry the pages' header too.
 */
export function originProblem(request: Request, ambient: boolean): string | null {
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  if (site !== null) {
    if (site !== "same-origin") return `it came from another site (Sec-Fetch-Site: ${site.slice(0, 20)})`;
  } else if (origin === null) {
    return ambient ? "it names no origin (neither Origin nor Sec-Fetch-Site)" : null;
  }
  if (origin !== null && !ownOrigins(request).has(origin.toLowerCase())) return "it came from another origin";
  if (ambient && request.headers.get(CSRF_HEADER) !== CSRF_VALUE) return `it lacks the ${CSRF_HEADER} header the console's pages send`;
  return null;
}

/** The strict check of requests with ambient credentials (sign-in, sign-out, session mutations). */
export function csrfProblem(request: Request): string | null {
  return originProblem(request, true);
}

function declaresBody(headers: Headers): boolean {
  const length = headers.get("content-length");
  if (length !== null && length.trim() !== "0") return true;
  return headers.has("transfer-encoding");
}

/**
 * Null when a mutation's Content-Type is acceptable, else the reason (for a 415 message).
 * `expectsBody`: the route reads a body, so it must be declared JSON even when the client
 * sent no length.
 */
export function contentTypeProblem(request: Request, expectsBody: boolean): string | null {
  const given = request.headers.get("content-type");
  if (given === null) {
    return expectsBody || declaresBody(request.headers) ? "its body is not declared as JSON (no Content-Type)" : null;
  }
  const type = given.split(";", 1)[0]!.trim().toLowerCase();
  if (JSON_MEDIA_TYPES.has(type)) return null;
  return `its Content-Type is '${type.slice(0, 60)}', not application/json`;
}
