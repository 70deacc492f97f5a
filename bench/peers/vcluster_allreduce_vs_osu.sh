#!/usr/bin/env bash
# wb-coll's all_reduce against OSU's osu_allreduce across the virtual cluster's nodes, alternating
# rounds (the cluster must be up: ci/vcluster up --nodes N --rate 1gbit). Both: float32 sum, out of
# place, blocking MPI_Allreduce, one size, the average over ranks of each rank's mean time per call
# (osu_allreduce's "Avg Latency"; wb-coll -a 1, the median of its batches). Prints each round's two
# figures and their ratio, then the median ratio (wb-coll over OSU; above 1: wb-coll slower).
# usage: bench/peers/vcluster_allreduce_vs_osu.sh OSU_BUILD_DIR WB_BIN_DIR SIZE_BYTES [ROUNDS=7] [ITERS=20]
set -euo pipefail
(($# >= 3)) || { echo "usage: $0 OSU_BUILD_DIR WB_BIN_DIR SIZE_BYTES [ROUNDS] [ITERS]" >&2; exit 3; }
osu=$(realpath "$1")/osu_allreduce wb=$(realpath "$2")/wb-coll size=$3 rounds=${4:-7} iters=${5:-20}
here=$(cd "$(dirname "$0")/../.." && pwd)
[[ -x $osu && -x $wb ]] || { echo "$0: $osu or $wb not found" >&2; exit 3; }
# OSU 5.3 rounds its first size up to a power of two and doubles from there: other sizes print no row.
((size > 0 && (size & (size - 1)) == 0)) || { echo "$0: $size is not a power of two (osu_allreduce 5.3 measures only those)" >&2; exit 3; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ratios=()
for ((r = 1; r <= rounds; r++)); do
  # OSU: -m MIN:MAX bytes, -i timed iterations, -x warm-up iterations; its row is "size  avg_us".
  o=$("$here/ci/vcluster" exec "$osu" -m "$size:$size" -i "$iters" -x 3 | awk -v s="$size" '$1 == s {print $2}')
  [[ -n $o ]] || { echo "$0: osu_allreduce printed no row for $size bytes" >&2; exit 1; }
  rm -rf "$work/wb"
  "$here/ci/vcluster" exec "$wb" --collective all_reduce --sizes "$size" --in-place no -z 1 -a 1 \
    -n "$iters" --console plain --run-dir "$work/wb" >/dev/null
  w=$(python3 -c 'import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1]["time_us"])' "$work/wb/results.csv")
  ratio=$(python3 -c "print(f'{$w / $o:.3f}')")
  ratios+=("$ratio")
  echo "round $r: osu_allreduce $o us, wb-coll $w us, ratio $ratio"
done
python3 -c 'import statistics,sys; print("median ratio (wb-coll / osu_allreduce):", statistics.median(map(float, sys.argv[1:])))' "${ratios[@]}"
