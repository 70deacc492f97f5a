#include "harness/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace wb {
namespace {

double percentile_of_sorted(const std::vector<double>& sorted, double q) {
  const double position = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * weight;
}

std::vector<double> sorted_copy(std::span<const double> samples, double q) {
  if (samples.empty()) throw std::invalid_argument("statistics of an empty sample set");
  if (!(q >= 0.0 && q <= 100.0)) throw std::invalid_argument("percentile outside [0, 100]");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

}  // namespace

double percentile(std::span<const double> samples, double q) {
  return percentile_of_sorted(sorted_copy(samples, q), q);
}

Summary summarize(std::span<const double> samples) {
  const std::vector<double> sorted = sorted_copy(samples, 50.0);
  Summary s;
  s.count = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.count);
  double squares = 0;
  for (double x : sorted) squares += (x - s.mean) * (x - s.mean);
  s.stddev = s.count > 1 ? std::sqrt(squares / static_cast<double>(s.count - 1)) : 0.0;
  s.median = percentile_of_sorted(sorted, 50.0);
  s.p05 = percentile_of_sorted(sorted, 5.0);
  s.p95 = percentile_of_sorted(sorted, 95.0);
  s.relative_spread = s.median != 0.0 ? (s.p95 - s.p05) / s.median : 0.0;
  return s;
}

}  // namespace wb
