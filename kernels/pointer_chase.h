// Memory latency by pointer chase: a buffer cut into cache-line nodes linked in one random cycle,
// so every load depends on the one before and no prefetcher can guess the next address. The host
// version is here; the CUDA kernel (over peer or device memory) comes with the GPU benchmarks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wb::chase {

inline constexpr std::size_t kNodeBytes = 64;  // one cache line per node

// Links the nodes of `buffer` (bytes / kNodeBytes of them) into a single random cycle; returns the
// number of nodes. Deterministic for a seed.
std::size_t build(void* buffer, std::size_t bytes, std::uint64_t seed);

// Follows `steps` links from `start`; returns where it ended (so the loads cannot be skipped).
const void* follow(const void* start, std::size_t steps);

}  // namespace wb::chase
