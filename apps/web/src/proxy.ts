// Next 16's proxy (formerly middleware), for pages only: a fresh CSP nonce per request,
// and, when authentication is on, a browser without a valid session (or trusted proxy
// headers) is sent to /signin. The API is not matched: every route checks its own role
// (src/server/api/authorize.ts), and static assets need neither.
import { randomBytes } from "node:crypto";

import { NextResponse, type NextRequest } from "next/server";

import { safeNext } from "@/app/signin/safe-next";
import { authConfig } from "@/server/auth/config";
import { pageCsp } from "@/server/auth/csp";
import { identify } from "@/server/auth/identify";

const PUBLIC_PAGES = new Set(["/signin"]);

export function proxy(request: NextRequest): NextResponse {
  const { pathname, search } = request.nextUrl;
  const config = authConfig();
  if (config.enabled && !PUBLIC_PAGES.has(pathname)) {
    const id = identify(request.headers, Math.floor(Date.now() / 1000), config);
    if (id.kind !== "principal") {
      const to = new URL("/signin", request.url);
      to.search = "";
      if (pathname !== "/") to.searchParams.set("next", safeNext(`${pathname}${search}`));
      return NextResponse.redirect(to, 303);
    }
  }

  const nonce = randomBytes(16).toString("base64");
  const csp = pageCsp(nonce, process.env.NODE_ENV === "development");
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = {
  matcher: ["/((?!api/|_next/static/|_next/image|favicon\\.ico|theme-init\\.js|.*\\.(?:png|svg|ico|txt|webmanifest|map)$).*)"],
};
