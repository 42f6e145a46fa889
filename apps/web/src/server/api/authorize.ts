// The one place that decides whether a request may do what a route does. Every route
// declares the role it needs (../shared/API.md, "Security"): reads `viewer`; task
// submission, DLQ and pool actions `operator`; config writes, deletions and
// force-releases `admin`. Who is asking is src/server/auth/identify.ts; requests
// not authenticated by a bearer token must also pass the cross-site check before they may
// change anything, and every request must name an allowed host.
import { authConfig } from "@/server/auth/config";
import { contentTypeProblem, isMutation, originProblem } from "@/server/auth/csrf";
import { hostProblem, misdirectedMessage } from "@/server/auth/hosts";
import type { Principal } from "@/server/auth/roles";
import { identifyLive } from "@/server/auth/sessions";
import { ROLE_RANK, type Role } from "@fleet/schema";

import { ApiError } from "./errors";

export { ROLE_RANK, type Principal, type Role };

export const unauthenticated = (message: string) => new ApiError("unauthenticated", message);
export const forbidden = (message: string) => new ApiError("forbidden", message);

/** Throws 421 unless the request names a host this console serves (hosts.ts, DNS rebinding). */
export function requireAllowedHost(request: Request): void {
  const problem = hostProblem(request.headers, request.url, authConfig().allowedHosts);
  if (problem !== null) throw new ApiError("misdirected_request", misdirectedMessage(problem));
}

/**
 * Throws 415 unless a mutation's body is declared JSON (csrf.ts): a cross-site page can send
 * `text/plain` without a preflight, never `application/json`.
 */
export function requireJsonMutation(request: Request, expectsBody: boolean): void {
  if (!isMutation(request.method)) return;
  const problem = contentTypeProblem(request, expectsBody);
  if (problem !== null) {
    throw new ApiError("unsupported_media_type", `This change was refused because ${problem}; send the body as JSON with Content-Type: application/json.`);
  }
}

export async function authorize(request: Request, role: Role, opts: { expectsBody?: boolean } = {}): Promise<Principal> {
  requireAllowedHost(request);
  const config = authConfig();
  // identify(), and a session cookie's record (its session may have ended: sessions.ts)
  const id = await identifyLive(request.headers, Math.floor(Date.now() / 1000), config);
  if (id.kind === "rejected") throw unauthenticated(id.reason);
  if (id.kind === "anonymous") {
    throw unauthenticated("Sign in to use the console (or send 'Authorization: Bearer <token>').");
  }
  const principal = id.principal;
  // In every mode, a token's request excepted: only the console's own pages may change
  // anything from a browser (csrf.ts).
  const via = principal.via ?? "none";
  if (via !== "token" && isMutation(request.method)) {
    const problem = originProblem(request, via === "session" || via === "proxy");
    if (problem !== null) {
      console.warn(`[auth] refused a cross-site ${request.method} ${new URL(request.url).pathname} for ${principal.name}: ${problem}`);
      throw forbidden(`This change was refused because ${problem}; make it from the console's own pages.`);
    }
  }
  if (ROLE_RANK[principal.role] < ROLE_RANK[role]) {
    throw forbidden(`This needs the ${role} role; ${principal.name} has the ${principal.role} role.`);
  }
  requireJsonMutation(request, opts.expectsBody ?? false);
  return principal;
}
