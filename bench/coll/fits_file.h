// fits.csv, wb-coll's alpha-beta fit per swept collective (beside results.csv): its columns, and
// a reader of the rows the cost model needs (wb-step --fits). wb-coll writes it.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

inline constexpr std::array<std::string_view, 18> kFitsColumns = {
    "bench", "op", "dtype", "case", "backend", "link_class", "ranks", "nodes", "alpha_us", "beta_us_per_byte",
    "bandwidth_GBps", "points", "peak_busbw_GBps", "peak_bytes", "bytes_at_80pct", "small_latency_us", "small_bytes",
    "extra"};

struct FitRow {
  std::string op, dtype, case_name, link_class;
  int ranks = 0;
  double alpha_us = 0, beta_us_per_byte = 0;
  long line = 0;
};

// The rows that have a fit (a sweep too short to fit leaves alpha and beta empty). Throws
// InputError naming the file and line for a missing column or a field that is not a number.
std::vector<FitRow> read_fits_csv(const std::string& path);

}  // namespace wb
