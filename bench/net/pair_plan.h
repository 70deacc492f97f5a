// Which rank pairs a point-to-point run measures, as rounds: the pairs of one round are measured
// at the same time, rounds one after another (a barrier between them).
//   first       rank 0 with rank 1
//   ring        every rank with the next (0-1, 1-2, ..., n-1 - 0), one pair at a time: n pairs
//   all         every pair exactly once in n-1 rounds of n/2 disjoint pairs (n even; n rounds
//               with one rank idle in each when n is odd): the round-robin (circle) schedule, so
//               the fabric carries many pairs at once, as a job does (ClusterKit's FULL mode)
//   all-serial  every pair (n(n-1)/2), one at a time: the figure without contention
//   bisection   K random perfect matchings (a seed picks them), every pair of a matching at once
//   alltoall    every rank streaming to every other at once (net/all_to_all_batch.h): one round
//               holding every pair, not disjoint
//   A-B,C-D     the pairs listed, disjoint, as one round at once (a schedule chosen outside, round
//               by round: the runner's adaptive screen, python/wirebench/report/adaptive_screen.py)
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace wb {

// kAdaptive is planned only (--plan): its rounds depend on what earlier rounds measured, so the runner
// chooses them and wb-net measures each as a listed round.
enum class PairMode { kFirst, kRing, kAll, kAllSerial, kBisection, kAllToAll, kListed, kAdaptive };
PairMode parse_pair_mode(std::string_view text);  // throws UsageError; "A-B,..." is kListed
const char* pair_mode_name(PairMode mode);

struct RankPair {
  int initiator;  // sends first, owns the clock
  int responder;
  bool operator==(const RankPair&) const = default;
};

using PairRound = std::vector<RankPair>;  // disjoint pairs, measured at the same time

struct PairPlanRequest {
  PairMode mode = PairMode::kFirst;
  int ranks = 2;
  int matchings = 1;        // bisection: how many random matchings
  std::uint64_t seed = 1;   // bisection: which ones
  PairRound listed;         // listed: the round
};

// "0-1,2-3": disjoint pairs of distinct ranks, the lower rank first in each. Throws UsageError.
PairRound parse_listed_pairs(std::string_view text);

// Throws UsageError when there are fewer than 2 ranks, or a listed pair names a rank there is not.
std::vector<PairRound> plan_rounds(const PairPlanRequest& request);

// The round-robin schedule alone: rounds of disjoint pairs covering every pair of `ranks` once.
std::vector<PairRound> round_robin_rounds(int ranks);
// `count` random perfect matchings of `ranks` (one rank idle in each when `ranks` is odd).
std::vector<PairRound> random_matchings(int ranks, int count, std::uint64_t seed);

}  // namespace wb
