#!/usr/bin/env bash
# The whole test suite, as `pnpm test` and CI run it:
#   1. system packages (redis-server, chromium, python3-redis) when missing and we are root
#   2. a private, non-persistent redis-server on 127.0.0.1 (stopped by pid on any exit)
#   3. build (turbo run build)
#   4. gates: pnpm lint, pnpm format:check, pnpm typecheck (run-gates.mjs; one test each in the sum)
#   5. unit + integration tests of every package (turbo run test; vitest JSON reports)
#   6. browser tests (Playwright, against the production build)
# Every tier runs even when an earlier one failed. The last line is the sum of all reports:
#   tests: N passed, N failed, N skipped
# and the exit code is non-zero when anything failed, a tier's command failed, or no test ran.
# sum-test-reports.mjs knows which reports must exist (one per workspace package with test
# files); a missing, unreadable or empty one, and a skipped test (but for the Python-reference
# tests in a clone without ../shared/spec, unless FLEET_REQUIRE_PY_REFERENCE=1), count as failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1
# These would send Playwright's JSON report somewhere the summer does not look (it follows
# E2E_OUTPUT_DIR, as e2e/playwright.config.ts does).
unset PLAYWRIGHT_JSON_OUTPUT_FILE PLAYWRIGHT_JSON_OUTPUT_DIR PLAYWRIGHT_JSON_OUTPUT_NAME

log() { printf '\n==> %s\n' "$*"; }

# ---- 1. system packages ------------------------------------------------------------------
missing_system_deps() {
  command -v redis-server >/dev/null 2>&1 || return 0
  command -v redis-cli >/dev/null 2>&1 || return 0
  command -v redis-sentinel >/dev/null 2>&1 || return 0
  command -v haproxy >/dev/null 2>&1 || return 0
  [ -x /usr/bin/chromium ] || return 0
  /usr/bin/python3 -c 'import redis' >/dev/null 2>&1 || return 0
  return 1
}

if missing_system_deps; then
  if [ "$(id -u)" = 0 ]; then
    log "installing system packages (redis-server, redis-tools, redis-sentinel, haproxy, chromium, python3-redis)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq redis-server redis-tools redis-sentinel haproxy chromium python3-redis >/dev/null
  fi
  if missing_system_deps; then
    echo "error: needs redis-server, redis-cli, redis-sentinel, haproxy, /usr/bin/chromium and python3-redis;" \
      "install them: apt-get install -y redis-server redis-tools redis-sentinel haproxy chromium python3-redis" >&2
    echo "tests: 0 passed, 1 failed"
    exit 1
  fi
fi

# ---- 2. a private Redis --------------------------------------------------------------------
REDIS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/fleet-test-redis.XXXXXX")"
REDIS_PID=""

cleanup() {
  if [ -n "$REDIS_PID" ] && kill -0 "$REDIS_PID" 2>/dev/null; then
    kill "$REDIS_PID" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$REDIS_PID" 2>/dev/null || break; sleep 0.1; done
  fi
  REDIS_PID=""
  rm -rf "$REDIS_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# 6390 (or FLEET_TEST_REDIS_PORT) unless taken (another developer's Redis, say): then the next
# free one of the ten from there.
REDIS_PORT_START="${FLEET_TEST_REDIS_PORT:-6390}"
REDIS_PORT=""
for port in $(seq "$REDIS_PORT_START" $((REDIS_PORT_START + 9))); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then REDIS_PORT=$port; break; fi
done
if [ -z "$REDIS_PORT" ]; then
  echo "error: no free port for the test Redis in $REDIS_PORT_START..$((REDIS_PORT_START + 9))" >&2
  echo "tests: 0 passed, 1 failed"
  exit 1
fi

log "starting redis-server on 127.0.0.1:$REDIS_PORT (no persistence, in $REDIS_DIR)"
# --databases: one database per test suite (packages/backend/test/support/redis-dbs.ts)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no --databases 32 \
  --dir "$REDIS_DIR" --pidfile "$REDIS_DIR/redis.pid" --logfile "$REDIS_DIR/redis.log"
for _ in $(seq 100); do
  redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break
  sleep 0.1
done
REDIS_PID="$(cat "$REDIS_DIR/redis.pid" 2>/dev/null || true)"
if [ -z "$REDIS_PID" ] || ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
  echo "error: redis-server did not start; its log:" >&2
  cat "$REDIS_DIR/redis.log" >&2 2>/dev/null
  echo "tests: 0 passed, 1 failed"
  exit 1
fi


# Each suite takes its own database of this server from packages/backend/test/support/redis-dbs.ts
# (the browser tests' is 3, there too; its test checks this line).
export REDIS_TEST_URL="redis://127.0.0.1:$REDIS_PORT/0"
export E2E_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/3"

# ---- stale reports ---------------------------------------------------------------------------
find apps packages e2e scripts -path '*/node_modules' -prune -o -path '*/test-results/vitest.json' -type f -print0 2>/dev/null |
  xargs -0 rm -f
# ...and every report the summer will read, wherever it lives (E2E_OUTPUT_DIR moves Playwright's),
# so that a tier that does not run leaves its report missing rather than last run's.
while IFS= read -r report; do rm -f "$report"; done < <(node "$ROOT/scripts/sum-test-reports.mjs" --expected "$ROOT")

FAILED_TIERS=()
run_tier() {
  local name=$1
  shift
  log "$name: $*"
  "$@"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "!!! tier '$name' failed (exit $rc)"
    FAILED_TIERS+=("$name")
  fi
}

# ---- 3-6. the tiers --------------------------------------------------------------------------
run_tier build pnpm exec turbo run build
# the container image's standalone server (Dockerfile; e2e/tests/image.spec.ts assembles and runs it)
run_tier build-image pnpm --filter @fleet/web build:image
# a build into another dist dir points next-env.d.ts at it: keep the committed one
git -C "$ROOT" checkout -- apps/web/next-env.d.ts 2>/dev/null || true
# lint, format check, typecheck (after the build: the web typecheck then covers Next's route types too)
run_tier gates node "$ROOT/scripts/run-gates.mjs" "$ROOT"
# --continue: one failing package must not hide the results of the others.
# --force: results depend on a live Redis that turbo cannot hash, so never replay a cached run.
# --concurrency=1: packages share one Redis; running them one at a time keeps a FLUSHDB or a
# timing-sensitive test in one package from disturbing another.
run_tier unit+integration pnpm exec turbo run test --force --concurrency=1 --continue
# The browser tests' web server: a free port of 3210..3299 (E2E_PORT_START moves the range),
# picked right before the tier (a suite picked at its start, half an hour before Playwright
# bound it, and a second suite on the machine took the same one meanwhile), trying from a
# random place in the range, so that two suites starting together rarely try the same one.
E2E_PORT_FROM="${E2E_PORT_START:-3210}"
E2E_PORT=""
offset=$((RANDOM % 90))
for i in $(seq 0 89); do
  port=$((E2E_PORT_FROM + (offset + i) % 90))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then E2E_PORT=$port; break; fi
done
export E2E_PORT="${E2E_PORT:-$E2E_PORT_FROM}"
run_tier e2e pnpm --filter @fleet/e2e test:e2e

cleanup

# ---- summary ---------------------------------------------------------------------------------
echo
[ ${#FAILED_TIERS[@]} -gt 0 ] && echo "failed tiers: ${FAILED_TIERS[*]}"
# The summer counts a failed tier as a failure when no report shows it (a build error), and a
# missing report as one too, so the line never reads "0 failed" on a red run.
SUMMARY="$(FAILED_TIERS="${#FAILED_TIERS[@]}" node "$ROOT/scripts/sum-test-reports.mjs" "$ROOT")"
rc=$?
[ ${#FAILED_TIERS[@]} -gt 0 ] && rc=1
[ -n "$SUMMARY" ] || SUMMARY="tests: 0 passed, 1 failed"
echo "$SUMMARY"
exit $rc
