// How many timed batches (samples) one measurement takes: nvbench's noise criterion. Every
// measurement takes at least min_samples and min_seconds; a judged one (the sizes the reporter
// judges: the largest and smallest of a sweep) then goes on until the relative spread of its
// samples, (p95 - p05) / median, is at most max_spread, or max_seconds are spent. The spread and
// the sample count go into results.csv, so a verdict can say how sure it is.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace wb {

struct SamplingRule {
  std::size_t min_samples = 5;
  double min_seconds = 0.5;   // --benchmark_min_time (Google Benchmark's default)
  double max_spread = 0.02;   // --max-spread PERCENT
  // --max-time SECONDS: the cap of a judged measurement; unset, kCapFactor x min_seconds (so a
  // short --benchmark_min_time keeps a quick run quick).
  std::optional<double> max_seconds;
  static constexpr double kCapFactor = 2.0;
  double cap_seconds() const { return max_seconds.value_or(kCapFactor * min_seconds); }
  std::optional<std::size_t> fixed_samples;  // --benchmark_min_time=Nx: exactly N samples
};

class SampleSizer {
 public:
  SampleSizer(const SamplingRule& rule, bool judged) : rule_(rule), judged_(judged) {}

  // Asked after every sample with all samples so far and the seconds the measurement has taken
  // (agreed by all ranks, so every rank decides the same): true while another sample is wanted.
  bool wants_more(std::span<const double> samples, double elapsed_seconds);

  // True when the last decision stopped at the cap with the spread still above max_spread.
  bool capped() const { return capped_; }

 private:
  SamplingRule rule_;
  bool judged_;
  bool capped_ = false;
  std::size_t next_check_ = 0;  // the spread is recomputed as the sample count grows by 10%
};

}  // namespace wb
