#include "p2p/copy_patterns.h"

#include "harness/errors.h"

namespace wb {

std::string CopyPatternSpec::name() const {
  std::string name = initiator == Initiator::kCopyEngine ? "ce" : "sm";
  name += access == Access::kWrite ? "/write" : "/read";
  if (bidirectional) name += "/bidir";
  if (shape == Shape::kAllToOne) name += "/all_to_one";
  if (shape == Shape::kOneToAll) name += "/one_to_all";
  return name;
}

std::vector<CopyPatternSpec> all_copy_patterns() {
  std::vector<CopyPatternSpec> patterns;
  for (Initiator initiator : {Initiator::kCopyEngine, Initiator::kSm})
    for (Access access : {Access::kWrite, Access::kRead})
      for (bool bidirectional : {false, true}) patterns.push_back({initiator, access, bidirectional, Shape::kPair});
  patterns.push_back({Initiator::kCopyEngine, Access::kWrite, false, Shape::kAllToOne});
  patterns.push_back({Initiator::kCopyEngine, Access::kWrite, false, Shape::kOneToAll});
  return patterns;
}

CopyPatternSpec parse_copy_pattern(std::string_view name) {
  for (const auto& p : all_copy_patterns())
    if (p.name() == name) return p;
  std::string known;
  for (const auto& p : all_copy_patterns()) known += (known.empty() ? "" : ", ") + p.name();
  throw UsageError("unknown pattern '" + std::string(name) + "' (" + known + ")");
}

std::vector<GpuPair> plan_gpu_pairs(int gpus) {
  std::vector<GpuPair> pairs;
  for (int src = 0; src < gpus; ++src) {
    pairs.push_back({src, src});
    for (int dst = 0; dst < gpus; ++dst)
      if (dst != src) pairs.push_back({src, dst});
  }
  return pairs;
}

int initiating_gpu(const CopyPatternSpec& pattern, const GpuPair& pair) {
  if (pattern.shape == Shape::kAllToOne) return pair.dst;
  if (pattern.shape == Shape::kOneToAll) return pair.src;
  return pattern.access == Access::kWrite ? pair.src : pair.dst;
}

double bytes_per_op(const CopyPatternSpec& pattern, std::uint64_t bytes, int gpus) {
  const double b = static_cast<double>(bytes);
  if (pattern.shape != Shape::kPair) return b * (gpus - 1);
  return pattern.bidirectional ? 2 * b : b;
}

std::optional<std::string> not_applicable(const CopyPatternSpec& pattern, const GpuPair& pair, bool peer_access,
                                          int gpus) {
  const bool self = pair.src == pair.dst;
  if (pattern.shape != Shape::kPair) {
    if (gpus < 2) return "contention needs at least 2 GPUs";
    // contention is measured once per target (all_to_one) or source (one_to_all), not per pair
    if (!self) return "contention patterns are measured once per GPU";
    return std::nullopt;
  }
  if (self && (pattern.access == Access::kRead || pattern.bidirectional))
    return "a device-local copy has no read/write side and no second direction";
  if (!self && pattern.initiator == Initiator::kSm && !peer_access)
    return "SM copies need peer access between GPU" + std::to_string(pair.src) + " and GPU" + std::to_string(pair.dst);
  return std::nullopt;
}

bool staged_through_host(const CopyPatternSpec& pattern, const GpuPair& pair, bool peer_access) {
  return pattern.initiator == Initiator::kCopyEngine && pair.src != pair.dst && !peer_access;
}

}  // namespace wb
