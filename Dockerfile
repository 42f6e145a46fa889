# Fleet Console as a container: Next's standalone server on Node 20, as a non-root user.
#
#   docker build -t fleet-console .                      # the console (the default, last stage)
#   docker build --target tools -t fleet-tools .         # pnpm master / pnpm demo (docker-compose.yml)
#
# The console stage holds no build tools: only Node, the traced standalone server, its static
# assets and the supervisor. e2e/tests/image.spec.ts reads this file, assembles exactly what the
# console stage's COPY lines copy into a folder, and starts it with the stage's ENV, CMD and
# HEALTHCHECK: keep every instruction of that stage in the forms that test understands
# (COPY --from=build with /app paths, ENV KEY=VALUE, JSON-array CMD and HEALTHCHECK CMD).

FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1 CI=true
RUN npm i -g -E pnpm@12.4.2
COPY . .
RUN pnpm install --frozen-lockfile && pnpm --filter @fleet/web build:image

# pnpm master, pnpm demo: the whole workspace with its dependencies (build tools included).
FROM build AS tools
RUN groupadd --system fleet && useradd --system --gid fleet --no-create-home fleet && chown -R fleet:fleet /app
USER fleet
CMD ["pnpm", "master", "--help"]

FROM node:20-bookworm-slim AS console
WORKDIR /app
ENV NODE_ENV=production
ENV NEXT_TELEMETRY_DISABLED=1
ENV PORT=3000
ENV HOSTNAME=0.0.0.0
RUN groupadd --system fleet && useradd --system --gid fleet --no-create-home fleet
COPY --from=build --chown=fleet:fleet /app/apps/web/.next-standalone/standalone ./
COPY --from=build --chown=fleet:fleet /app/apps/web/.next-standalone/static ./apps/web/.next-standalone/static
COPY --from=build --chown=fleet:fleet /app/apps/web/scripts/supervise.mjs ./supervise.mjs
USER fleet
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "supervise.mjs", "node", "apps/web/server.js"]
