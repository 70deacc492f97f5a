#!/usr/bin/env bash
# Consecutive clean runs on the virtual cluster, each on a fresh cluster, for bench/MEASUREMENTS.md:
# RUNS x `wirebench run vcluster` on 3 nodes and on 2 nodes (alternating), then SBATCHES x
# `sbatch --wait -N 3 ci/templates/slurm-acceptance.sbatch` on 3 Slurm nodes. After every run:
# `ci/vcluster down`, then no wb-* / slurm / munged process and no wbnode namespace may be left.
# Prints one line per run and the counts. Root only.
# Usage: bench/peers/vcluster_soak.sh BIN_DIR RUNS SBATCHES
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1 runs=$2 sbatches=$3
work=$(mktemp -d)
trap 'ci/vcluster down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
sed 's/^  nodes: 3$/  nodes: 2/' suites/vcluster.yaml > "$work/vcluster2.yaml"
clean=0 failed=0 stray=0
leftovers() {
  { pgrep -a -f 'bin/wb-|slurmctld|slurmd|munged' || true; ip netns list | grep wbnode || true; } | grep -v pgrep || true
}
check_after() {  # NAME RC SECONDS
  ci/vcluster down >/dev/null 2>&1 || true
  local left
  left=$(leftovers)
  if [[ -n $left ]]; then stray=$((stray + 1)); echo "$1: left behind: $left"; fi
  if (($2 == 0)); then clean=$((clean + 1)); else failed=$((failed + 1)); fi
  echo "$1: exit $2, $3 s"
}
for ((i = 1; i <= runs; ++i)); do
  for suite in vcluster "$work/vcluster2.yaml"; do
    start=$SECONDS rc=0
    timeout 600 "$bin/wirebench" run "$suite" --run-dir "$work/run-$i-$(basename "$suite" .yaml)" >"$work/log" 2>&1 || rc=$?
    ((rc == 0)) || tail -5 "$work/log"
    check_after "run $i $(basename "$suite" .yaml)" "$rc" $((SECONDS - start))
  done
done
for ((i = 1; i <= sbatches; ++i)); do
  start=$SECONDS rc=0
  ci/vcluster up --nodes 3 --slurm >/dev/null
  eval "$(ci/vcluster env)"
  (cd "$work" && WB_WIREBENCH=$bin/wirebench WB_RUN_DIR=$work/sbatch-$i timeout 600 \
     sbatch --wait -N 3 --output="$work/job-$i.out" "$OLDPWD/ci/templates/slurm-acceptance.sbatch" >/dev/null) || rc=$?
  ((rc == 0)) || tail -5 "$work/job-$i.out"
  check_after "sbatch $i" "$rc" $((SECONDS - start))
done
echo "clean $clean, failed $failed, runs that left something behind $stray"
