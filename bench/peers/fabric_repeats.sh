#!/usr/bin/env bash
# The fabric suite's three cases, each RUNS times on a fresh 8-node virtual cluster, for
# bench/MEASUREMENTS.md: clean, one node at half rate (--degrade 3=100mbit), one path at half rate
# (--degrade-path 2-5=100mbit). One line per run: exit code, seconds, the verdict counts and the
# culprits the report named; then whether every run of a case named the same culprits. Root only.
# Usage: bench/peers/fabric_repeats.sh BIN_DIR RUNS
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1 runs=$2
work=$(mktemp -d)
trap 'ci/vcluster down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
declare -A seen
for ((i = 1; i <= runs; ++i)); do
  for case in clean node path; do
    args=()
    [[ $case == node ]] && args=(--degrade 3=100mbit)
    [[ $case == path ]] && args=(--degrade-path 2-5=100mbit)
    start=$SECONDS rc=0
    timeout 900 "$bin/wirebench" run fabric --run-dir "$work/$case-$i" "${args[@]}" >"$work/log" 2>&1 || rc=$?
    named=$(python3 - "$work/$case-$i/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
c = s["counts"]
culprits = sorted(f"{v['culprit']}={v['verdict']}" for v in s["verdicts"] if v.get("culprit"))
print(f"{c['PASS']} PASS {c['WARN']} WARN {c['FAIL']} FAIL {c['ERROR']} ERROR; culprits: {' '.join(culprits) or 'none'}")
PY
)
    echo "$case run $i: exit $rc, $((SECONDS - start)) s, $named"
    seen[$case]+="${named#*culprits: }|"
  done
done
for case in clean node path; do
  distinct=$(tr '|' '\n' <<<"${seen[$case]}" | sed '/^$/d' | sort -u | wc -l)
  echo "$case: $distinct distinct culprit set(s) in $runs runs"
done
