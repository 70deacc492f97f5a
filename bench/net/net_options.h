// Command line of wb-net.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/command_line.h"
#include "runner/multi_rank_benchmarks.h"
#include "net/p2p_batches.h"
#include "net/pair_plan.h"

namespace wb {

struct NetOptions {
  std::vector<std::uint64_t> sizes;          // --sizes, default 0:4MiB
  std::string size_text;                     // --sizes as given (for the decimal-units note)
  std::vector<P2pPattern> patterns;          // --tests latency,bw,bibw
  PairMode pairs = PairMode::kFirst;         // --pairs first|ring|all|all-serial|bisection|alltoall|A-B,...
  PairRound listed;                          // --pairs A-B,C-D: the round
  std::size_t round_number = 1;              // --round N: the listed round's number in its schedule
  int matchings = 3;                         // --matchings K (bisection)
  std::uint64_t seed = 1;                    // --seed S (bisection)
  std::optional<int> plan_nodes;             // --plan N: print the sweep's cost, measure nothing
  double plan_rate_gbit = 400;               // --rate GBIT/S (with --plan)
  double plan_latency_us = 2;                // --latency US (with --plan)
  std::vector<std::string> backends;         // --backend mpi|mpi-cuda|nccl|all
  std::optional<std::string> link_class;     // --link-class for pairs across nodes
  WindowMode window = WindowMode::kOsu;      // --window osu|slots
  std::uint64_t batch_bytes = kDefaultBatchBytes;  // --batch-bytes SIZE
  bool check = true;                         // --check 0|1
  bool corrupt_received = false;             // --inject-fault corrupt
  bool unwritten_echo = false;               // --inject-fault unwritten
  bool slow_batches = false;                 // --inject-fault slow
  bool crash = false;                        // --inject-fault crash
  HarnessOptions harness;

  PairPlanRequest plan_request(int ranks) const { return {pairs, ranks, matchings, seed, listed}; }
};

// Throws UsageError for anything it cannot understand.
NetOptions parse_net_options(CommandLine& args);
// --help: from the same declarations as the parser.
std::string net_help();

}  // namespace wb
