#include "coll/sweep_summary.h"

#include <algorithm>

namespace wb {
namespace {
void sort_by_size(std::vector<SweepPoint>& points) {
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
}
}  // namespace

SweepSummary summarize_sweep(std::vector<SweepPoint> points) {
  SweepSummary s;
  if (points.empty()) return s;
  sort_by_size(points);
  s.small_bytes = points.front().bytes;
  s.small_latency_us = points.front().time_us;
  for (const auto& p : points)
    if (p.busbw_GBps > s.peak_busbw_GBps) {
      s.peak_busbw_GBps = p.busbw_GBps;
      s.peak_bytes = p.bytes;
    }
  for (const auto& p : points)
    if (s.peak_busbw_GBps > 0 && p.busbw_GBps >= 0.8 * s.peak_busbw_GBps) {
      s.bytes_at_80pct = p.bytes;
      break;
    }
  return s;
}

std::optional<AlphaBeta> fit_alpha_beta(std::vector<SweepPoint> points) {
  if (points.size() < 4) return std::nullopt;
  sort_by_size(points);
  if (points.front().bytes == points.back().bytes) return std::nullopt;
  const std::size_t half = points.size() / 2;
  // beta: least-squares slope over the large-message half.
  double mean_n = 0, mean_t = 0;
  for (std::size_t i = half; i < points.size(); ++i) {
    mean_n += static_cast<double>(points[i].bytes);
    mean_t += points[i].time_us;
  }
  const double large = static_cast<double>(points.size() - half);
  mean_n /= large;
  mean_t /= large;
  double covariance = 0, variance = 0;
  for (std::size_t i = half; i < points.size(); ++i) {
    const double dn = static_cast<double>(points[i].bytes) - mean_n;
    covariance += dn * (points[i].time_us - mean_t);
    variance += dn * dn;
  }
  AlphaBeta fit;
  fit.points = points.size();
  fit.beta_us_per_byte = variance > 0 ? std::max(0.0, covariance / variance) : 0.0;
  // alpha: what the small-message half leaves once the bytes are paid for.
  double alpha = 0;
  for (std::size_t i = 0; i < half; ++i)
    alpha += points[i].time_us - fit.beta_us_per_byte * static_cast<double>(points[i].bytes);
  fit.alpha_us = std::max(0.0, alpha / static_cast<double>(half));
  return fit;
}

}  // namespace wb
