// NCCL's algorithms as NCCL runs them: the support matrix per collective and wiring, each cost
// worked by hand, and the effects users meet (NVLS on an NVSwitch node, the tree beyond the
// network's rate on two nodes, PAT at one GPU a node).
#include "step/nccl_algorithms.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace wb::step {
namespace {

using A = Algorithm;

// k nodes of g GPUs: NVLink 4 at 80% (360 GB/s, 2 us) and an NDR NIC a GPU (46 GB/s, 5 us).
ClusterWiring h100(int k, int g, NvSwitch nvswitch = NvSwitch::kHopper, bool sharp = false) {
  return {k, g, {2.0, 1e-3 / 360}, {5.0, 1e-3 / 46}, nvswitch, sharp};
}

TEST(NcclAlgorithmsTest, EachCollectiveOffersWhatNcclRunsOnTheWiring) {
  using V = std::vector<Algorithm>;
  for (CollOp rooted : {CollOp::kBroadcast, CollOp::kReduce}) {
    EXPECT_EQ(nccl_algorithms_for(rooted, h100(1, 8, NvSwitch::kHopper, true)), V{A::kRing});
    EXPECT_EQ(nccl_algorithms_for(rooted, h100(8, 8, NvSwitch::kHopper, true)), V{A::kRing});
  }
  EXPECT_EQ(nccl_algorithms_for(CollOp::kAllReduce, h100(1, 8)), (V{A::kRing, A::kTree, A::kNvls}));
  EXPECT_EQ(nccl_algorithms_for(CollOp::kAllReduce, h100(1, 8, NvSwitch::kAmpere)), (V{A::kRing, A::kTree}));
  // Across nodes NVLS needs IB SHARP; NVLS tree does not; CollNet needs SHARP, direct an NVSwitch.
  EXPECT_EQ(nccl_algorithms_for(CollOp::kAllReduce, h100(2, 8)), (V{A::kRing, A::kTree, A::kNvlsTree}));
  EXPECT_EQ(nccl_algorithms_for(CollOp::kAllReduce, h100(2, 8, NvSwitch::kHopper, true)),
            (V{A::kRing, A::kTree, A::kNvls, A::kNvlsTree, A::kCollNetDirect, A::kCollNetChain}));
  EXPECT_EQ(nccl_algorithms_for(CollOp::kAllReduce, h100(2, 8, NvSwitch::kNone, true)),
            (V{A::kRing, A::kTree, A::kCollNetChain}));
  // all_gather / reduce_scatter: NVLS on one node, PAT only at one GPU a node.
  EXPECT_EQ(nccl_algorithms_for(CollOp::kAllGather, h100(1, 8)), (V{A::kRing, A::kNvls}));
  EXPECT_EQ(nccl_algorithms_for(CollOp::kReduceScatter, h100(8, 1)), (V{A::kRing, A::kPat}));
  EXPECT_EQ(nccl_algorithms_for(CollOp::kAllGather, h100(8, 8)), V{A::kRing});
  EXPECT_EQ(nccl_algorithms_for(CollOp::kAllToAll, h100(8, 8, NvSwitch::kHopper, true)), V{A::kRing});
  // No MPI library's algorithm anywhere; what NCCL lacks for a call cannot be costed.
  for (CollOp op : {CollOp::kAllReduce, CollOp::kAllGather, CollOp::kBroadcast})
    for (Algorithm a : nccl_algorithms_for(op, h100(4, 8, NvSwitch::kHopper, true))) EXPECT_TRUE(is_nccl_algorithm(a));
  EXPECT_THROW(nccl_time_us(CollOp::kBroadcast, A::kTree, 1e6, h100(8, 8)), std::invalid_argument);
  EXPECT_THROW(nccl_time_us(CollOp::kAllGather, A::kPat, 1e6, h100(8, 8)), std::invalid_argument);
  EXPECT_THROW(nccl_time_us(CollOp::kAllReduce, A::kRabenseifner, 1e6, h100(8, 8)), std::invalid_argument);
}

TEST(NcclAlgorithmsTest, CostsByHand) {
  const double n = 360e6;  // 1 ms at 360 GB/s
  // ring all_reduce, 1x8: 14 steps at 2 us + 2*7/8 n at 360 GB/s
  EXPECT_NEAR(nccl_time_us(CollOp::kAllReduce, A::kRing, n, h100(1, 8)), 28 + 1750, 1e-6);
  // 2x8: 30 steps, 2 of them between nodes; the NICs together (368 GB/s) keep up with NVLink
  EXPECT_NEAR(nccl_time_us(CollOp::kAllReduce, A::kRing, n, h100(2, 8)), 28 * 2 + 2 * 5 + 1875, 1e-6);
  // tree, 1x8: a chain carrying n up and down at .92 of NVLink: 2*7*2 us + n / (.92 * 180 GB/s)
  EXPECT_NEAR(nccl_time_us(CollOp::kAllReduce, A::kTree, n, h100(1, 8)), 28 + 2000 / 0.92, 1e-6);
  // NVLS, 1x8: n once each way at .85 * 15/16 of NVLink
  EXPECT_NEAR(nccl_time_us(CollOp::kAllReduce, A::kNvls, n, h100(1, 8)), 2 + 1000 / (0.85 * 15 / 16), 1e-6);
  // NVLS tree, 4x8: NVLS inside, a tree of nodes whose NICs carry 2n: min(287 GB/s, 184 GB/s)
  EXPECT_NEAR(nccl_time_us(CollOp::kAllReduce, A::kNvlsTree, n, h100(4, 8)), 2 + 2 * 2 * 5 + n / (368e3 / 2), 1e-6);
  // all_gather ring on 1x8: 7 steps, 7/8 n
  EXPECT_NEAR(nccl_time_us(CollOp::kAllGather, A::kRing, n, h100(1, 8)), 14 + 875, 1e-6);
  // PAT on 8x1: 3 rounds at 5 us, n at .75 of the NIC
  EXPECT_NEAR(nccl_time_us(CollOp::kAllGather, A::kPat, 46e6, h100(8, 1)), 15 + 1000 / 0.75, 1e-6);
  EXPECT_EQ(nccl_time_us(CollOp::kAllReduce, A::kRing, n, h100(1, 1)), 0);
}

TEST(NcclAlgorithmsTest, NvlsCarriesAnEightGpuNodesAllReduceAboveRing) {
  // Published, 8x H100 SXM: ring busbw ~370 GB/s, NVLS (NCCL's default) 460-480 (nccl-tests#212;
  // Azure's floor 460). The model from 360 GB/s NVLink: ring 360, NVLS 1.75 * .85 * 15/16 * 360.
  const ClusterWiring node = h100(1, 8);
  EXPECT_NEAR(nccl_bandwidth(CollOp::kAllReduce, A::kRing, node).busbw_GBps, 360, 1e-9);
  EXPECT_NEAR(nccl_bandwidth(CollOp::kAllReduce, A::kNvls, node).busbw_GBps, 1.75 * 0.85 * 15 / 16 * 360, 1e-9);
  EXPECT_EQ(nccl_choice(CollOp::kAllReduce, 1 << 30, node).algorithm, A::kNvls);
  // Blackwell's NVLS is less efficient (.74); without NVLS the choice is ring.
  EXPECT_LT(nccl_bandwidth(CollOp::kAllReduce, A::kNvls, h100(1, 8, NvSwitch::kBlackwell)).busbw_GBps,
            nccl_bandwidth(CollOp::kAllReduce, A::kNvls, node).busbw_GBps);
  EXPECT_EQ(nccl_choice(CollOp::kAllReduce, 1 << 30, h100(1, 8, NvSwitch::kAmpere)).algorithm, A::kRing);
}

TEST(NcclAlgorithmsTest, OnTwoNodesTheTreeGoesBeyondTheNetworksRate) {
  // nccl-tests#196: 2 nodes of 8 GPUs, one 100 Gb/s NIC a node: ring's busbw is the NIC's 12.5 GB/s;
  // the tree's NICs carry the buffer once each way, so its busbw (2(p-1)/p of algbw) exceeds it.
  ClusterWiring w{2, 8, {2.0, 1e-3 / 360}, {5.0, 1e-3 / (12.5 / 8)}, NvSwitch::kNone, false};
  const NcclBandwidth ring = nccl_bandwidth(CollOp::kAllReduce, A::kRing, w);
  const NcclBandwidth tree = nccl_bandwidth(CollOp::kAllReduce, A::kTree, w);
  EXPECT_NEAR(ring.busbw_GBps, 12.5, 1e-9);
  EXPECT_NEAR(tree.algbw_GBps, 0.92 * 12.5, 1e-9);
  EXPECT_GT(tree.busbw_GBps, 1.5 * 12.5);
  EXPECT_EQ(nccl_choice(CollOp::kAllReduce, 1 << 30, w).algorithm, A::kTree);
  // From 3 nodes the tree's NICs carry 2n: its busbw falls under ring's.
  w.nodes = 4;
  EXPECT_LT(nccl_bandwidth(CollOp::kAllReduce, A::kTree, w).busbw_GBps,
            nccl_bandwidth(CollOp::kAllReduce, A::kRing, w).busbw_GBps);
}

TEST(NcclAlgorithmsTest, PatServesSmallGathersAtOneGpuANodeAndRingLargeOnes) {
  const ClusterWiring w = h100(64, 1);
  EXPECT_EQ(nccl_choice(CollOp::kAllGather, 64 << 10, w).algorithm, A::kPat);  // 6 rounds against 63 steps
  EXPECT_EQ(nccl_choice(CollOp::kAllGather, 1 << 30, w).algorithm, A::kRing);
}

TEST(NcclAlgorithmsTest, TreeOvertakesRingFromANodeCount) {
  ClusterWiring w = h100(1, 8, NvSwitch::kNone);
  const double bucket = 25 << 20;
  const auto k = nccl_crossover_nodes(CollOp::kAllReduce, bucket, w, A::kRing, A::kTree, 1024);
  ASSERT_TRUE(k.has_value());
  // By hand, 25 MiB (72.8 us at 360 GB/s): 1 node, ring 28 + 1.75*72.8 = 155 against tree
  // 28 + 72.8/(.92/2) = 186; 2 nodes, ring 66 + 1.875*72.8 = 202.5 against tree 38 + 158.3 = 196.3.
  EXPECT_EQ(*k, 2);
  w.nodes = *k;
  EXPECT_LT(nccl_time_us(CollOp::kAllReduce, A::kTree, bucket, w), nccl_time_us(CollOp::kAllReduce, A::kRing, bucket, w));
  w.nodes = *k - 1;
  EXPECT_GE(nccl_time_us(CollOp::kAllReduce, A::kTree, bucket, w), nccl_time_us(CollOp::kAllReduce, A::kRing, bucket, w));
  // broadcast has no tree in NCCL: no crossover at any count.
  EXPECT_FALSE(nccl_crossover_nodes(CollOp::kBroadcast, bucket, w, A::kRing, A::kTree, 1024).has_value());
}

}  // namespace
}  // namespace wb::step
