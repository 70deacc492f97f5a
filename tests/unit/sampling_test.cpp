// The sampling rule (harness/sampling.h): a quiet measurement stops at its minimum, a noisy one
// takes more samples until its spread settles or the cap is reached.
#include "harness/sampling.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

// Feeds samples (each taking `seconds`) until the sizer stops; returns how many it took.
std::size_t samples_taken(wb::SampleSizer& sizer, double noise, double seconds, std::size_t limit = 1000000) {
  std::mt19937 random(7);
  std::normal_distribution<double> jitter(0.0, noise);
  std::vector<double> samples;
  do {
    samples.push_back(10.0 * (1.0 + std::abs(jitter(random))));
  } while (sizer.wants_more(samples, seconds * static_cast<double>(samples.size())) && samples.size() < limit);
  return samples.size();
}

wb::SamplingRule rule() {
  wb::SamplingRule r;
  r.min_samples = 5;
  r.min_seconds = 0.01;
  r.max_spread = 0.02;
  r.max_seconds = 1.0;
  return r;
}

}  // namespace

TEST(Sampling, AQuietMeasurementStopsAtItsMinimum) {
  wb::SampleSizer sizer(rule(), /*judged=*/true);
  EXPECT_EQ(samples_taken(sizer, 0.001, 0.001), 10u);  // 5 samples, then min_seconds (10 x 1 ms)
  EXPECT_FALSE(sizer.capped());
}

TEST(Sampling, ANoisyMeasurementTakesMoreUpToTheCap) {
  wb::SampleSizer quiet(rule(), true), noisy(rule(), true);
  const std::size_t q = samples_taken(quiet, 0.001, 0.001);
  const std::size_t n = samples_taken(noisy, 0.2, 0.001);
  EXPECT_GT(n, 10 * q);
  EXPECT_EQ(n, 1000u);  // the cap: 1 s of 1 ms samples, spread still above 2%
  EXPECT_TRUE(noisy.capped());
}

TEST(Sampling, ANoisyMeasurementThatIsNotJudgedStopsAtItsMinimum) {
  wb::SampleSizer sizer(rule(), /*judged=*/false);
  EXPECT_EQ(samples_taken(sizer, 0.2, 0.001), 10u);
}

TEST(Sampling, TheMinimumSampleCountHoldsEvenPastTheCap) {
  wb::SampleSizer sizer(rule(), true);
  EXPECT_EQ(samples_taken(sizer, 0.2, 5.0), 5u);  // each sample takes 5 s: still five of them
}

TEST(Sampling, AFixedCountIsExactlyThat) {
  wb::SamplingRule r = rule();
  r.fixed_samples = 3;
  wb::SampleSizer sizer(r, true);
  EXPECT_EQ(samples_taken(sizer, 0.2, 0.001), 3u);
}

TEST(Sampling, WithoutAGivenCapTheCapFollowsTheMinimumTime) {
  wb::SamplingRule r = rule();
  r.max_seconds.reset();  // cap: 2 x 10 ms
  wb::SampleSizer sizer(r, true);
  EXPECT_EQ(samples_taken(sizer, 0.2, 0.001), 20u);
  EXPECT_TRUE(sizer.capped());
}
