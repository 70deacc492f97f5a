#include "net/pair_plan.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>
#include <random>
#include <set>
#include <string>

#include "harness/errors.h"

namespace wb {

PairMode parse_pair_mode(std::string_view text) {
  if (text == "first") return PairMode::kFirst;
  if (text == "ring") return PairMode::kRing;
  if (text == "all") return PairMode::kAll;
  if (text == "all-serial") return PairMode::kAllSerial;
  if (text == "bisection") return PairMode::kBisection;
  if (text == "alltoall") return PairMode::kAllToAll;
  if (text == "adaptive") return PairMode::kAdaptive;
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text.front()))) {
    parse_listed_pairs(text);  // its errors are the user's
    return PairMode::kListed;
  }
  throw UsageError("--pairs: '" + std::string(text) +
                   "' is not first, ring, all, all-serial, bisection, alltoall, adaptive or a list of rank pairs (0-1,2-3)");
}

PairRound parse_listed_pairs(std::string_view text) {
  PairRound round;
  std::set<int> seen;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    const std::size_t dash = item.find('-');
    auto rank = [&](std::string_view digits) {
      int value = -1;
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || value < 0)
        throw UsageError("--pairs: '" + std::string(item) + "' is not a pair of ranks A-B (as in 0-1,2-3)");
      return value;
    };
    if (dash == std::string_view::npos) rank({});
    const int a = rank(item.substr(0, dash)), b = rank(item.substr(dash + 1));
    if (a == b) throw UsageError("--pairs: '" + std::string(item) + "' pairs a rank with itself");
    for (int r : {a, b})
      if (!seen.insert(r).second)
        throw UsageError("--pairs: rank " + std::to_string(r) + " is in two pairs; a round's pairs are disjoint");
    round.push_back({std::min(a, b), std::max(a, b)});
    at = comma + 1;
  }
  return round;
}

const char* pair_mode_name(PairMode mode) {
  switch (mode) {
    case PairMode::kFirst: return "first";
    case PairMode::kRing: return "ring";
    case PairMode::kAll: return "all";
    case PairMode::kAllSerial: return "all-serial";
    case PairMode::kBisection: return "bisection";
    case PairMode::kAllToAll: return "alltoall";
    case PairMode::kListed: return "listed";
    case PairMode::kAdaptive: return "adaptive";
  }
  return "?";
}

std::vector<PairRound> round_robin_rounds(int ranks) {
  // The circle method: with an even count m (a phantom rank m-1 added when `ranks` is odd), rank
  // m-1 stays put and the others turn one place per round; round r pairs m-1 with r and (r+k)
  // with (r-k) mod (m-1). Every pair meets exactly once in m-1 rounds. The lower rank initiates.
  const int m = ranks % 2 == 0 ? ranks : ranks + 1;
  const int turning = m - 1;
  std::vector<PairRound> rounds;
  rounds.reserve(static_cast<std::size_t>(turning));
  for (int r = 0; r < turning; ++r) {
    PairRound round;
    auto add = [&](int a, int b) {
      if (a >= ranks || b >= ranks) return;  // the phantom: its partner sits this round out
      round.push_back({std::min(a, b), std::max(a, b)});
    };
    add(turning, r);
    for (int k = 1; k < m / 2; ++k) add((r + k) % turning, (r - k + turning) % turning);
    std::sort(round.begin(), round.end(), [](const RankPair& x, const RankPair& y) { return x.initiator < y.initiator; });
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<PairRound> random_matchings(int ranks, int count, std::uint64_t seed) {
  // A Fisher-Yates shuffle on mt19937_64's own output (std::shuffle's use of the engine is left to
  // each standard library), so every rank and every build draws the same matchings from a seed.
  std::mt19937_64 engine(seed);
  std::vector<PairRound> rounds;
  std::vector<int> order(static_cast<std::size_t>(ranks));
  for (int k = 0; k < count; ++k) {
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[engine() % (i + 1)]);
    PairRound round;
    for (std::size_t i = 0; i + 1 < order.size(); i += 2)
      round.push_back({std::min(order[i], order[i + 1]), std::max(order[i], order[i + 1])});
    std::sort(round.begin(), round.end(), [](const RankPair& x, const RankPair& y) { return x.initiator < y.initiator; });
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<PairRound> plan_rounds(const PairPlanRequest& request) {
  const int ranks = request.ranks;
  if (ranks < 2)
    throw UsageError("point-to-point needs at least 2 ranks, got " + std::to_string(ranks) +
                     " (start it with mpiexec -n 2 or more)");
  std::vector<PairRound> rounds;
  switch (request.mode) {
    case PairMode::kFirst:
      rounds.push_back({{0, 1}});
      break;
    case PairMode::kRing:
      for (int r = 0; r < ranks; ++r) {
        if (ranks == 2 && r == 1) break;  // 1-0 is the same link as 0-1
        rounds.push_back({{r, (r + 1) % ranks}});
      }
      break;
    case PairMode::kAllSerial:
      for (int a = 0; a < ranks; ++a)
        for (int b = a + 1; b < ranks; ++b) rounds.push_back({{a, b}});
      break;
    case PairMode::kAll:
      rounds = round_robin_rounds(ranks);
      break;
    case PairMode::kAllToAll: {
      PairRound everyone;
      for (int a = 0; a < ranks; ++a)
        for (int b = a + 1; b < ranks; ++b) everyone.push_back({a, b});
      rounds.push_back(std::move(everyone));
      break;
    }
    case PairMode::kBisection:
      if (request.matchings < 1) throw UsageError("--matchings: at least 1");
      rounds = random_matchings(ranks, request.matchings, request.seed);
      break;
    case PairMode::kListed:
      for (const RankPair& pair : request.listed)
        if (pair.responder >= ranks)
          throw UsageError("--pairs: rank " + std::to_string(pair.responder) + " is not one of the " +
                           std::to_string(ranks) + " ranks");
      rounds.push_back(request.listed);
      break;
    case PairMode::kAdaptive:
      throw UsageError("--pairs adaptive chooses each round from the last one's figures: a wirebench run step "
                       "(`wb-net --pairs adaptive` in a suite) runs it, wb-net measuring each round as --pairs A-B,...; "
                       "wb-net --plan N --pairs adaptive estimates it");
  }
  return rounds;
}

}  // namespace wb
