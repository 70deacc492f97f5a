#include "host/host_batches.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "data_pattern.h"
#include "pointer_chase.h"

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class NumaCopyBatch final : public TimedBatch {
 public:
  NumaCopyBatch(NumaMemory& numa, const NumaCopyConfig& config)
      : config_(config),
        src_(numa.allocate_on(config.src_node, config.bytes)),
        dst_(numa.allocate_on(config.dst_node, config.bytes)) {
    numa.bind_thread_to(config.dst_node);
  }

  std::uint64_t ops_per_batch() const override { return config_.copies; }

  void prepare(std::uint64_t sample) override {
    pattern::fill(src_->data, config_.bytes, sample);
    pattern::poison(dst_->data, config_.bytes, sample);
  }

  double run() override {
    const auto start = Clock::now();
    for (std::size_t i = 0; i < config_.copies; ++i) std::memcpy(dst_->data, src_->data, config_.bytes);
    return seconds_since(start);
  }

  std::uint64_t verify(std::uint64_t sample) override {
    return pattern::count_wrong_bytes(dst_->data, config_.bytes, sample);
  }

 private:
  NumaCopyConfig config_;
  NumaMemory::BufferPtr src_, dst_;
};

class MemoryLatencyBatch final : public TimedBatch {
 public:
  MemoryLatencyBatch(NumaMemory& numa, const MemoryLatencyConfig& config)
      : config_(config), buffer_(numa.allocate_on(config.memory_node, config.bytes)) {
    numa.bind_thread_to(config.cpu_node);
    chase::build(buffer_->data, config.bytes, 12345);
    position_ = buffer_->data;
  }

  std::uint64_t ops_per_batch() const override { return config_.hops; }
  void prepare(std::uint64_t) override {}

  double run() override {
    const auto start = Clock::now();
    position_ = chase::follow(position_, config_.hops);  // carries on where the last batch stopped
    return seconds_since(start);
  }

  // A chase moves no data to check: the row leaves `errors` empty.
  std::uint64_t verify(std::uint64_t) override { return 0; }
  bool checks_data() const override { return false; }

 private:
  MemoryLatencyConfig config_;
  NumaMemory::BufferPtr buffer_;
  const void* position_ = nullptr;
};

}  // namespace

std::size_t copies_per_batch(std::uint64_t bytes) {
  constexpr std::uint64_t kBatchBytes = 64ull << 20;
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(kBatchBytes / std::max<std::uint64_t>(bytes, 1), 1, 100));
}

std::unique_ptr<TimedBatch> make_numa_copy_batch(NumaMemory& numa, const NumaCopyConfig& config) {
  return std::make_unique<NumaCopyBatch>(numa, config);
}

std::unique_ptr<TimedBatch> make_memory_latency_batch(NumaMemory& numa, const MemoryLatencyConfig& config) {
  return std::make_unique<MemoryLatencyBatch>(numa, config);
}

}  // namespace wb
