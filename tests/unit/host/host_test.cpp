#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "harness/matrix_table.h"
#include "host/host_batches.h"
#include "host/numa_memory.h"
#include "pointer_chase.h"

namespace wb {
namespace {

TEST(PointerChase, OneCycleThroughEveryNode) {
  std::vector<unsigned char> buffer(64 * 1000);
  const std::size_t nodes = chase::build(buffer.data(), buffer.size(), 7);
  ASSERT_EQ(nodes, 1000u);
  std::set<const void*> visited;
  const void* p = buffer.data();
  for (std::size_t i = 0; i < nodes; ++i) {
    visited.insert(p);
    p = chase::follow(p, 1);
  }
  EXPECT_EQ(visited.size(), nodes);  // no shorter cycle: every node is on the one path
  EXPECT_EQ(p, buffer.data());       // and it closes
  EXPECT_EQ(chase::follow(buffer.data(), nodes * 3), buffer.data());
}

TEST(MatrixTable, LabelsValuesAndMissingCells) {
  MatrixTable t{"memcpy bandwidth (GB/s)", "source", "destination", {"numa0", "numa1"}, {"numa0", "numa1"},
                {{12.345, 8.0}, {std::nullopt, 123.0}}};
  const std::string text = format_matrix(t);
  EXPECT_EQ(text,
            "memcpy bandwidth (GB/s)\n"
            "source \\ destination   numa0   numa1\n"
            "numa0                  12.35    8.00\n"
            "numa1                    N/A  123.00\n");
}

TEST(NumaCopy, BatchesScaleWithSize) {
  EXPECT_EQ(copies_per_batch(8), 100u);
  EXPECT_EQ(copies_per_batch(1u << 20), 64u);
  EXPECT_EQ(copies_per_batch(256u << 20), 1u);
}

TEST(NumaCopy, CopiesAreCheckedAndAMissedCopyIsCaught) {
  NumaMemory numa;
  const int node = numa.nodes().front();
  auto batch = make_numa_copy_batch(numa, {node, node, 1u << 20, 1});
  batch->prepare(1);
  EXPECT_EQ(batch->verify(1), 1u << 20);  // nothing copied yet: every byte wrong
  EXPECT_GT(batch->run(), 0.0);
  EXPECT_EQ(batch->verify(1), 0u);
  batch->prepare(2);  // a new sample's pattern: the old copy does not pass
  EXPECT_EQ(batch->verify(2), 1u << 20);
}

TEST(MemoryLatency, ChasesAndTakesTime) {
  NumaMemory numa;
  MemoryLatencyConfig config;
  config.bytes = 1u << 20;
  config.hops = 10000;
  auto batch = make_memory_latency_batch(numa, config);
  EXPECT_FALSE(batch->checks_data());
  EXPECT_EQ(batch->ops_per_batch(), 10000u);
  EXPECT_GT(batch->run(), 0.0);
}

TEST(NumaMemory, NodesAndPlacedBuffers) {
  NumaMemory numa;
  ASSERT_FALSE(numa.nodes().empty());
  auto buffer = numa.allocate_on(numa.nodes().front(), 4096);
  ASSERT_NE(buffer->data, nullptr);
  EXPECT_EQ(static_cast<unsigned char*>(buffer->data)[4095], 0);  // touched (zeroed) up front
  EXPECT_THROW(numa.allocate_on(9999, 64), std::exception);
}

}  // namespace
}  // namespace wb
