import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Internal packages ship TypeScript source; the app compiles them.
  transpilePackages: ["@fleet/backend", "@fleet/schema", "@fleet/worker"],
  // ioredis uses Node built-ins and dynamic requires: load it from node_modules at run time.
  serverExternalPackages: ["ioredis"],
  // Compression buffers small frames, which would stall the SSE stream at /api/v1/events.
  compress: false,
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
