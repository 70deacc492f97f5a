// Summary statistics over the samples of one measurement (one sample = one timed batch).
#pragma once

#include <span>

namespace wb {

struct Summary {
  std::size_t count = 0;
  double min = 0, max = 0, mean = 0, stddev = 0;
  double median = 0, p05 = 0, p95 = 0;
  // (p95 - p05) / median: how wide the central 90% of the samples is, relative to the median.
  // 0 when the median is 0.
  double relative_spread = 0;
};

// Percentile q in [0, 100] with linear interpolation between closest ranks (numpy's default),
// so that results agree with what users compute from the raw samples. Input need not be sorted.
double percentile(std::span<const double> samples, double q);

// Throws std::invalid_argument for an empty span: a summary of nothing has no honest value.
Summary summarize(std::span<const double> samples);

}  // namespace wb
