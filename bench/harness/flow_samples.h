// The samples of a case whose flows are measured at once (CaseInfo::flows: the pairs of one round
// of wb-net --pairs all, an all-to-all's ordered pairs): each flow's own per-operation times and
// sampling rule. The case takes samples until every flow's spread settles or the cap is reached,
// and writes a row per flow.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/case_info.h"
#include "harness/sampling.h"

namespace wb {

class FlowSamples {
 public:
  FlowSamples(const CaseInfo& info, std::uint64_t ops_per_batch, const SamplingRule& rule, bool judged);

  bool empty() const { return info_.flows.empty(); }
  // Flow times each rank reports besides its batch time (TimedBatch::flow_seconds()), 0 if none.
  std::size_t slots() const { return slots_; }

  // Adds one batch from every rank's seconds (and, with slots, every rank's flow times, rank after
  // rank); returns the slowest flow's seconds.
  double add(const std::vector<double>& rank_seconds, const std::vector<double>& slot_seconds);

  // True while any flow wants another sample (every flow's rule sees every sample).
  bool want_more(double elapsed_seconds);

  // A row per flow; its wrong elements are those its own ranks found (`rank_errors`, index = rank).
  std::vector<ResultRow> rows(bool checked, const std::vector<double>& rank_errors) const;

  // "src->dst" of the flow with the longest median time.
  static std::string slowest(const std::vector<ResultRow>& rows);

 private:
  const CaseInfo& info_;
  std::uint64_t ops_per_batch_;
  std::vector<std::vector<double>> per_op_us_;
  std::vector<SampleSizer> sizers_;
  std::size_t slots_ = 0;
};

}  // namespace wb
