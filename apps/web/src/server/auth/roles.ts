// Who is asking. The roles themselves (RoleSchema, ROLE_RANK, isRole) are @fleet/schema's,
// shared with the browser's session code.
import type { AuthVia, Role } from "@fleet/schema";

export interface Principal {
  /** Who is asking, for the audit trail and logs. */
  name: string;
  role: Role;
  via?: AuthVia;
}
