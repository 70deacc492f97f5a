#!/usr/bin/env bash
# How often an MPI hangs in MPI_Finalize over the virtual cluster's TCP links: builds
# finalize_probe.c with MPICC, brings up NODES x RANKS namespace nodes, runs the probe RUNS times
# under MPIEXEC's directory first on PATH (ci/vcluster exec uses the mpiexec on PATH), each with a
# 20 s limit, and prints hung / failed / clean counts and each run's seconds. Root only.
# Usage: bench/peers/finalize_hang_rate.sh MPICC RUNS [NODES RANKS]
set -euo pipefail
cd "$(dirname "$0")/../.."
mpicc=$1 runs=$2 nodes=${3:-2} ranks=${4:-2}
bin=$(mktemp -d)
trap 'rm -rf "$bin"; ci/vcluster down >/dev/null 2>&1 || true' EXIT
"$mpicc" -O2 -o "$bin/finalize_probe" bench/peers/finalize_probe.c
mpi_bin=$(dirname "$(command -v "$mpicc")")
export PATH="$mpi_bin:$PATH"
echo "mpiexec: $(command -v mpiexec); $("$mpi_bin/mpichversion" 2>/dev/null | head -n 1 || true)"
ci/vcluster up --nodes "$nodes" --ranks "$ranks" --rate 1gbit >/dev/null
hung=0 failed=0 clean=0 times=()
for ((i = 1; i <= runs; ++i)); do
  start=$(date +%s.%N)
  rc=0
  timeout -s KILL 20 ci/vcluster exec "$bin/finalize_probe" >/dev/null 2>&1 || rc=$?
  times+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')")
  if ((rc == 137)); then hung=$((hung + 1)); pkill -KILL -f finalize_probe || true
  elif ((rc != 0)); then failed=$((failed + 1))
  else clean=$((clean + 1)); fi
done
echo "runs $runs: hung $hung, failed $failed, clean $clean; seconds: ${times[*]}"
