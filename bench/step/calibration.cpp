#include "step/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "harness/statistics.h"

namespace wb::step {

CollectiveCosts calibrate(const std::vector<Program>& programs, StepExecutor& executor, MpiControl& control,
                          double scale, std::vector<CalibrationPoint>* measured) {
  // The smallest and largest call of each (collective, group, element size) the steps will make:
  // the sweep covers that range, so the fit describes the sizes that matter.
  std::map<std::tuple<CollOp, Group, int>, std::pair<std::uint64_t, std::uint64_t>> range;
  for (const Program& p : programs)
    for (const Op& op : p.ops) {
      if (op.kind != OpKind::kCollective) continue;
      const int n = p.group_sizes[static_cast<int>(op.group)];
      if (n <= 1) continue;
      const std::uint64_t bytes = scaled_bytes(op, n, scale);
      auto [it, added] = range.try_emplace({op.collective, op.group, op.element_bytes}, bytes, bytes);
      it->second.first = std::min(it->second.first, bytes);
      it->second.second = std::max(it->second.second, bytes);
    }
  constexpr int kRuns = 6;
  constexpr int kSizes = 8;  // geometric from the smallest call to the largest, at least a factor 64 apart
  CollectiveCosts costs;
  for (const auto& [key, sizes] : range) {
    const std::uint64_t top = sizes.second;
    const double bottom = std::min(static_cast<double>(sizes.first), static_cast<double>(top) / 64);
    const double factor = std::pow(static_cast<double>(top) / std::max(bottom, 1.0), 1.0 / (kSizes - 1));
    const auto [collective, group, element_bytes] = key;
    const int n = executor.group_size(group);
    CalibrationPoint queued{collective, group, n, element_bytes, CallContext::kQueued, {}, {}};
    CalibrationPoint isolated{collective, group, n, element_bytes, CallContext::kIsolated, {}, {}};
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
      op.bytes = static_cast<std::uint64_t>(static_cast<double>(top) / std::pow(factor, k));
      op.label = "calibration " + std::string(describe(collective).name);
      const std::uint64_t bytes = scaled_bytes(op, n, 1.0);
      if (!seen.insert(bytes).second) continue;
      // Queued: calls back to back, as a step makes them: a lone call after a pause would ride a
      // link's idle burst allowance (a token bucket's) and look faster than the same call in a step.
      // The first call is left out; the median of the rest, slowest rank.
      probe.ops.assign(kRuns + 1, op);
      control.barrier();
      const Timeline t = executor.run(probe, 1.0);  // the sizes are already scaled
      std::vector<double> times;
      for (int r = 1; r <= kRuns; ++r) times.push_back(t.ops[static_cast<std::size_t>(r)].end_us - t.ops[static_cast<std::size_t>(r)].start_us);
      queued.points.push_back({bytes, control.max(summarize(times).median), 0});
      // Isolated: one call after every rank met, as a step's call on an idle communicator starts.
      probe.ops.assign(1, op);
      times.clear();
      for (int r = 0; r <= kRuns; ++r) {
        control.barrier();
        const Timeline one = executor.run(probe, 1.0);
        if (r > 0) times.push_back(one.ops[0].end_us - one.ops[0].start_us);
      }
      isolated.points.push_back({bytes, control.max(summarize(times).median), 0});
    }
    for (CalibrationPoint* c : {&queued, &isolated}) {
      if (auto fit = fit_alpha_beta(c->points)) {
        c->fit = *fit;
        costs.add_sweep(collective, n, c->points, *fit, static_cast<int>(group), element_bytes, c->context);
      } else if (!c->points.empty()) {
        // Too few distinct sizes to fit (a tiny model): the time per byte of the largest call.
        const SweepPoint& p = *std::max_element(c->points.begin(), c->points.end(),
                                                [](const auto& x, const auto& y) { return x.bytes < y.bytes; });
        c->fit.beta_us_per_byte = p.time_us / static_cast<double>(p.bytes);
        c->fit.points = c->points.size();
        costs.add_fit(collective, n, c->fit, static_cast<int>(group), element_bytes, c->context);
      }
    }
    if (measured) {
      measured->push_back(std::move(queued));
      measured->push_back(std::move(isolated));
    }
  }
  return costs;
}

}  // namespace wb::step
