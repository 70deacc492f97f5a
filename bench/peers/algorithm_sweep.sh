#!/usr/bin/env bash
# all_reduce under MPICH's ring and recursive doubling on 2, 4 and 8 namespace nodes, 8 B to 64 MiB,
# for bench/MEASUREMENTS.md: each node count on a fresh virtual cluster at RATE, small sizes with
# 50 calls a batch, large ones with one (UCX's eager protocol and MPICH's progress throttle, as
# suites/algorithms.yaml says why);
# then `wirebench model` fits the link on ring per node count and predicts recursive doubling.
# Usage: bench/peers/algorithm_sweep.sh BIN_DIR OUT_DIR [RATE] [NODE COUNTS...]   (root)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1 out=$2 rate=${3:-200mbit}
shift $(( $# < 3 ? $# : 3 ))
counts=("$@")
[[ ${#counts[@]} -eq 0 ]] && counts=(2 4 8)
mkdir -p "$out"
trap 'ci/vcluster down >/dev/null 2>&1 || true' EXIT
for nodes in "${counts[@]}"; do
  ci/vcluster down >/dev/null 2>&1 || true
  ci/vcluster up --nodes "$nodes" --rate "$rate" >/dev/null
  # More ranks than cores: MPICH's progress throttle, so a rank waiting for a message gives its
  # core to the rank that sends it (suites/algorithms.yaml); with a core per rank it would only add
  # its usleep to every message.
  throttle=()
  ((nodes > $(nproc))) && throttle=(MPIR_CVAR_CH4_PROGRESS_THROTTLE=1 MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=10)
  # Alternated: small sizes twice each way, large once.
  for run in small:1 small:2 large:1; do
    part=${run%:*}
    for algorithm in ring recursive_doubling; do
      if [[ $part == small ]]; then sizes=8,1K,8K,16K,32K,64K; iters=(-n 50 --min-samples 10 -w 2)
      else sizes=128K,1M,8M,64M; iters=(-n 1 --min-samples 3 -w 1); fi
      start=$SECONDS
      env UCX_RNDV_THRESH=inf "${throttle[@]}" timeout 900 ci/vcluster exec "$bin/wb-coll" --collective all_reduce \
        --mpich-algorithm "allreduce=$algorithm" --sizes "$sizes" "${iters[@]}" -z 1 --in-place no \
        --link-class eth --timeout 200 --run-dir "$out/n$nodes-$algorithm-${run/:/-}" >/dev/null
      echo "$nodes nodes, $algorithm, $run: $((SECONDS - start)) s${throttle:+ (progress throttled)}"
    done
  done
  merged="$out/n$nodes.csv"
  head -1 "$out/n$nodes-ring-small-1/results.csv" > "$merged"
  for f in "$out"/n"$nodes"-*/results.csv; do tail -n +2 "$f" >> "$merged"; done
  "$bin/wirebench" model --results "$merged" --fitted ring --csv "$out/n$nodes-model.csv"
done
