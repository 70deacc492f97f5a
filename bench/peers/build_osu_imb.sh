#!/usr/bin/env bash
# Builds the real peers of wb-net and wb-coll outside the repository, with the mpicc on PATH (build
# them against the MPI wb-net and wb-coll link: `export PATH=$(ci/tested-mpi):$PATH` first):
#   OSU micro-benchmarks  osu_latency, osu_bw, osu_bibw (mpi/pt2pt), osu_allreduce (mpi/collective)
#   Intel MPI Benchmarks  IMB-MPI1
# Their sources come from their public repositories, unpacked anywhere but here, e.g. with the
# fetch tool's mirrors: git --git-dir=MIRROR/repo archive HEAD | tar -x -C /tmp/osu-src
# usage: bench/peers/build_osu_imb.sh OSU_SOURCE IMB_SOURCE OUT_DIR; then compare_with_osu_imb.py
#        --osu OUT_DIR --imb OUT_DIR --bin build/ci/bin
set -euo pipefail
(($# == 3)) || { echo "usage: $0 OSU_SOURCE IMB_SOURCE OUT_DIR" >&2; exit 3; }
osu=$(realpath "$1") imb=$(realpath "$2")
mkdir -p "$3" && out=$(realpath "$3")
repo=$(realpath "$(dirname "$0")/../..")
case "$out/" in "$repo"/*) echo "$0: $out is inside the repository; build the peers elsewhere" >&2; exit 3 ;; esac
for f in "$osu/mpi/pt2pt/osu_pt2pt.c" "$osu/mpi/collective/osu_coll.c" "$imb/Makefile"; do
  [[ -f $f ]] || { echo "$0: $f not found: is that the right source folder?" >&2; exit 3; }
done
command -v mpicc >/dev/null || { echo "$0: no mpicc on PATH" >&2; exit 3; }
echo "build_osu_imb: with $(command -v mpicc) ($(mpichversion 2>/dev/null | head -1 || mpicc -show))"
for b in osu_latency osu_bw osu_bibw; do
  mpicc -O2 -I"$osu/mpi/pt2pt" "$osu/mpi/pt2pt/$b.c" "$osu/mpi/pt2pt/osu_pt2pt.c" -o "$out/$b" -lm
done
mpicc -O2 -I"$osu/mpi/collective" "$osu/mpi/collective/osu_allreduce.c" "$osu/mpi/collective/osu_coll.c" \
  -o "$out/osu_allreduce" -lm
# IMB builds in its own tree: a copy, so the source stays as unpacked.
rm -rf "$out/imb-build" && cp -r "$imb" "$out/imb-build"
make -C "$out/imb-build" IMB-MPI1 CC=mpicc CXX=mpicxx -j "$(nproc)" >"$out/imb-build.log" 2>&1 ||
  { tail -20 "$out/imb-build.log" >&2; exit 1; }
cp "$out/imb-build/IMB-MPI1" "$out/"
ls -l "$out"/osu_* "$out/IMB-MPI1"
