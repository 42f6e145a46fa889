#!/usr/bin/env bash
# The whole suite (`pnpm test`) run several times in a row with CPU hogs beside it: the check of
# issue 18 point 2 ("passes on a 2-core machine under load, two busy loops, three times in a
# row"). Each run's summary line is printed as it ends, then one line for all of them; the exit
# code is non-zero when any run failed (or did not end with a summary line).
#
#   bash scripts/test-under-load.sh            # 3 runs, 2 busy loops
#   LOAD_RUNS=1 LOAD_HOGS=4 bash scripts/test-under-load.sh
#
# The logs go to $LOAD_LOG_DIR (default a fresh directory under /tmp), one file per run.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

RUNS="${LOAD_RUNS:-3}"
HOGS="${LOAD_HOGS:-2}"
LOG_DIR="${LOAD_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/fleet-load.XXXXXX")}"
mkdir -p "$LOG_DIR"

HOG_PIDS=()
stop_hogs() {
  for pid in "${HOG_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  HOG_PIDS=()
}
trap stop_hogs EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for _ in $(seq "$HOGS"); do
  # a busy loop in its own process: one core's worth of work each
  bash -c 'while :; do :; done' &
  HOG_PIDS+=("$!")
done
echo "load: $HOGS busy loops (pids ${HOG_PIDS[*]}), $RUNS runs of pnpm test; logs in $LOG_DIR"

failed=0
lines=()
for run in $(seq "$RUNS"); do
  log="$LOG_DIR/run-$run.log"
  started=$(date +%s)
  bash scripts/test-all.sh >"$log" 2>&1
  rc=$?
  took=$(($(date +%s) - started))
  summary="$(grep -E '^tests: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)"
  [ -n "$summary" ] || summary="tests: no summary line"
  [ "$rc" -eq 0 ] || failed=$((failed + 1))
  line="run $run/$RUNS: $summary (exit $rc, ${took} s, load average $(cut -d' ' -f1-3 /proc/loadavg))"
  lines+=("$line")
  echo "$line"
done

stop_hogs
echo
printf '%s\n' "${lines[@]}"
echo "under load: $((RUNS - failed)) of $RUNS runs passed"
[ "$failed" -eq 0 ]
