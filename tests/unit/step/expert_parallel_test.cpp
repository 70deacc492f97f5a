// A mixture of experts with expert parallelism: the all_to_all and the reductions and their bytes
// against the formulas, the groups, the compute of top_k experts.
#include "step/expert_parallel.h"

#include <gtest/gtest.h>

#include "harness/errors.h"
#include "step/memory_model.h"
#include "collective_count.h"

namespace wb::step {
namespace {

const Model& mixtral() {
  static const Model m = load_model("mixtral-8x7b", WB_SOURCE_SUITES_DIR "/models");
  return m;
}

std::pair<int, std::uint64_t> count(const Program& p, CollOp op, Group g) {
  const testing::CollectiveCount c = testing::count_collectives(p, op, g);
  return {c.calls, c.bytes};
}

StepSettings ep_settings(int ranks, int ep) {
  StepSettings s;
  s.ranks = ranks;
  s.shard_group = ep;
  s.expert_parallel = ep;
  s.tokens = 4096;
  return s;
}

TEST(ExpertParallelTest, MixtralHasEightExpertsOfThreeMatricesAndARouter) {
  const Model& m = mixtral();
  const std::uint64_t expert = 3ull * 4096 * 14336;
  EXPECT_EQ(expert_parameters(m.shape), expert);
  // 46.7 B parameters (Mixtral's paper: 47 B), 12.9 B of them active per token (13 B).
  EXPECT_NEAR(static_cast<double>(m.parameters()) / 1e9, 46.7, 0.1);
  const double active = static_cast<double>(dense_part(m).parameters() + 32ull * 2 * expert);
  EXPECT_NEAR(active / 1e9, 12.9, 0.1);
  EXPECT_EQ(dense_part(m).units[1].tensors.back().name, "router");
}

TEST(ExpertParallelTest, TwoAllToAllPerLayerEachWayOfTheTokensTopKHiddenStates) {
  const Model& m = mixtral();
  const Program p = make_program(m, Strategy::kDdp, ep_settings(16, 8));
  EXPECT_EQ(p.strategy, "ep8+ddp");
  EXPECT_EQ(p.group_sizes[static_cast<int>(Group::kShard)], 8);
  EXPECT_EQ(p.group_sizes[static_cast<int>(Group::kReplicate)], 2);
  const std::uint64_t a2a = 4096ull * 2 * 4096 * 2;  // tokens x top_k x h, bf16
  EXPECT_EQ(expert_all_to_all_bytes(m.shape, ep_settings(16, 8)), a2a);
  const auto [calls, bytes] = count(p, CollOp::kAllToAll, Group::kShard);
  EXPECT_EQ(calls, 4 * 32);
  EXPECT_EQ(bytes, 4 * 32 * a2a);
  // Each rank's one expert (8 experts over 8 ranks) is reduced over the 2 ranks holding it, per layer.
  const auto [reductions, expert_bytes] = count(p, CollOp::kAllReduce, Group::kReplicate);
  EXPECT_EQ(reductions, 32);
  EXPECT_EQ(expert_bytes, 32 * 4 * expert_parameters(m.shape));
  // The dense part by DDP's buckets over all 16 ranks.
  EXPECT_EQ(count(p, CollOp::kAllReduce, Group::kWorld).second, 4 * dense_part(m).parameters());
  // The optimizer waits for the experts' reductions too.
  const Op& optimizer = p.ops.back();
  ASSERT_EQ(optimizer.label, "optimizer");
  int waited = 0;
  for (int a : optimizer.after)
    if (p.ops[static_cast<std::size_t>(a)].group == Group::kReplicate) ++waited;
  EXPECT_EQ(waited, 32);
}

TEST(ExpertParallelTest, TheExpertsComputeTopKMlpsPerTokenAndWaitForTheirTokens) {
  const Model& m = mixtral();
  const Program p = make_program(m, Strategy::kDdp, ep_settings(8, 8));
  double experts = 0;
  for (const Op& op : p.ops)
    if (op.kind == OpKind::kCompute && op.label.find("experts") != std::string::npos) {
      experts += op.compute_us;
      ASSERT_EQ(op.after.size(), 1u);
      EXPECT_EQ(p.ops[static_cast<std::size_t>(op.after[0])].collective, CollOp::kAllToAll) << op.label;
    }
  // forward 2 x 2 experts x P_e x tokens, backward twice that, 32 layers, at 400 TFLOP/s
  const double forward = 2.0 * 2 * static_cast<double>(expert_parameters(m.shape)) * 4096 / 400e12 * 1e6;
  EXPECT_NEAR(experts, 32 * 3 * forward, 1e-6 * experts);
  // One rank, no expert parallelism: no all_to_all and no reductions.
  const Program alone = make_program(m, Strategy::kDdp, ep_settings(1, 1));
  EXPECT_EQ(count(alone, CollOp::kAllToAll, Group::kShard).first, 4 * 32);  // all_to_all of one rank: free
  EXPECT_EQ(count(alone, CollOp::kAllReduce, Group::kReplicate).first, 0);  // no other rank holds its experts
}

TEST(ExpertParallelTest, WhatIsNotModelledIsRefused) {
  EXPECT_THROW(make_program(mixtral(), Strategy::kFsdpFull, ep_settings(8, 8)), UsageError);
  EXPECT_THROW(make_program(mixtral(), Strategy::kDdp, ep_settings(12, 3)), UsageError);  // 3 does not divide 8
  StepSettings dense = ep_settings(8, 8);
  EXPECT_THROW(make_program(load_model("llama2-7b", WB_SOURCE_SUITES_DIR "/models"), Strategy::kDdp, dense),
               UsageError);
}

TEST(ExpertParallelTest, MemoryHoldsTheRanksExpertsOnly) {
  const double ep8 = memory_per_rank(Strategy::kDdp, mixtral(), ep_settings(8, 8));
  const double ep1 = memory_per_rank(Strategy::kDdp, mixtral(), ep_settings(8, 1));
  // 16 bytes per parameter: ep1 holds all 8 experts of every layer, ep8 one.
  EXPECT_NEAR(ep1 - ep8, 16.0 * 32 * 7 * static_cast<double>(expert_parameters(mixtral().shape)), 1e3);
}

}  // namespace
}  // namespace wb::step
