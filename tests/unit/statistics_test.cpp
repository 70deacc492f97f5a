#include "harness/statistics.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace wb {
namespace {

TEST(Statistics, MedianOfOddAndEvenCounts) {
  const std::vector<double> odd = {5, 1, 3};
  const std::vector<double> even = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(summarize(odd).median, 3.0);
  EXPECT_DOUBLE_EQ(summarize(even).median, 2.5);
}

TEST(Statistics, PercentilesInterpolateLikeNumpy) {
  std::vector<double> samples;
  for (int i = 1; i <= 21; ++i) samples.push_back(i);  // 1..21
  // numpy.percentile(range(1,22), 5) == 2.0, 95 -> 20.0
  EXPECT_DOUBLE_EQ(percentile(samples, 5), 2.0);
  EXPECT_DOUBLE_EQ(percentile(samples, 95), 20.0);
  const std::vector<double> two = {10, 20};
  EXPECT_DOUBLE_EQ(percentile(two, 5), 10.5);
  EXPECT_DOUBLE_EQ(percentile(two, 95), 19.5);
}

TEST(Statistics, SummaryFields) {
  const std::vector<double> samples = {2, 4, 4, 4, 5, 5, 7, 9};
  const Summary s = summarize(samples);
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_NEAR(s.stddev, 2.138089935, 1e-9);  // sample standard deviation
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_NEAR(s.relative_spread, (s.p95 - s.p05) / 4.5, 1e-12);
  EXPECT_GT(s.relative_spread, 0.0);
}

TEST(Statistics, SingleSampleHasNoSpread) {
  const std::vector<double> one = {3.5};
  const Summary s = summarize(one);
  EXPECT_DOUBLE_EQ(s.p05, 3.5);
  EXPECT_DOUBLE_EQ(s.p95, 3.5);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
  EXPECT_DOUBLE_EQ(s.relative_spread, 0);
}

TEST(Statistics, EmptyOrBadInputIsRejected) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  const std::vector<double> samples = {1, 2};
  EXPECT_THROW(percentile(samples, 101), std::invalid_argument);
  EXPECT_THROW(percentile(samples, -1), std::invalid_argument);
}

}  // namespace
}  // namespace wb
