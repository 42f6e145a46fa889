// POST /api/v1/auth/signout: clears the session cookie.
import { handleSignOut } from "@/server/auth/handlers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handleSignOut;
