// Next 16's proxy (formerly middleware), for pages only: a request naming a host the console
// does not serve is refused (DNS rebinding, src/server/auth/hosts.ts), a fresh CSP nonce per
// request, and, when authentication is on, a browser without a valid session (or trusted
// proxy headers) is sent to /signin. The API is not matched: every route checks its own host
// and role (src/server/api/authorize.ts); nor are the real static assets, which need neither.
import { randomBytes } from "node:crypto";

import { NextResponse, type NextRequest } from "next/server";

import { safeNext } from "@/app/signin/safe-next";
import { authConfig } from "@/server/auth/config";
import { API_CSP, pageCsp } from "@/server/auth/csp";
import { hostProblem, misdirectedMessage } from "@/server/auth/hosts";
import { identify } from "@/server/auth/identify";

const PUBLIC_PAGES = new Set(["/signin"]);

export function proxy(request: NextRequest): NextResponse {
  const { pathname, search } = request.nextUrl;
  const config = authConfig();
  const misdirected = hostProblem(request.headers, request.url, config.allowedHosts);
  if (misdirected !== null) {
    return new NextResponse(`${misdirectedMessage(misdirected)}\n`, {
      status: 421,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": API_CSP },
    });
  }
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

/**
 * Every path but the API and the real static assets: Next's build output under
 * /_next/static/ (without a `..` in it); the app has no public/ files (a new one is added
 * here). Never a pattern on the path's shape (`.*\\.png$`): a page URL can
 * end in anything (`/workers/scraper/w1.png` is worker `w1.png`). Next tests the matcher on
 * the raw and the decoded path and runs the proxy if either matches, after resolving `.`,
 * `..` (also `%2e%2e`) and repeated slashes.
 */
export const config = {
  matcher: ["/((?!api/|_next/static/(?!.*\\.\\.)).*)"],
};
