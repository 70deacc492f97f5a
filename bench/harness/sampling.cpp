#include "harness/sampling.h"

#include <algorithm>

#include "harness/statistics.h"

namespace wb {

bool SampleSizer::wants_more(std::span<const double> samples, double elapsed_seconds) {
  const std::size_t n = samples.size();
  if (rule_.fixed_samples) return n < *rule_.fixed_samples;
  if (n < std::max<std::size_t>(rule_.min_samples, 1) || elapsed_seconds < rule_.min_seconds) return true;
  if (!judged_) return false;
  if (elapsed_seconds >= rule_.cap_seconds()) {
    capped_ = summarize(samples).relative_spread > rule_.max_spread;
    return false;
  }
  if (n < next_check_) return true;
  next_check_ = std::max(n + 1, n + n / 10);
  return summarize(samples).relative_spread > rule_.max_spread;
}

}  // namespace wb
