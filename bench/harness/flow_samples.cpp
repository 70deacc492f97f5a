#include "harness/flow_samples.h"

#include <algorithm>

#include "harness/statistics.h"

namespace wb {

FlowSamples::FlowSamples(const CaseInfo& info, std::uint64_t ops_per_batch, const SamplingRule& rule, bool judged)
    : info_(info), ops_per_batch_(ops_per_batch), per_op_us_(info.flows.size()),
      sizers_(info.flows.size(), SampleSizer(rule, judged)) {
  for (const FlowInfo& flow : info.flows) slots_ = std::max(slots_, static_cast<std::size_t>(flow.clock_slot + 1));
}

double FlowSamples::add(const std::vector<double>& rank_seconds, const std::vector<double>& slot_seconds) {
  double slowest = 0;
  for (std::size_t f = 0; f < info_.flows.size(); ++f) {
    const FlowInfo& flow = info_.flows[f];
    double seconds = 0;
    for (int r : flow.clock_ranks) {
      const auto rank = static_cast<std::size_t>(r);
      seconds = std::max(seconds, flow.clock_slot < 0
                                      ? rank_seconds.at(rank)
                                      : slot_seconds.at(rank * slots_ + static_cast<std::size_t>(flow.clock_slot)));
    }
    per_op_us_[f].push_back(seconds / static_cast<double>(ops_per_batch_) * 1e6);
    slowest = std::max(slowest, seconds);
  }
  return slowest;
}

bool FlowSamples::want_more(double elapsed_seconds) {
  bool more = false;
  for (std::size_t f = 0; f < sizers_.size(); ++f) more = sizers_[f].wants_more(per_op_us_[f], elapsed_seconds) || more;
  return more;
}

std::vector<ResultRow> FlowSamples::rows(bool checked, const std::vector<double>& rank_errors) const {
  std::vector<ResultRow> out;
  for (std::size_t f = 0; f < info_.flows.size(); ++f) {
    const FlowInfo& flow = info_.flows[f];
    CaseInfo one;
    one.row = flow.row;
    one.bytes_per_op = info_.bytes_per_op;
    one.busbw_factor = info_.busbw_factor;
    std::uint64_t errors = 0;
    for (int r : flow.ranks) errors += static_cast<std::uint64_t>(rank_errors.at(static_cast<std::size_t>(r)));
    const Summary s = summarize(per_op_us_[f]);
    ResultRow row = measured_row(one, s.median, s.p05, s.p95, per_op_us_[f].size() * ops_per_batch_,
                                 checked ? std::optional(errors) : std::nullopt);
    row.samples = per_op_us_[f].size();
    row.spread_pct = 100 * s.relative_spread;
    out.push_back(std::move(row));
  }
  return out;
}

std::string FlowSamples::slowest(const std::vector<ResultRow>& rows) {
  const auto worst = std::max_element(rows.begin(), rows.end(),
                                      [](const ResultRow& a, const ResultRow& b) { return a.time_us < b.time_us; });
  return worst == rows.end() ? std::string("none") : worst->src + "->" + worst->dst;
}

}  // namespace wb
