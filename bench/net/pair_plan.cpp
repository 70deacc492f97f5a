#include "net/pair_plan.h"

#include <string>

#include "harness/errors.h"

namespace wb {

PairMode parse_pair_mode(std::string_view text) {
  if (text == "first") return PairMode::kFirst;
  if (text == "ring") return PairMode::kRing;
  if (text == "all") return PairMode::kAll;
  throw UsageError("--pairs: '" + std::string(text) + "' is not first, ring or all");
}

std::vector<RankPair> plan_pairs(PairMode mode, int ranks) {
  if (ranks < 2)
    throw UsageError("point-to-point needs at least 2 ranks, got " + std::to_string(ranks) +
                     " (start it with mpiexec -n 2 or more)");
  std::vector<RankPair> pairs;
  switch (mode) {
    case PairMode::kFirst:
      pairs.push_back({0, 1});
      break;
    case PairMode::kRing:
      for (int r = 0; r < ranks; ++r) {
        const int next = (r + 1) % ranks;
        if (ranks == 2 && r == 1) break;  // 1-0 is the same link as 0-1
        pairs.push_back({r, next});
      }
      break;
    case PairMode::kAll:
      for (int a = 0; a < ranks; ++a)
        for (int b = a + 1; b < ranks; ++b) pairs.push_back({a, b});
      break;
  }
  return pairs;
}

}  // namespace wb
