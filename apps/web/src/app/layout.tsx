import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";

import { SessionBar } from "@/app/signin/session-bar";
import { THEME_INIT_SCRIPT } from "@/lib/theme-init";
import { AppShell, SkipLink } from "@/components/app-shell";
import { Providers } from "@/components/providers";
import { QueryProvider } from "@/lib/query";
import { SessionProvider } from "@/lib/session";
import { sessionInfo } from "@/server/auth/handlers";

import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Fleet Console", template: "%s · Fleet Console" },
  description: "Operations console for a Fleet automation cluster",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Reading the request makes every page dynamic, which the per-request CSP nonce needs
  // anyway (src/proxy.ts); the session is known from the first paint.
  const requestHeaders = await headers();
  const nonce = requestHeaders.get("x-nonce") ?? undefined;
  const session = await sessionInfo(requestHeaders, { onUnavailable: "signature" });
  // Nobody signed in: only the sign-in page is reachable (the proxy redirects the rest), and
  // it needs neither the shell nor the live stream, which would only answer 401.
  const signedOut = session.mode === "auth" && session.user === null;
  return (
    // The theme script sets class="dark" before React hydrates.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* synchronous and inline on purpose: it must run before first paint, without a request of its own */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant of this app (lib/theme-init.ts), never data */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_INIT_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        {signedOut ? (
          <QueryProvider>
            <SessionProvider initial={session}>
              <main id="main" className="mx-auto w-full max-w-7xl px-4 py-6">
                {children}
              </main>
            </SessionProvider>
          </QueryProvider>
        ) : (
          <Providers>
            <SessionProvider initial={session}>
              <SkipLink />
              <SessionBar />
              <AppShell>{children}</AppShell>
            </SessionProvider>
          </Providers>
        )}
      </body>
    </html>
  );
}
