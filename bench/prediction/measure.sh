#!/usr/bin/env bash
# The step prediction's error, out of sample (issue 56): on the virtual cluster, calibrate on 2 nodes;
# at 3, 4 and 8 nodes predict every strategy's step from that calibration (wb-step --calibration),
# then from the run's own calibration at that size, each before the steps are measured.
#   bench/prediction/measure.sh OUT_DIR [ROUNDS] [BIN_DIR] [RATE]   (root; nothing else timing meanwhile)
# NODES (environment, default "3 4 8"): the sizes predicted, each round after its 2-node calibration run.
# The MPI's own environment passes through (e.g. MPICH_CH4_NETMOD=ofi FI_PROVIDER=tcp: libfabric's TCP
# provider instead of UCX's, bench/MEASUREMENTS.md "issue 56: the transport").
# RATE is each virtual link's (tc's words, default 1gbit). On 2 cores, 8 ranks at 1gbit measure the
# cores more than the wiring (bench/MEASUREMENTS.md, session 30); a slower link keeps the cores idle.
# writes OUT_DIR/r<round>-n<nodes>-<own|from2>/ (wb-step run dirs); bench/prediction/errors_table.py
# turns them into the table of docs/step-emulation.md and suites/step-prediction-errors.csv.
set -euo pipefail
out=${1:?usage: measure.sh OUT_DIR [ROUNDS] [BIN_DIR] [RATE]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${3:-$here/build/ci/bin}
rate=${4:-1gbit}
for ((r = 1; r <= rounds; r++)); do
  for n in 2 ${NODES:-3 4 8}; do
    "$here/ci/vcluster" down >/dev/null 2>&1 || true
    "$here/ci/vcluster" up --nodes "$n" --rate "$rate" >/dev/null
    for mode in own from2; do
      [[ $n == 2 && $mode == from2 ]] && continue
      dir=$out/r$r-n$n-$mode
      mkdir -p "$dir"
      extra=()
      [[ $mode == from2 ]] && extra=(--calibration "$out/r$r-n2-own/step_calibration_vc2.csv")
      "$here/ci/vcluster" exec "$bin/wb-step" --model tiny --strategy all --scale 0.1 --tflops 0.5 --link-class eth \
        --wiring "vc$n" --benchmark_min_time=0.5 --timeout 120 --run-dir "$dir" "${extra[@]}" >"$dir.out" 2>&1 ||
        echo "measure.sh: $dir failed (see $dir.out)" >&2
    done
  done
done
"$here/ci/vcluster" down >/dev/null 2>&1 || true
