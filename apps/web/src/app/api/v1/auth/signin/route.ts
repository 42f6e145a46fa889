// POST /api/v1/auth/signin {"username", "password"}: sets the signed session cookie.
import { handleSignIn } from "@/server/auth/handlers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handleSignIn;
