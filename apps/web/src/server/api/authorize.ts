// The one place that decides whether a request may do what a route does. Every route
// declares the role it needs (../shared/API.md, "Security"): reads `viewer`; task
// submission, DLQ and pool actions `operator`; config writes, deletions and
// force-releases `admin`. Authentication is not built yet, so for now everything is
// allowed; when it is, this function throws ApiError("unauthenticated" | "forbidden").

export type Role = "viewer" | "operator" | "admin";

export const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export interface Principal {
  /** Who is asking, for the audit trail and logs. */
  name: string;
  role: Role;
}

const ANONYMOUS_ADMIN: Principal = { name: "anonymous", role: "admin" };

export async function authorize(_request: Request, _role: Role): Promise<Principal> {
  return ANONYMOUS_ADMIN;
}
