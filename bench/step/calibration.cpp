#include "step/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "harness/statistics.h"

namespace wb::step {

CollectiveCosts calibrate(const std::vector<Program>& programs, MpiStepExecutor& executor, MpiControl& control,
                          double scale, std::vector<CalibrationPoint>* measured) {
  // The largest call of each (collective, group, element size) the steps will make.
  std::map<std::tuple<CollOp, Group, int>, std::uint64_t> largest;
  for (const Program& p : programs)
    for (const Op& op : p.ops) {
      if (op.kind != OpKind::kCollective) continue;
      const int n = p.group_sizes[static_cast<int>(op.group)];
      if (n <= 1) continue;
      auto& top = largest[{op.collective, op.group, op.element_bytes}];
      top = std::max(top, scaled_bytes(op, n, scale));
    }
  constexpr int kRuns = 5;
  constexpr double kFactor = 4;
  constexpr int kSizes = 6;  // the largest size and five below it, each a quarter of the next
  CollectiveCosts costs;
  for (const auto& [key, top] : largest) {
    const auto [collective, group, element_bytes] = key;
    const int n = executor.group_size(group);
    CalibrationPoint c{collective, group, n, element_bytes, {}, {}};
    Program probe;
    probe.ranks = n;
    probe.group_sizes[static_cast<int>(group)] = n;
    std::set<std::uint64_t> seen;
    for (int k = kSizes - 1; k >= 0; --k) {
      Op op;
      op.kind = OpKind::kCollective;
      op.collective = collective;
      op.group = group;
      op.element_bytes = element_bytes;
      op.bytes = static_cast<std::uint64_t>(static_cast<double>(top) / std::pow(kFactor, k));
      op.label = "calibration " + std::string(describe(collective).name);
      const std::uint64_t bytes = scaled_bytes(op, n, 1.0);
      if (!seen.insert(bytes).second) continue;
      probe.ops = {op};
      executor.run(probe, 1.0);  // warm-up; the sizes are already scaled
      std::vector<double> times;
      for (int r = 0; r < kRuns; ++r) {
        control.barrier();
        const Timeline t = executor.run(probe, 1.0);
        times.push_back(control.max(t.ops[0].end_us - t.ops[0].start_us));
      }
      c.points.push_back({bytes, summarize(times).median, 0});
    }
    if (auto fit = fit_alpha_beta(c.points)) {
      c.fit = *fit;
      costs.add_fit(collective, n, *fit, static_cast<int>(group), element_bytes);
    } else if (!c.points.empty()) {
      // Too few distinct sizes to fit (a tiny model): the time per byte of the largest call.
      const SweepPoint& p = *std::max_element(c.points.begin(), c.points.end(),
                                              [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
      c.fit.beta_us_per_byte = p.time_us / static_cast<double>(p.bytes);
      c.fit.points = c.points.size();
      costs.add_fit(collective, n, c.fit, static_cast<int>(group), element_bytes);
    }
    if (measured) measured->push_back(std::move(c));
  }
  return costs;
}

}  // namespace wb::step
