#include "net/sweep_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/size_spec.h"

namespace wb {
namespace {

double seconds_on_wire(double bytes, const LinkModel& link) { return bytes * 8.0 / (link.rate_gbit * 1e9); }

// One measurement: warm-up, then samples until the rule is met (or, judged, until the cap).
struct MeasurementTime {
  double least = 0;
  double at_cap = 0;
};

MeasurementTime measurement_time(double batch, double overhead, const SweepShape& shape, bool judged) {
  const SamplingRule& rule = shape.sampling;
  const double per_batch = batch + overhead;
  const double warm = std::max<double>(shape.warmup_batches, std::ceil(0.1 * rule.min_seconds / per_batch));
  double timed = 0;
  if (rule.fixed_samples) {
    timed = static_cast<double>(*rule.fixed_samples);
  } else {
    timed = std::max<double>(static_cast<double>(rule.min_samples), std::ceil(rule.min_seconds / per_batch));
  }
  MeasurementTime t;
  t.least = (warm + timed) * per_batch;
  t.at_cap = t.least;
  if (judged && !rule.fixed_samples)
    t.at_cap = std::max(t.least, (warm + std::ceil(rule.cap_seconds() / per_batch)) * per_batch);
  return t;
}

std::string duration_text(double seconds) {
  char text[64];
  if (seconds < 10) std::snprintf(text, sizeof text, "%.1f s", seconds);
  else if (seconds < 120) std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 2 * 3600) std::snprintf(text, sizeof text, "%.1f min", seconds / 60);
  else if (seconds < 2 * 86400) std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  else std::snprintf(text, sizeof text, "%.1f days", seconds / 86400);
  return text;
}

// The adaptive screen (python/wirebench/report/adaptive_screen.py) on one switch: a screen round of
// n/2 pairs, every node at once; where a pair is slow, an isolate round (its nodes with healthy ones)
// and a confirm round (once more). A slow path or a transient takes more (tests/screening holds the
// schedule to these counts).
constexpr std::size_t kAdaptiveHealthyRounds = 1;
constexpr std::size_t kAdaptiveCulpritRounds = 3;

// Rounds shaped as the adaptive screen's, for their cost: the screen, then rounds of a few probes.
std::vector<PairRound> adaptive_rounds(int nodes) {
  std::vector<PairRound> rounds = random_matchings(nodes, 1, 1);
  for (std::size_t r = kAdaptiveHealthyRounds; r < kAdaptiveCulpritRounds; ++r) rounds.push_back({{0, 1}, {2, 3}});
  return rounds;
}

}  // namespace

double batch_seconds(P2pPattern pattern, std::uint64_t bytes, WindowMode window, const LinkModel& link,
                     std::uint64_t batch_bytes) {
  const BatchShape shape = batch_shape(pattern, bytes, window, batch_bytes);
  const double alpha = link.latency_us * 1e-6;
  const double message = seconds_on_wire(static_cast<double>(bytes), link);
  const double rounds = static_cast<double>(shape.rounds);
  const double in_flight = static_cast<double>(shape.window);
  switch (pattern) {
    case P2pPattern::kPingPong: return rounds * 2 * (alpha + message);
    case P2pPattern::kStreamBandwidth: return rounds * (alpha + in_flight * message + alpha);  // the window, then the ack
    case P2pPattern::kBidirectional: return rounds * (alpha + in_flight * message);  // both ways at once, full duplex
  }
  return 0;
}

SweepCost estimate_sweep(PairMode mode, const SweepShape& shape, const LinkModel& link) {
  const auto rounds = mode == PairMode::kAdaptive ? adaptive_rounds(shape.nodes)
                                                 : plan_rounds({mode, shape.nodes, shape.matchings, shape.seed, {}});
  SweepCost cost;
  cost.rounds = rounds.size();
  for (const auto& round : rounds) {
    cost.pairs += round.size();
    cost.largest_round = std::max(cost.largest_round, round.size());
  }
  const bool at_once = mode == PairMode::kAll || mode == PairMode::kBisection || mode == PairMode::kAdaptive;
  // A barrier, the gather (or reduction) of the batch times and the elapsed-time agreement.
  const double overhead = 3 * std::ceil(std::log2(std::max(shape.nodes, 2))) * 2 * link.latency_us * 1e-6;
  if (shape.sizes.empty()) return cost;
  const std::uint64_t smallest = *std::min_element(shape.sizes.begin(), shape.sizes.end());
  const std::uint64_t largest = *std::max_element(shape.sizes.begin(), shape.sizes.end());
  for (P2pPattern pattern : shape.patterns) {
    const double passes = pattern == P2pPattern::kStreamBandwidth && at_once ? 2 : 1;
    for (std::uint64_t bytes : shape.sizes) {
      if (bytes == 0 && pattern != P2pPattern::kPingPong) continue;
      const bool judged = bytes == smallest || bytes == largest;
      const double batch = batch_seconds(pattern, bytes, shape.window, link, shape.batch_bytes);
      const MeasurementTime t = measurement_time(batch, overhead, shape, judged);
      const double cases = passes * static_cast<double>(cost.rounds);
      cost.measurements += static_cast<std::uint64_t>(cases);
      cost.seconds += cases * t.least;
      cost.seconds_at_cap += cases * t.at_cap;
    }
  }
  return cost;
}

std::string sweep_plan_text(const SweepShape& shape, const LinkModel& link) {
  std::string tests, sizes;
  // Appended piece by piece (GCC 12's false -Wrestrict on "literal" + string at -O3: size_spec.cpp).
  for (P2pPattern p : shape.patterns) {
    if (!tests.empty()) tests += ',';
    tests += pattern_names(p).test;
  }
  for (std::uint64_t b : shape.sizes) {
    if (!sizes.empty()) sizes += ',';
    sizes += format_size(b);
  }
  const std::uint64_t n = static_cast<std::uint64_t>(shape.nodes);
  char line[512];
  std::string out;
  std::snprintf(line, sizeof line,
                "# wb-net --plan %d: every node pair of %d nodes (1 rank each), --tests %s at %s\n"
                "# links: %.4g Gbit/s per direction, %.4g us one way; pairs: %s\n",
                shape.nodes, shape.nodes, tests.c_str(), sizes.c_str(), link.rate_gbit, link.latency_us,
                thousands(n * (n - 1) / 2).c_str());
  out += line;
  const SamplingRule& rule = shape.sampling;
  if (rule.fixed_samples) {
    std::snprintf(line, sizeof line, "# each measurement: %d warm-up batches, then exactly %zu samples\n",
                  shape.warmup_batches, *rule.fixed_samples);
  } else {
    std::snprintf(line, sizeof line,
                  "# each measurement: %d warm-up batches (at least %.3g s), then at least %zu samples and %.3g s; the "
                  "smallest and largest size up to %.3g s while their spread is above %.3g%%\n",
                  shape.warmup_batches, 0.1 * rule.min_seconds, rule.min_samples, rule.min_seconds, rule.cap_seconds(),
                  100 * rule.max_spread);
  }
  out += line;
  out += "#\n";
  std::snprintf(line, sizeof line, "%-12s %8s %14s %15s %15s %15s\n", "--pairs", "rounds", "pairs at once",
                "measurements", "wall time", "at the cap");
  out += line;
  for (PairMode mode : {PairMode::kAll, PairMode::kAllSerial, PairMode::kBisection}) {
    const SweepCost cost = estimate_sweep(mode, shape, link);
    std::string name = pair_mode_name(mode);
    if (mode == PairMode::kBisection) name += " x" + std::to_string(shape.matchings);
    std::snprintf(line, sizeof line, "%-12s %8s %14s %15s %15s %15s\n", name.c_str(), thousands(cost.rounds).c_str(),
                  thousands(cost.largest_round).c_str(), thousands(cost.measurements).c_str(),
                  duration_text(cost.seconds).c_str(), duration_text(cost.seconds_at_cap).c_str());
    out += line;
  }
  const SweepCost adaptive = estimate_sweep(PairMode::kAdaptive, shape, link);
  const double per_round = adaptive.seconds / static_cast<double>(adaptive.rounds);
  const double per_round_at_cap = adaptive.seconds_at_cap / static_cast<double>(adaptive.rounds);
  for (std::size_t rounds : {kAdaptiveHealthyRounds, kAdaptiveCulpritRounds}) {
    const double share = static_cast<double>(rounds) / static_cast<double>(adaptive.rounds);
    std::snprintf(line, sizeof line, "%-12s %8s %14s %15s %15s %15s\n",
                  rounds == kAdaptiveHealthyRounds ? "adaptive" : "  + culprits", thousands(rounds).c_str(),
                  thousands(adaptive.largest_round).c_str(),
                  thousands(static_cast<std::uint64_t>(static_cast<double>(adaptive.measurements) * share)).c_str(),
                  duration_text(per_round * static_cast<double>(rounds)).c_str(),
                  duration_text(per_round_at_cap * static_cast<double>(rounds)).c_str());
    out += line;
  }
  out +=
      "# all: every pair once, in rounds of disjoint pairs at once (what an acceptance run uses); all-serial: one pair at\n"
      "# a time, the figure without contention; bisection: random perfect matchings (--matchings, --seed); adaptive:\n"
      "# every node in one round, then only the slow pairs' nodes against healthy ones (a healthy fleet: the first\n"
      "# round only; bad nodes: two more; a slow path or a transient: a few more), run by `wirebench run` (a step of\n"
      "# wb-net --pairs adaptive; plus a job launch per round). It sees bad nodes and routes between switches, not a\n"
      "# fault between two nodes only.\n"
      "# Batches are timed from the link model, not measured: the sampling rule, not the wire, sets most of the time at\n"
      "# small sizes.\n";
  return out;
}

}  // namespace wb
