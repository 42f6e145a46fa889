// GET /api/v1/auth/session: the authentication mode and who the caller is (null when
// nobody is signed in). Needs no role: the sign-in page and the shell ask it first.
import { handleSession } from "@/server/auth/handlers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handleSession;
