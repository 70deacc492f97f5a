// Command line of wb-net.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/command_line.h"
#include "harness/multi_rank_benchmarks.h"
#include "net/p2p_batches.h"
#include "net/pair_plan.h"

namespace wb {

struct NetOptions {
  std::vector<std::uint64_t> sizes;          // --sizes, default 0:4MiB
  std::vector<P2pPattern> patterns;          // --tests latency,bw,bibw
  PairMode pairs = PairMode::kFirst;         // --pairs first|ring|all
  std::vector<std::string> backends;         // --backend mpi|mpi-cuda|nccl|all
  std::optional<std::string> link_class;     // --link-class for pairs across nodes
  bool check = true;                         // --check 0|1
  bool corrupt_received = false;             // --inject-fault corrupt
  bool unwritten_echo = false;               // --inject-fault unwritten
  bool slow_batches = false;                 // --inject-fault slow
  HarnessOptions harness;
};

inline constexpr const char* kNetUsage =
    "usage: mpiexec -n N wb-net [options] [--benchmark_* options]\n"
    "  --sizes SPEC         message sizes: 8, 4K, 256MiB, ranges 8:4M[:F|:+STEP], lists (default 0:4MiB)\n"
    "  --tests LIST         latency,bw,bibw (default all three)\n"
    "  --pairs MODE         first | ring | all (default first)\n"
    "  --backend LIST       mpi, mpi-cuda (CUDA-aware MPI on device buffers), nccl, or all (default mpi)\n"
    "  --link-class CLASS   link class of pairs on different nodes (default: read from sysfs)\n"
    "  --run-dir DIR        where results.csv and meta.json go (default .)\n"
    "  --timeout SECONDS    longest any wait may take before the run is aborted (default 60)\n"
    "  --warmup N           untimed batches before each measurement (default 2, and a tenth of the\n"
    "                       minimum time)\n"
    "  --benchmark_min_time SECONDS|Nx  the least each measurement takes (default 0.5; Nx: exactly N samples)\n"
    "  --min-samples N      the fewest timed batches behind a figure (default 5)\n"
    "  --max-spread PCT     the smallest and largest size of a sweep take samples until (p95-p05)/median\n"
    "                       is at most PCT percent (default 2) ...\n"
    "  --max-time SECONDS   ... or this time is spent (default twice the minimum time)\n"
    "  --check 0|1          verify received bytes (default 1: all of every stream or bidirectional\n"
    "                       message, and each ping-pong batch's last echo, which carries any earlier\n"
    "                       corruption on); 0 leaves errors empty\n"
    "  --inject-fault corrupt     flip one received byte per batch (tests the data check)\n"
    "  --inject-fault unwritten   ping-pong only: the checked echo is never written (tests the check)\n"
    "  --inject-fault slow        every batch takes twice its time: a link at half rate (tests the verdicts)\n"
    "Google Benchmark's --benchmark_filter, --benchmark_repetitions,\n"
    "--benchmark_out and --benchmark_format work as usual; only rank 0 prints and writes.\n";

// Throws UsageError for anything it cannot understand.
NetOptions parse_net_options(CommandLine& args);

}  // namespace wb
