// Which rank pairs a point-to-point run measures, one pair at a time while the others wait:
//   first  rank 0 with rank 1
//   ring   every rank with the next (0-1, 1-2, ..., n-1 - 0): each link of a ring, n pairs
//   all    every pair (n(n-1)/2), so one bad node pair stands out in a multi-node job
#pragma once

#include <string_view>
#include <vector>

namespace wb {

enum class PairMode { kFirst, kRing, kAll };
PairMode parse_pair_mode(std::string_view text);  // throws UsageError

struct RankPair {
  int initiator;  // sends first, owns the clock
  int responder;
  bool operator==(const RankPair&) const = default;
};

// Throws UsageError when there are fewer than 2 ranks.
std::vector<RankPair> plan_pairs(PairMode mode, int ranks);

}  // namespace wb
