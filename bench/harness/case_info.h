// What one registered benchmark measures: everything a result row says besides the numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/result_row.h"

namespace wb {

struct CaseInfo {
  std::string name;  // Google Benchmark name, e.g. net/pingpong/mpi/rank0-rank1/4MiB
  ResultRow row;     // descriptive columns filled; numbers filled by the harness
  // Bytes one operation moves (for algbw) and nccl-tests' bus-bandwidth factor (busbw = algbw x f).
  double bytes_per_op = 0;
  double busbw_factor = 1.0;
};

// The result row of a measured case from its per-operation time statistics.
ResultRow measured_row(const CaseInfo& info, double median_us, double p05_us, double p95_us,
                       std::uint64_t ops, std::optional<std::uint64_t> errors);

}  // namespace wb
