import { fileURLToPath } from "node:url";

import type { NextConfig } from "next";

import { API_CSP, HSTS, HTTPS_FIRST_HOP } from "./src/server/auth/csp";

// Sent with every answer: pages get their nonce CSP from src/proxy.ts, API answers a CSP
// that lets nothing load, run or frame.
const SECURITY_HEADERS = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "no-referrer" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Cross-Origin-Resource-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
];

const nextConfig: NextConfig = {
  // Several builds of one checkout can run side by side (e.g. while developing) with their own output.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  // The container image (Dockerfile) runs Next's standalone server: `pnpm --filter @fleet/web
  // build:image` builds it into .next-standalone/standalone, traced from the monorepo's root
  // so the workspace packages and their node_modules come along.
  ...(process.env.FLEET_STANDALONE === "1" ? { output: "standalone" as const, outputFileTracingRoot: fileURLToPath(new URL("../..", import.meta.url)) } : {}),
  // Internal packages ship TypeScript source; the app compiles them.
  transpilePackages: ["@fleet/backend", "@fleet/schema", "@fleet/worker"],
  // ioredis uses Node built-ins and dynamic requires: load it from node_modules at run time.
  serverExternalPackages: ["ioredis"],
  // Compression buffers small frames, which would stall the SSE stream at /api/v1/events.
  compress: false,
  poweredByHeader: false,
  reactStrictMode: true,
  async headers() {
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_CSP }] },
      // HSTS whenever the console is reached over https (a TLS proxy in front says so in
      // X-Forwarded-Proto, first hop): browsers then refuse plain http to this host for a
      // year. Sent over plain http it would be ignored (RFC 6797), so a forged header is harmless.
      { source: "/:path*", has: [{ type: "header", key: "x-forwarded-proto", value: HTTPS_FIRST_HOP }], headers: [{ key: "Strict-Transport-Security", value: HSTS }] },
    ];
  },
};

export default nextConfig;
