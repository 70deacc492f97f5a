#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "pointer_chase.h"

namespace wb::chase {

std::size_t build(void* buffer, std::size_t bytes, std::uint64_t seed) {
  const std::size_t nodes = bytes / kNodeBytes;
  if (nodes == 0) return 0;
  // A random order of all nodes, then each points at the next in that order: one cycle.
  std::vector<std::size_t> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(seed);
  std::shuffle(order.begin() + 1, order.end(), random);
  auto* base = static_cast<unsigned char*>(buffer);
  for (std::size_t i = 0; i < nodes; ++i) {
    void* next = base + order[(i + 1) % nodes] * kNodeBytes;
    *reinterpret_cast<void**>(base + order[i] * kNodeBytes) = next;
  }
  return nodes;
}

const void* follow(const void* start, std::size_t steps) {
  const void* p = start;
  for (std::size_t i = 0; i < steps; ++i) p = *static_cast<const void* const*>(p);
  return p;
}

}  // namespace wb::chase
