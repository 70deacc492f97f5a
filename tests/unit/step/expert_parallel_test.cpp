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
  EXPECT_THROW(make_program(mixtral(), Strategy::kFsdpHybrid, ep_settings(8, 8)), UsageError);
  EXPECT_THROW(make_program(mixtral(), Strategy::kZero3, ep_settings(8, 8)), UsageError);
  EXPECT_THROW(make_program(mixtral(), Strategy::kDdp, ep_settings(12, 3)), UsageError);  // 3 does not divide 8
  StepSettings dense = ep_settings(8, 8);
  EXPECT_THROW(make_program(load_model("llama2-7b", WB_SOURCE_SUITES_DIR "/models"), Strategy::kDdp, dense),
               UsageError);
}

// The dense part's collectives are those of the strategy alone on the dense model, over every rank.
void expect_dense_part_as_alone(const Program& with_experts, Strategy s, int ranks) {
  StepSettings alone = ep_settings(ranks, 1);
  const Program dense = make_program(dense_part(mixtral()), s, alone);
  for (CollOp op : {CollOp::kAllReduce, CollOp::kAllGather, CollOp::kReduceScatter}) {
    const auto expected = count(dense, op, Group::kWorld);
    EXPECT_EQ(count(with_experts, op, Group::kWorld), expected) << describe(op).name;
  }
}

TEST(ExpertParallelTest, FullShardGathersALayersExpertsBeforeBothPassesAndReduceScattersTheirGradients) {
  const Model& m = mixtral();
  const Program p = make_program(m, Strategy::kFsdpFull, ep_settings(16, 8));
  EXPECT_EQ(p.strategy, "ep8+fsdp-full");
  const std::uint64_t expert = expert_parameters(m.shape);  // one per rank, over 2 replicas
  EXPECT_EQ(count(p, CollOp::kAllToAll, Group::kShard).first, 4 * 32);
  EXPECT_EQ(count(p, CollOp::kAllGather, Group::kReplicate), std::make_pair(2 * 32, 2 * 32 * padded(expert, 2) * 4));
  EXPECT_EQ(count(p, CollOp::kReduceScatter, Group::kReplicate), std::make_pair(32, 32 * padded(expert, 2) * 4));
  EXPECT_EQ(count(p, CollOp::kAllReduce, Group::kReplicate).first, 0);
  expect_dense_part_as_alone(p, Strategy::kFsdpFull, 16);
  // Each layer's experts compute after their tokens arrive and their parameters are gathered.
  int gathered_computes = 0;
  for (const Op& op : p.ops)
    if (op.kind == OpKind::kCompute && op.label.ends_with(" experts")) {
      bool waits_for_gather = false;
      for (int a : op.after) waits_for_gather |= p.ops[static_cast<std::size_t>(a)].collective == CollOp::kAllGather;
      gathered_computes += waits_for_gather ? 1 : 0;
    }
  EXPECT_EQ(gathered_computes, 2 * 32);
}

TEST(ExpertParallelTest, ShardGradOpGathersTheExpertsForForwardOnly) {
  const Program p = make_program(mixtral(), Strategy::kFsdpGradOp, ep_settings(16, 8));
  EXPECT_EQ(count(p, CollOp::kAllGather, Group::kReplicate).first, 32);
  EXPECT_EQ(count(p, CollOp::kReduceScatter, Group::kReplicate).first, 32);
  expect_dense_part_as_alone(p, Strategy::kFsdpGradOp, 16);
}

TEST(ExpertParallelTest, ZeroReducesTheExpertsAndGathersThemBackAfterTheOptimizer) {
  const Model& m = mixtral();
  const std::uint64_t layer_experts = padded(expert_parameters(m.shape), 2);
  for (Strategy s : {Strategy::kZero1, Strategy::kZero2}) {
    const Program p = make_program(m, s, ep_settings(16, 8));
    EXPECT_EQ(count(p, CollOp::kAllReduce, Group::kReplicate), std::make_pair(32, 32 * layer_experts * 4));
    EXPECT_EQ(count(p, CollOp::kAllGather, Group::kReplicate), std::make_pair(1, 32 * layer_experts * 4));
    expect_dense_part_as_alone(p, s, 16);
    // Stage 2 reduces each layer as its experts finish backward; stage 1 once backward is over.
    int after_attention = 0;
    for (const Op& op : p.ops)
      if (op.kind == OpKind::kCollective && op.group == Group::kReplicate && op.collective == CollOp::kAllReduce)
        after_attention += p.ops[static_cast<std::size_t>(op.after.at(0))].label.ends_with(" attention") ? 1 : 0;
    EXPECT_EQ(after_attention, s == Strategy::kZero1 ? 32 : 0) << strategy_name(s);
    // The gather follows the optimizer, which waited for every reduction.
    const Op& gather = p.ops.back();
    ASSERT_EQ(gather.collective, CollOp::kAllGather);
    EXPECT_EQ(p.ops[static_cast<std::size_t>(gather.after.at(0))].label, "optimizer");
  }
  // ZeRO as the paper has it reduce_scatters instead.
  const Program paper = make_program(m, Strategy::kZero2Paper, ep_settings(16, 8));
  EXPECT_EQ(count(paper, CollOp::kReduceScatter, Group::kReplicate).first, 32);
}

TEST(ExpertParallelTest, WithoutReplicasTheExpertsNeedNoExchange) {
  const Program p = make_program(mixtral(), Strategy::kFsdpFull, ep_settings(8, 8));
  EXPECT_EQ(count(p, CollOp::kAllGather, Group::kReplicate).first, 0);
  EXPECT_EQ(count(p, CollOp::kReduceScatter, Group::kReplicate).first, 0);
}

TEST(ExpertParallelTest, ShardedStrategiesShardTheExpertsStatesOverTheirReplicas) {
  const Model& m = mixtral();
  const double expert = static_cast<double>(expert_parameters(m.shape));
  // 32 ranks, ep8: each rank's one expert per layer has 4 replicas. FULL_SHARD keeps 16 bytes per
  // parameter over them, plus one layer's expert gathered whole with its gradient (4 + 4 bytes).
  StepSettings s = ep_settings(32, 8);
  const double full = memory_per_rank(Strategy::kFsdpFull, m, s);
  StepSettings dense_only = ep_settings(32, 1);
  const Model dense = dense_part(m);
  const double dense_full = memory_per_rank(Strategy::kFsdpFull, dense, dense_only) -
                            activation_bytes_per_rank(dense.shape, dense_only);
  EXPECT_NEAR(full - dense_full - activation_bytes_per_rank(m.shape, s), 16.0 * 32 * expert / 4 + 8 * expert, 1e3);
}

TEST(ExpertParallelTest, MemoryHoldsTheRanksExpertsOnly) {
  const double ep8 = memory_per_rank(Strategy::kDdp, mixtral(), ep_settings(8, 8));
  const double ep1 = memory_per_rank(Strategy::kDdp, mixtral(), ep_settings(8, 1));
  // 16 bytes per parameter: ep1 holds all 8 experts of every layer, ep8 one.
  EXPECT_NEAR(ep1 - ep8, 16.0 * 32 * 7 * static_cast<double>(expert_parameters(mixtral().shape)), 1e3);
}

}  // namespace
}  // namespace wb::step
