// wb-net --plan N: what a sweep of N nodes costs before anyone books the cluster. The schedule
// (net/pair_plan.h) gives the measurements; each takes what the harness's sampling rule gives it
// (harness/sampling.h: warm-up, at least --min-samples batches and --benchmark_min_time, judged
// sizes up to --max-time while their spread is above --max-spread), and a batch takes what an
// alpha-beta link gives its messages (one-way latency alpha, the port's rate). Connection set-up
// falls in the warm-up batches; the harness's own agreement per sample (a barrier and two
// reductions of ~log2 N steps of alpha) is added to every batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/sampling.h"
#include "net/p2p_batches.h"
#include "net/pair_plan.h"

namespace wb {

struct LinkModel {
  double rate_gbit = 400;   // per direction
  double latency_us = 2;    // one way, small message
};

struct SweepShape {
  int nodes = 2;
  std::vector<P2pPattern> patterns;
  std::vector<std::uint64_t> sizes;
  WindowMode window = WindowMode::kOsu;
  std::uint64_t batch_bytes = kDefaultBatchBytes;
  SamplingRule sampling;
  int warmup_batches = 2;
  int matchings = 3;
  std::uint64_t seed = 1;
};

struct SweepCost {
  std::size_t rounds = 0;           // rounds of the schedule (one pair each when serial)
  std::size_t pairs = 0;            // pair measurements per pattern and size
  std::size_t largest_round = 0;    // pairs measured at once
  std::uint64_t measurements = 0;   // cases the harness measures (rounds x passes x sizes x tests)
  double seconds = 0;               // wall time when every spread settles at once
  double seconds_at_cap = 0;        // wall time when every judged size runs to --max-time
};

// Seconds one timed batch takes on `link` (the harness's batch shapes, net/p2p_batches.h).
double batch_seconds(P2pPattern pattern, std::uint64_t bytes, WindowMode window, const LinkModel& link,
                     std::uint64_t batch_bytes = kDefaultBatchBytes);

SweepCost estimate_sweep(PairMode mode, const SweepShape& shape, const LinkModel& link);

// The table --plan prints: the three schedules side by side, with the assumptions.
std::string sweep_plan_text(const SweepShape& shape, const LinkModel& link);

}  // namespace wb
