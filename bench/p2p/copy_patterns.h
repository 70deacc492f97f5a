// The GPU-to-GPU copy patterns of wb-p2p, one small description each (as nvbandwidth keeps one
// class per test): who starts the copy (copy engine or SM kernel), on which GPU (the source writes
// into its peer, or the destination reads from it), one way or both, and pair or contention shape.
// Everything here is plain logic, tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

enum class Initiator { kCopyEngine, kSm };
enum class Access { kWrite, kRead };        // write: the source GPU runs it; read: the destination
enum class Shape { kPair, kAllToOne, kOneToAll };

struct CopyPatternSpec {
  Initiator initiator = Initiator::kCopyEngine;
  Access access = Access::kWrite;
  bool bidirectional = false;
  Shape shape = Shape::kPair;
  std::string name() const;  // ce/write, sm/read/bidir, ce/write/all_to_one
  bool operator==(const CopyPatternSpec&) const = default;
};

std::vector<CopyPatternSpec> all_copy_patterns();
CopyPatternSpec parse_copy_pattern(std::string_view name);  // throws UsageError

struct GpuPair {
  int src = 0, dst = 0;
  bool operator==(const GpuPair&) const = default;
};

// Every ordered pair (src, dst), each GPU with itself first among its pairs (the device-local copy).
std::vector<GpuPair> plan_gpu_pairs(int gpus);

// For pair patterns, the GPU that launches the copy; for contention patterns, the target GPU.
int initiating_gpu(const CopyPatternSpec& pattern, const GpuPair& pair);

// Bytes one operation moves for `bytes` per copy: both directions for bidirectional patterns,
// every peer's copy for contention patterns (n - 1 of them).
double bytes_per_op(const CopyPatternSpec& pattern, std::uint64_t bytes, int gpus);

// Why a pattern does not apply to a pair here, or nullopt when it does (never a sentinel string).
std::optional<std::string> not_applicable(const CopyPatternSpec& pattern, const GpuPair& pair, bool peer_access,
                                          int gpus);

// Copy-engine copies between GPUs without peer access go through host memory (CUDA stages them):
// they still run, labelled "staged".
bool staged_through_host(const CopyPatternSpec& pattern, const GpuPair& pair, bool peer_access);

}  // namespace wb
