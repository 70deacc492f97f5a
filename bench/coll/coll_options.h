// Command line of wb-coll, in nccl-tests' words where it has them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "comm/collective.h"
#include "harness/command_line.h"
#include "runner/multi_rank_benchmarks.h"

namespace wb {

enum class Placement { kOutOfPlace, kInPlace };
enum class Split { kNone, kIntraNode, kRails };

struct CollOptions {
  std::vector<std::uint64_t> sizes;     // -b/-e/-f/-i or --sizes
  std::string size_text;                // what the sizes were given as (for the decimal-units note)
  std::vector<CollOp> ops;              // --collective (the *_perf aliases set it)
  std::vector<DType> dtypes;            // -d
  std::vector<RedOp> redops;            // -o / --op
  std::vector<Placement> placements;    // --in-place both|yes|no
  int root = 0;                         // -r
  int checks = 1;                       // -c
  bool blocking = false;                // -z (nccl-tests' meaning and default: 0)
  std::size_t iterations = 20;          // -n: calls per timed batch (nccl-tests' iters)
  std::size_t warmup_calls = 5;         // -w: untimed calls before each measurement
  std::size_t agg_iters = 1;            // -m: calls per NCCL group (nccl)
  int graph_launches = 0;               // -G N: the batch captured as a CUDA graph, launched N times (nccl)
  bool report_cputime = false;          // -C 1: time the launches, not their completion (nccl)
  std::string backend = "mpi";          // --backend mpi|nccl
  Split split = Split::kNone;           // --split intra|rails
  std::vector<std::string> mpich_algorithms;  // --mpich-algorithm allreduce=ring (set before MPI_Init)
  std::optional<std::string> link_class;
  bool corrupt_result = false;          // --inject-fault corrupt
  HarnessOptions harness;               // -T is --timeout, -a the harness's rank time, -J its JSON
  // Called by one of nccl-tests' names (all_reduce_perf, ...): nccl-tests' behaviour. Exactly -w
  // untimed calls before each size, a fixed count of timed batches (no minimum time), and no files
  // unless --run-dir asks for them.
  bool as_nccl_tests = false;
  // nccl-tests' names wirebench takes but does not measure yet (-o avg/mulsum, -d f8e4m3/f8e5m2):
  // their cases are SKIP rows with the reason, as nccl-tests' own types that a NCCL lacks are.
  std::vector<std::string> unmeasured_redops, unmeasured_dtypes;
};

// Why a reduction or type that nccl-tests knows has no figure from wb-coll on `backend`.
std::string unmeasured_reason(const std::string& name, const std::string& backend);

// Why an average of `dtype` over `ranks` cannot be checked exactly (1/ranks is not exact in a
// floating type unless ranks is a power of two), or "" when it can.
std::string inexact_average_reason(DType dtype, int ranks);

// Throws UsageError for anything it cannot understand. `program` is how wb-coll was called: an
// alias such as all_reduce_perf selects its collective (an explicit --collective still wins).
CollOptions parse_coll_options(CommandLine& args);
// --help: from the same declarations as the parser.
std::string coll_help(const std::string& program = "wb-coll");
// The collective an alias (all_reduce_perf, sendrecv_perf, ...) stands for; "" for wb-coll itself.
std::string collective_of_alias(const std::string& program);

// Applies --mpich-algorithm to this process's environment; call before MPI_Init.
void apply_mpich_algorithms(const CollOptions& options);
}  // namespace wb
