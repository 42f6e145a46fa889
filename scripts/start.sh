#!/usr/bin/env bash
# `pnpm start`: the console's production server. Builds first when there is no build or
# the sources changed since the last one. Backend: FLEET_BACKEND_URL (default memory://demo,
# an in-memory demo fleet); PORT (default 3000); HOST (default 127.0.0.1; 0.0.0.0 to serve
# other machines).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1
export FLEET_BACKEND_URL="${FLEET_BACKEND_URL:-memory://demo}"
PORT="${PORT:-3000}"
HOST="${HOST:-127.0.0.1}"

BUILD_ID="apps/web/.next/BUILD_ID"
needs_build() {
  [ -f "$BUILD_ID" ] || return 0
  # Any source or config file newer than the last build.
  [ -n "$(find apps/web packages -path '*/node_modules' -prune -o -path '*/.next' -prune -o -path '*/.next-*' -prune -o \
    -path '*/test-results' -prune -o -type f -newer "$BUILD_ID" -print -quit)" ]
}

if needs_build; then
  echo "building the console (first start, or sources changed)..."
  pnpm exec turbo run build --filter=@fleet/web...
fi

# Credentials masked, as the console itself shows them (a password may hold `@`).
# shellcheck source=mask-url.sh
. "$ROOT/scripts/mask-url.sh"
shown_url="$(mask_url "$FLEET_BACKEND_URL")"
shown_host="$HOST"
[ "$HOST" = "0.0.0.0" ] && shown_host=localhost
echo "Fleet Console: http://$shown_host:$PORT  (backend $shown_url)"

cd apps/web
exec pnpm exec next start -p "$PORT" -H "$HOST"
