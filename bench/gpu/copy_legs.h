// The measuring engine of the GPU link benchmarks (built with CUDA only). A batch is one or more
// copy legs run at the same time, each on a stream of the GPU that drives it: a spin kernel holds
// every stream until all copies are queued, CUDA events on each stream time its copies, and the
// batch time is the slowest leg's. Buffers are device memory or host memory (pinned or pageable,
// placed on a NUMA node); each is filled with the data pattern and checked after the batch.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/timed_batch.h"

namespace wb {

class NumaMemory;

class CopyBuffer {
 public:
  virtual ~CopyBuffer() = default;
  virtual void* data() = 0;
  virtual std::size_t bytes() const = 0;
  virtual void fill(std::uint64_t sample) = 0;
  virtual void poison(std::uint64_t sample) = 0;
  virtual std::uint64_t count_wrong(std::uint64_t sample) = 0;
};

std::shared_ptr<CopyBuffer> device_buffer(int device, std::size_t bytes, std::chrono::milliseconds timeout);
// Host memory on `numa_node`; pinned ones are registered with CUDA (and mapped for kernels).
std::shared_ptr<CopyBuffer> host_buffer(NumaMemory& numa, int numa_node, std::size_t bytes, bool pinned);

struct CopyLeg {
  int device = 0;  // the GPU whose stream runs this leg (and whose SMs copy, for SM copies)
  std::shared_ptr<CopyBuffer> dst, src;
  bool sm = false;  // an SM copy kernel instead of the copy engines
};

// `copies` copies per leg per batch.
std::unique_ptr<TimedBatch> make_copy_legs_batch(std::vector<CopyLeg> legs, std::size_t copies,
                                                 std::chrono::milliseconds timeout);

// Latency from `device` to `buffer` (device, peer or mapped pinned host memory): a pointer chase
// of `hops` per batch.
std::unique_ptr<TimedBatch> make_gpu_chase_batch(int device, std::shared_ptr<CopyBuffer> buffer, std::size_t hops,
                                                 std::chrono::milliseconds timeout);

}  // namespace wb
