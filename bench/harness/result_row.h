// One measured point in the common schema of every benchmark (docs/results.md).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "schema/results_columns.h"
#include "schema/versions.h"

namespace wb {

// OK: measured. SKIP: not applicable here (reason says why). ERROR: could not be measured.
enum class RowStatus { kOk, kSkip, kError };
std::string_view to_string(RowStatus status);
RowStatus parse_row_status(std::string_view text);  // throws std::invalid_argument

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

struct ResultRow {
  std::string bench;       // binary family: net, coll, p2p, host, step
  std::string case_name;   // what was measured inside the family: pingpong, stream_bw, ...
  std::string backend;     // mpi, mpi-cuda, nccl
  std::string link_class;  // nvlink, pcie, c2c, ib, roce, eth, shm, host
  std::string src, dst;    // stable names: node3/rank1, node3/gpu5
  std::string direction;   // uni, bidir
  std::string op;          // send_recv, all_reduce, ...
  std::string dtype;       // uint8, float32, ...
  std::uint64_t bytes = 0; // message size as the op sees it
  int ranks = 0, nodes = 0;
  std::uint64_t iters = 0;  // timed operations behind the statistics
  double time_us = kNotMeasured;  // median time of one operation, slowest rank
  double time_us_p05 = kNotMeasured, time_us_p95 = kNotMeasured;
  double algbw_GBps = kNotMeasured, busbw_GBps = kNotMeasured;  // 10^9 bytes/s
  // Wrong elements found by the data check; empty when the data was not checked (--check 0).
  std::optional<std::uint64_t> errors = 0;
  std::string extra;         // key=value;key=value details (batch, window, samples...)
  RowStatus status = RowStatus::kOk;
  std::string reason;        // why SKIP or ERROR
  std::uint64_t samples = 0;        // timed batches behind the statistics (harness/sampling.h)
  double spread_pct = kNotMeasured; // (p95 - p05) / median of those batches, in percent
  std::string judged;  // how the reporter judges it: METRIC@AT:AGAINST ... (harness/judging.h)
  std::string rerun;   // the command line that measures this row again, alone
};

// Column names in file order (kResultColumns) and the results schema (kResultsSchemaVersion): schema/.


// Field texts in column order; numbers in shortest round-trip form, NaN as an empty field.
std::array<std::string, kResultColumns.size()> to_fields(const ResultRow& row);

// Algorithmic bandwidth in GB/s (10^9 bytes/s) for `bytes` moved in `time_us` microseconds.
double bandwidth_GBps(double bytes, double time_us);

}  // namespace wb
