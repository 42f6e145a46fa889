// The one place that decides whether a request may do what a route does. Every route
// declares the role it needs (../shared/API.md, "Security"): reads `viewer`; task
// submission, DLQ and pool actions `operator`; config writes, deletions and
// force-releases `admin`. Who is asking is src/server/auth/identify.ts; requests
// authenticated by ambient browser credentials (session cookie, SSO proxy headers) must
// also pass the cross-site check before they may change anything.
import { authConfig } from "@/server/auth/config";
import { csrfProblem, isMutation } from "@/server/auth/csrf";
import { identifyLive } from "@/server/auth/sessions";
import { ROLE_RANK, type Principal, type Role } from "@/server/auth/roles";

import { ApiError } from "./errors";

export { ROLE_RANK, type Principal, type Role };

export const unauthenticated = (message: string) => new ApiError("unauthenticated", message);
export const forbidden = (message: string) => new ApiError("forbidden", message);

export async function authorize(request: Request, role: Role): Promise<Principal> {
  const config = authConfig();
  // identify(), and a session cookie's record (its session may have ended: sessions.ts)
  const id = await identifyLive(request.headers, Math.floor(Date.now() / 1000), config);
  if (id.kind === "rejected") throw unauthenticated(id.reason);
  if (id.kind === "anonymous") {
    throw unauthenticated("Sign in to use the console (or send 'Authorization: Bearer <token>').");
  }
  const principal = id.principal;
  if ((principal.via === "session" || principal.via === "proxy") && isMutation(request.method)) {
    const problem = csrfProblem(request);
    if (problem !== null) {
      console.warn(`[auth] refused a cross-site ${request.method} ${new URL(request.url).pathname} for ${principal.name}: ${problem}`);
      throw forbidden(`This change was refused because ${problem}; make it from the console's own pages.`);
    }
  }
  if (ROLE_RANK[principal.role] < ROLE_RANK[role]) {
    throw forbidden(`This needs the ${role} role; ${principal.name} has the ${principal.role} role.`);
  }
  return principal;
}
