// wirebench place on the recorded topologies (8 x H100 NV18, 2 x RTX 5090 on PCIe) and two made up
// for it: two NVLink islands of four, and four GPUs behind two PCIe switches on two sockets.
#include "topology/gpu_placement.h"

#include <gtest/gtest.h>

#include "harness/errors.h"

namespace wb {
namespace {

const std::string kTopo = WB_TEST_DATA_DIR "/topo/";

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& line : lines)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

TEST(GpuPlacementTest, OnEightNv18GpusTheSocketAndItsNicsDecide) {
  const TopoMatrix m = read_nvidia_smi_topo(kTopo + "h100-8gpu-8nic.txt");
  const auto sets = rank_gpu_sets(m, 4);
  ASSERT_EQ(sets.size(), 70u);  // 8 choose 4
  // Every set is NV18 throughout; the two that stay on one socket come first.
  for (const GpuSet& s : sets) EXPECT_EQ(s.bottleneck.text(), "NV18");
  EXPECT_EQ(sets[0].cuda_visible_devices(), "0,1,2,3");
  EXPECT_EQ(sets[1].cuda_visible_devices(), "4,5,6,7");
  EXPECT_EQ(sets[0].numa_nodes, 1);
  EXPECT_EQ(sets[0].gpus_near_a_nic, 4);
  EXPECT_EQ(sets[2].numa_nodes, 2);
  EXPECT_TRUE(placement_warnings(m, sets).empty());
  const auto gres = gres_conf_lines(m);
  ASSERT_EQ(gres.size(), 8u);
  EXPECT_EQ(gres[0].substr(0, gres[0].find("  #")), "Name=gpu File=/dev/nvidia0 Links=-1,18,18,18,18,18,18,18");
  EXPECT_NE(gres[3].find("Links=18,18,18,-1,18,18,18,18"), std::string::npos) << gres[3];
  EXPECT_NE(gres[4].find("# NUMA 1, CPUs 48-95,144-191"), std::string::npos) << gres[4];
}

TEST(GpuPlacementTest, TwoNvlinkIslandsKeepAFourGpuJobOnOneAndWarnAFiveGpuOne) {
  const TopoMatrix m = read_nvidia_smi_topo(kTopo + "two-nvlink-islands-8gpu.txt");
  const auto four = rank_gpu_sets(m, 4);
  EXPECT_EQ(four[0].cuda_visible_devices(), "0,1,2,3");
  EXPECT_EQ(four[1].cuda_visible_devices(), "4,5,6,7");
  EXPECT_EQ(four[0].bottleneck.text(), "NV12");
  EXPECT_EQ(four[2].bottleneck.text(), "SYS");  // every other set crosses the islands
  EXPECT_TRUE(placement_warnings(m, four).empty());
  // Five GPUs cannot stay on one island: the best has four of its pairs across (one GPU to the four).
  const auto five = rank_gpu_sets(m, 5);
  EXPECT_EQ(five[0].bottleneck.text(), "SYS");
  EXPECT_EQ(five[0].pairs_at_bottleneck, 4);
  EXPECT_TRUE(mentions(placement_warnings(m, five), "must span NVLink domains")) << placement_warnings(m, five)[0];
  EXPECT_NE(gres_conf_lines(m)[0].find("File=/dev/nvidia0 Links=-1,12,12,12,0,0,0,0  #"), std::string::npos);
}

TEST(GpuPlacementTest, WithoutNvlinkTheSharedSwitchWinsAndTheJobIsToldItIsOnPcie) {
  const TopoMatrix m = read_nvidia_smi_topo(kTopo + "pcie-two-switches-two-sockets-4gpu.txt");
  const auto two = rank_gpu_sets(m, 2);
  ASSERT_EQ(two.size(), 6u);
  // 2,3 and 0,1 both share a switch; 2,3 has the NIC on its switch.
  EXPECT_EQ(two[0].cuda_visible_devices(), "2,3");
  EXPECT_EQ(two[1].cuda_visible_devices(), "0,1");
  EXPECT_EQ(two[0].bottleneck.text(), "PIX");
  EXPECT_EQ(two[2].bottleneck.text(), "SYS");
  const auto warnings = placement_warnings(m, two);
  EXPECT_TRUE(mentions(warnings, "limited to PCIe"));
  EXPECT_TRUE(mentions(warnings, "0-1 (PIX), 2-3 (PIX)"));
  EXPECT_EQ(gres_conf_lines(m)[2].substr(0, 39), "Name=gpu File=/dev/nvidia2 Links=0,0,-1");
}

TEST(GpuPlacementTest, TwoConsumerCardsOnOneHostBridge) {
  const TopoMatrix m = read_nvidia_smi_topo(kTopo + "rtx5090-2gpu-spaces.txt");
  const auto two = rank_gpu_sets(m, 2);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].bottleneck.text(), "PHB");
  const auto warnings = placement_warnings(m, two);
  EXPECT_TRUE(mentions(warnings, "no NVLink"));
  EXPECT_TRUE(mentions(warnings, "no two GPUs share a PCIe switch"));
  EXPECT_THROW(rank_gpu_sets(m, 3), UsageError);
  EXPECT_THROW(rank_gpu_sets(m, 0), UsageError);
}

TEST(GpuPlacementTest, TensorParallelGroupsStayInsideANodeOnTheirOwnIsland) {
  const TopoMatrix m = read_nvidia_smi_topo(kTopo + "two-nvlink-islands-8gpu.txt");
  const auto lines = layout_lines(m, 2, 4, 4, 8);  // 16 ranks on 2 nodes of 8
  EXPECT_TRUE(mentions(lines, "node 0: ranks 0-3 (TP group of dp 0) on GPUs 0,1,2,3, slowest pair NV12"));
  EXPECT_TRUE(mentions(lines, "node 0: ranks 4-7 (TP group of dp 1) on GPUs 4,5,6,7, slowest pair NV12"));
  EXPECT_TRUE(mentions(lines, "node 1: ranks 8-11"));
  EXPECT_TRUE(mentions(lines, "cross nodes"));
  // TP 8 on this node must cross its islands; TP 16 would cross the network.
  EXPECT_TRUE(mentions(layout_lines(m, 1, 8, 1, 8), "on GPUs 0,1,2,3,4,5,6,7, slowest pair SYS"));
  EXPECT_TRUE(mentions(layout_lines(m, 2, 16, 1, 8), "warning: TP 16 does not fit whole in a node"));
  EXPECT_THROW(layout_lines(m, 1, 4, 4, 8), UsageError);  // 16 GPUs wanted, 8 there
  EXPECT_THROW(layout_lines(m, 1, 4, 1, 9), UsageError);  // 9 GPUs of a node of 8
}

// Issue 44: --gpus 4 --tp 4 --dp 2 --nodes 2 put all 8 ranks on node 0 (it counted the node's 8
// GPUs, not the job's 4): each node takes the job's GPUs, and no more.
TEST(GpuPlacementTest, EachNodeTakesTheJobsGpusNotTheNodesAll) {
  const TopoMatrix m = read_nvidia_smi_topo(kTopo + "two-nvlink-islands-8gpu.txt");
  const auto lines = layout_lines(m, 2, 4, 2, 4);
  EXPECT_TRUE(mentions(lines, "node 0: ranks 0-3 (TP group of dp 0) on GPUs 0,1,2,3"));
  EXPECT_TRUE(mentions(lines, "node 1: ranks 4-7 (TP group of dp 1) on GPUs 0,1,2,3"));
  EXPECT_FALSE(mentions(lines, "node 0: ranks 4-7"));
  EXPECT_TRUE(mentions(lines, "4 consecutive ranks per node"));
  EXPECT_TRUE(mentions(lines, "cross nodes"));
  EXPECT_THROW(layout_lines(m, 2, 4, 3, 4), UsageError);  // 12 ranks, 2 nodes x 4 GPUs
}

}  // namespace
}  // namespace wb
