#include <gtest/gtest.h>

#include <filesystem>

#include "harness/errors.h"
#include "net/link_class.h"
#include "net/p2p_batches.h"
#include "net/pair_plan.h"
#include "test_files.h"

namespace wb {
namespace {

using Pairs = std::vector<RankPair>;

TEST(PairPlan, Modes) {
  EXPECT_EQ(plan_pairs(PairMode::kFirst, 4), (Pairs{{0, 1}}));
  EXPECT_EQ(plan_pairs(PairMode::kRing, 2), (Pairs{{0, 1}}));
  EXPECT_EQ(plan_pairs(PairMode::kRing, 4), (Pairs{{0, 1}, {1, 2}, {2, 3}, {3, 0}}));
  EXPECT_EQ(plan_pairs(PairMode::kAll, 4), (Pairs{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}));
  EXPECT_THROW(plan_pairs(PairMode::kFirst, 1), UsageError);
}

TEST(BatchShape, SmallMessagesAreBatchedLargeOnesAreNot) {
  const BatchShape small = batch_shape(P2pPattern::kStreamBandwidth, 8);
  EXPECT_EQ(small.window, 64u);
  EXPECT_EQ(small.rounds, 100u);
  EXPECT_EQ(small.receive_slots, 1u);  // osu_bw's one receive buffer
  const BatchShape large = batch_shape(P2pPattern::kStreamBandwidth, 256u << 20, WindowMode::kSlots);
  EXPECT_EQ(large.window, 1u);
  EXPECT_EQ(large.receive_slots, 1u);
  EXPECT_EQ(large.rounds, 1u);
  // osu_bw's window is 64 messages at every size, into one buffer; the checked slots hold 64 MiB.
  const BatchShape osu = batch_shape(P2pPattern::kStreamBandwidth, 4u << 20, WindowMode::kOsu);
  EXPECT_EQ(osu.window, 64u);
  EXPECT_EQ(osu.receive_slots, 1u);
  const BatchShape slots = batch_shape(P2pPattern::kBidirectional, 4u << 20, WindowMode::kSlots);
  EXPECT_EQ(slots.window, 16u);
  EXPECT_EQ(slots.receive_slots, 16u);
  const BatchShape pingpong = batch_shape(P2pPattern::kPingPong, 0);
  EXPECT_EQ(pingpong.window, 1u);
  EXPECT_EQ(pingpong.rounds, 100u);
  // Ping-pong batches hold 16 round trips or more up to 4 MiB, so that a batch's one checked echo
  // is a small part of it.
  EXPECT_EQ(batch_shape(P2pPattern::kPingPong, 4u << 20).rounds, 16u);
  EXPECT_EQ(batch_shape(P2pPattern::kPingPong, 1u << 20).rounds, 16u);
  EXPECT_EQ(batch_shape(P2pPattern::kPingPong, 8u << 20).rounds, 2u);
  EXPECT_EQ(batch_shape(P2pPattern::kStreamBandwidth, 4u << 20).rounds, 1u);
  EXPECT_EQ(batch_shape(P2pPattern::kPingPong, 256u << 20).rounds, 1u);
}

TEST(BatchShape, OperationsAndBytesFollowTheConventions) {
  // A round trip is two one-way operations: time per op is half the round trip.
  EXPECT_EQ(ops_per_batch(P2pPattern::kPingPong, {1, 10}), 20u);
  EXPECT_EQ(ops_per_batch(P2pPattern::kStreamBandwidth, {16, 3}), 48u);
  EXPECT_EQ(ops_per_batch(P2pPattern::kBidirectional, {16, 3}), 48u);
  // Bidirectional counts both directions' bytes, as osu_bibw does.
  EXPECT_DOUBLE_EQ(bytes_per_op(P2pPattern::kBidirectional, 1000), 2000.0);
  EXPECT_DOUBLE_EQ(bytes_per_op(P2pPattern::kStreamBandwidth, 1000), 1000.0);
}

TEST(LinkClass, SameNodeIsSharedMemoryElseTheNetwork) {
  EXPECT_EQ(pair_link_class("a", "a", "ib"), "shm");
  EXPECT_EQ(pair_link_class("a", "b", "ib"), "ib");
}

TEST(LinkClass, ReadsPortsFromSysfs) {
  testing::TempDir dir;
  namespace fs = std::filesystem;
  const fs::path root = dir.file("sys");
  EXPECT_EQ(detect_network_link_class(root.string()), "eth");  // no HCAs at all
  auto add_port = [&](const std::string& hca, const std::string& state, const std::string& layer) {
    const fs::path port = root / "class/infiniband" / hca / "ports/1";
    fs::create_directories(port);
    testing::write_text((port / "state").string(), state + "\n");
    testing::write_text((port / "link_layer").string(), layer + "\n");
  };
  add_port("mlx5_0", "1: DOWN", "InfiniBand");
  EXPECT_EQ(detect_network_link_class(root.string()), "eth");  // a port that is down does not count
  add_port("mlx5_1", "4: ACTIVE", "Ethernet");
  EXPECT_EQ(detect_network_link_class(root.string()), "roce");
  add_port("mlx5_2", "4: ACTIVE", "InfiniBand");
  EXPECT_EQ(detect_network_link_class(root.string()), "ib");
}

}  // namespace
}  // namespace wb
