#include "harness/case_info.h"

namespace wb {

ResultRow measured_row(const CaseInfo& info, double median_us, double p05_us, double p95_us,
                       std::uint64_t ops, std::optional<std::uint64_t> errors) {
  ResultRow row = info.row;
  row.iters = ops;
  row.time_us = median_us;
  row.time_us_p05 = p05_us;
  row.time_us_p95 = p95_us;
  // The aggregate of flows measured at once: every flow's bytes in the slowest flow's time.
  const double bytes = info.bytes_per_op * static_cast<double>(info.flows.empty() ? 1 : info.flows.size());
  row.algbw_GBps = bytes > 0 ? bandwidth_GBps(bytes, median_us) : kNotMeasured;
  row.busbw_GBps = row.algbw_GBps * info.busbw_factor;
  row.errors = errors;
  row.status = RowStatus::kOk;
  return row;
}

}  // namespace wb
