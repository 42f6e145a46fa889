// Roles and who is asking. Kept free of server-only imports so the client session code
// can share the ranking.
export type Role = "viewer" | "operator" | "admin";

export const ROLES: readonly Role[] = ["viewer", "operator", "admin"];

export const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export function isRole(value: unknown): value is Role {
  return value === "viewer" || value === "operator" || value === "admin";
}

export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLE_RANK[have] >= ROLE_RANK[need];
}

/**
 * How a request was authenticated. `none`: authentication is off (the loopback demo or
 * FLEET_INSECURE_NO_AUTH=1). Session cookies and proxy headers are ambient browser
 * credentials and get cross-site protection; bearer tokens are not and need none.
 */
export type AuthVia = "none" | "session" | "token" | "proxy";

export interface Principal {
  /** Who is asking, for the audit trail and logs. */
  name: string;
  role: Role;
  via?: AuthVia;
}
