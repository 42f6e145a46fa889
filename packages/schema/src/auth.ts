// Roles and the shapes of GET/POST /api/v1/auth/* (a console extension: API.md leaves
// authentication out). The server (apps/web/src/server/auth) answers them, the browser and
// the OpenAPI document read them from here.
import { z } from "zod";

export const RoleSchema = z.enum(["viewer", "operator", "admin"]);
export type Role = z.infer<typeof RoleSchema>;
export const ROLES: readonly Role[] = RoleSchema.options;
export const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export function isRole(value: unknown): value is Role {
  return value === "viewer" || value === "operator" || value === "admin";
}

/** Whether `have` (none: nobody signed in) is at least `need`. */
export function roleAtLeast(have: Role | null | undefined, need: Role): boolean {
  return have != null && ROLE_RANK[have] >= ROLE_RANK[need];
}

/**
 * How a request was authenticated. `none`: authentication is off (the loopback demo or
 * FLEET_INSECURE_NO_AUTH=1). Session cookies and proxy headers are ambient browser
 * credentials and get cross-site protection; bearer tokens are not and need none.
 */
export const AuthViaSchema = z.enum(["none", "session", "token", "proxy"]);
export type AuthVia = z.infer<typeof AuthViaSchema>;

/** What GET /auth/session answers, and what the pages start with (the root layout). */
export const SessionInfoSchema = z.object({
  mode: z.enum(["auth", "open", "insecure"]).describe("auth: sign-in required; open: the loopback demo without authentication; insecure: FLEET_INSECURE_NO_AUTH=1"),
  user: z.object({ name: z.string(), role: RoleSchema, via: AuthViaSchema }).nullable(),
  expires_at: z.number().nullable(),
  password_sign_in: z.boolean().describe("whether users are configured, so the sign-in form can work"),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

export const SignInBodySchema = z.object({ username: z.string().max(256), password: z.string().max(1024) });
export type SignInBody = z.infer<typeof SignInBodySchema>;
export const SignInResultSchema = z.object({
  user: z.object({ name: z.string(), role: RoleSchema, via: z.literal("session") }),
  expires_at: z.number(),
});
export type SignInResult = z.infer<typeof SignInResultSchema>;
export const SignOutBodySchema = z.strictObject({ everywhere: z.boolean().optional().describe("end every session of the user, not only this one") });
export const SignOutResultSchema = z.object({ signed_out: z.literal(true) });
export type SignOutResult = z.infer<typeof SignOutResultSchema>;
