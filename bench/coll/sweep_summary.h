// What a size sweep of one collective says in a few numbers: peak bus bandwidth, the smallest
// size that reaches 80% of it, small-message latency; and the latency-bandwidth (alpha, beta)
// fit t(n) = alpha + n beta that the cost model uses (docs/step-emulation.md: beta by least squares on
// the large-message half, alpha from the small-message half).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace wb {

struct SweepPoint {
  std::uint64_t bytes = 0;
  double time_us = 0;
  double busbw_GBps = 0;
};

struct SweepSummary {
  double peak_busbw_GBps = 0;
  std::uint64_t peak_bytes = 0;
  std::optional<std::uint64_t> bytes_at_80pct;  // smallest size with busbw >= 80% of the peak
  double small_latency_us = 0;                 // time at the smallest size
  std::uint64_t small_bytes = 0;
};

struct AlphaBeta {
  double alpha_us = 0;          // per-operation latency
  double beta_us_per_byte = 0;  // 1 / bandwidth
  std::size_t points = 0;
  double bandwidth_GBps() const { return beta_us_per_byte > 0 ? 1e-3 / beta_us_per_byte : 0; }
};

// Empty input gives a zero summary. Points need not be sorted.
SweepSummary summarize_sweep(std::vector<SweepPoint> points);
// Needs at least 4 points of at least 2 different sizes; nullopt otherwise.
std::optional<AlphaBeta> fit_alpha_beta(std::vector<SweepPoint> points);

}  // namespace wb
