#include "coll/sweep_summary.h"

#include <gtest/gtest.h>

namespace wb {
namespace {

// t = 5 us + n / (2 GB/s): beta = 0.0005 us per byte.
std::vector<SweepPoint> ideal_sweep() {
  std::vector<SweepPoint> points;
  for (std::uint64_t n = 8; n <= (64u << 20); n *= 4) {
    const double t = 5.0 + static_cast<double>(n) * 0.0005;
    points.push_back({n, t, static_cast<double>(n) / t / 1e3});
  }
  return points;
}

TEST(SweepSummary, PeakEightyPercentAndLatency) {
  const SweepSummary s = summarize_sweep(ideal_sweep());
  EXPECT_EQ(s.small_bytes, 8u);
  EXPECT_DOUBLE_EQ(s.small_latency_us, 5.0 + 8 * 0.0005);
  EXPECT_EQ(s.peak_bytes, ideal_sweep().back().bytes);  // bandwidth grows with size here
  EXPECT_NEAR(s.peak_busbw_GBps, 2.0, 0.001);
  ASSERT_TRUE(s.bytes_at_80pct);
  // 80% of ~2 GB/s needs n / (5 + n/2000) >= 1.6e3 -> n >= 40000: the first size past it is 131072
  EXPECT_EQ(*s.bytes_at_80pct, 131072u);
  EXPECT_EQ(summarize_sweep({}).peak_busbw_GBps, 0.0);
}

TEST(AlphaBeta, RecoversTheModelOfAnIdealSweep) {
  const auto fit = fit_alpha_beta(ideal_sweep());
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->beta_us_per_byte, 0.0005, 1e-9);
  EXPECT_NEAR(fit->alpha_us, 5.0, 1e-6);
  EXPECT_NEAR(fit->bandwidth_GBps(), 2.0, 1e-6);
  EXPECT_EQ(fit->points, ideal_sweep().size());
}

TEST(AlphaBeta, TooFewPointsOrOneSizeGiveNoFit) {
  auto points = ideal_sweep();
  points.resize(3);
  EXPECT_FALSE(fit_alpha_beta(points));
  EXPECT_FALSE(fit_alpha_beta({{8, 1, 1}, {8, 1, 1}, {8, 2, 1}, {8, 1, 1}}));
}

}  // namespace
}  // namespace wb
