// The host measurements of wb-host as timed batches (single process):
//   NumaCopy       memcpy from a buffer on NUMA node `src` to one on `dst`, by a thread bound to
//                  the destination node (the usual placement for a consumer pulling data);
//                  the copied bytes are checked against the data pattern after every batch
//   MemoryLatency  a pointer chase through a buffer on node `memory` by a thread on node `cpu`;
//                  time per hop is the load-to-use latency of that memory from those CPUs
#pragma once

#include <cstdint>
#include <memory>

#include "harness/timed_batch.h"
#include "host/numa_memory.h"

namespace wb {

struct NumaCopyConfig {
  int src_node = 0, dst_node = 0;
  std::uint64_t bytes = 0;
  std::size_t copies = 1;  // copies per batch: many for small buffers, one for large
};
std::size_t copies_per_batch(std::uint64_t bytes);

struct MemoryLatencyConfig {
  int cpu_node = 0, memory_node = 0;
  std::uint64_t bytes = 256ull << 20;  // far beyond the caches
  std::size_t hops = 1u << 20;          // per batch
};

std::unique_ptr<TimedBatch> make_numa_copy_batch(NumaMemory& numa, const NumaCopyConfig& config);
std::unique_ptr<TimedBatch> make_memory_latency_batch(NumaMemory& numa, const MemoryLatencyConfig& config);

}  // namespace wb
