// What one registered benchmark measures: everything a result row says besides the numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/result_row.h"

namespace wb {

// One of several transfers a batch times at once (the pairs of one round of wb-net --pairs all):
// a row of its own, timed by its own ranks' clocks.
struct FlowInfo {
  ResultRow row;                 // descriptive columns; numbers filled by the harness
  std::vector<int> ranks;        // the ranks that move its data (their wrong elements are its own)
  std::vector<int> clock_ranks;  // whose batch times make its time (the slower of them)
  int clock_slot = -1;           // >= 0: that entry of the clock ranks' TimedBatch::flow_seconds()
};

struct CaseInfo {
  std::string name;  // Google Benchmark name, e.g. net/pingpong/mpi/rank0-rank1/4MiB
  ResultRow row;     // descriptive columns filled; numbers filled by the harness
  // Bytes one operation moves (for algbw) and nccl-tests' bus-bandwidth factor (busbw = algbw x f).
  double bytes_per_op = 0;
  double busbw_factor = 1.0;
  // Flows measured at once: when there are any, the case writes a row per flow (bytes_per_op and
  // busbw_factor are each flow's), and its own row only when `aggregate_row` is set: then its time is the
  // slowest flow's and its bytes the flows' sum, so its bandwidth is what the fabric carried.
  std::vector<FlowInfo> flows;
  bool aggregate_row = false;
  std::vector<ResultRow> flow_results;  // filled by the harness once the case is measured
};

// The result row of a measured case from its per-operation time statistics (of a case with
// flows: their aggregate).
ResultRow measured_row(const CaseInfo& info, double median_us, double p05_us, double p95_us,
                       std::uint64_t ops, std::optional<std::uint64_t> errors);

}  // namespace wb
