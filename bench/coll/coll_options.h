// Command line of wb-coll, in nccl-tests' words where it has them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "harness/command_line.h"
#include "harness/multi_rank_benchmarks.h"

namespace wb {

enum class Placement { kOutOfPlace, kInPlace };
enum class Split { kNone, kIntraNode, kRails };

struct CollOptions {
  std::vector<std::uint64_t> sizes;     // -b/-e/-f/-i or --sizes
  std::vector<CollOp> ops;              // --op
  std::vector<DType> dtypes;            // -d
  std::vector<RedOp> redops;            // -o
  std::vector<Placement> placements;    // --in-place both|yes|no
  int root = 0;                         // -r
  int checks = 1;                       // -c
  bool blocking = true;                 // -z (nccl-tests' meaning: 1 = blocking)
  std::optional<std::size_t> iterations;  // -n: calls per timed batch (default: by size)
  std::string backend = "mpi";          // --backend mpi|nccl
  Split split = Split::kNone;           // --split intra|rails
  std::vector<std::string> mpich_algorithms;  // --mpich-algorithm allreduce=ring (set before MPI_Init)
  std::optional<std::string> link_class;
  bool corrupt_result = false;          // --inject-fault corrupt
  bool graph = false;                   // -G 1: CUDA graph launch (nccl)
  HarnessOptions harness;
};

inline constexpr const char* kCollUsage =
    "usage: mpiexec -n N wb-coll [options] [--benchmark_* options]\n"
    "  --op LIST            all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all,\n"
    "                       send_recv, or all (default all_reduce)\n"
    "  -b SIZE -e SIZE -f F first and last size and factor (default 8 to 64MiB, x2); -i SIZE: step\n"
    "  --sizes SPEC         instead of -b/-e/-f: 8, 1M, 8:4G:2, lists\n"
    "  -d LIST              datatypes: int8 uint8 int32 uint32 int64 uint64 float16 bfloat16 float32\n"
    "                       float64 (nccl-tests' half, float, double, bf16 too), or all (default float32)\n"
    "  -o LIST              reduction ops: sum, prod, max, min, or all (default sum)\n"
    "  -r N                 root of broadcast and reduce (default 0)\n"
    "  --in-place MODE      both (default), yes, no\n"
    "  -c N                 checked runs after timing, 0 for none (default 1)\n"
    "  -z 0|1               1 blocking calls (default), 0 non-blocking calls and a wait\n"
    "  -n N                 calls per timed batch (default: 100 for small sizes, fewer for large)\n"
    "  --backend B          mpi (host buffers, default) or nccl (device buffers, one rank per GPU)\n"
    "  -G 0|1               1: capture each batch's calls as a CUDA graph and time its launches (nccl)\n"
    "  --split MODE         intra: one communicator per node; rails: one per local rank index\n"
    "  --mpich-algorithm OP=ALG  e.g. allreduce=ring: sets MPIR_CVAR_<OP>_INTRA_ALGORITHM (recorded)\n"
    "  --link-class CLASS   link class of collectives across nodes (default: read from sysfs)\n"
    "  --run-dir DIR, --timeout SECONDS, --warmup N, --inject-fault corrupt: as wb-net\n"
    "  --benchmark_min_time, --min-samples, --max-spread, --max-time: as wb-net (how many samples)\n";

// Throws UsageError for anything it cannot understand.
CollOptions parse_coll_options(CommandLine& args);

// Applies --mpich-algorithm to this process's environment; call before MPI_Init.
void apply_mpich_algorithms(const CollOptions& options);
}  // namespace wb
