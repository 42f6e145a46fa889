// Cross-site request protection for requests that carry ambient browser credentials (the
// session cookie, or an SSO proxy's): a mutation must come from the console's own origin
// (Sec-Fetch-Site, else Origin) AND carry the custom header the console's own fetches
// send. A cross-site form cannot set a custom header, and a cross-site fetch with one is
// stopped by CORS preflight, which the console never grants.
export const CSRF_HEADER = "x-fleet-csrf";
export const CSRF_VALUE = "1";

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

/** Null when the request may proceed, else the reason it may not (for the 403 message). */
export function csrfProblem(request: Request): string | null {
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  if (site !== null) {
    if (site !== "same-origin") return `it came from another site (Sec-Fetch-Site: ${site.slice(0, 20)})`;
  } else if (origin === null) {
    return "it names no origin (neither Origin nor Sec-Fetch-Site)";
  }
  if (origin !== null && !ownOrigins(request).has(origin.toLowerCase())) return "it came from another origin";
  if (request.headers.get(CSRF_HEADER) !== CSRF_VALUE) return `it lacks the ${CSRF_HEADER} header the console's pages send`;
  return null;
}
