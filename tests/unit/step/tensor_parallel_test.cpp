// Megatron tensor parallelism inside a data-parallel strategy: the collectives and their bytes
// against the formulas, the groups, the memory, and why TP stays inside an NVLink domain.
#include "step/tensor_parallel.h"

#include <gtest/gtest.h>

#include "harness/errors.h"
#include "step/cost_model.h"
#include "step/memory_model.h"
#include "step/what_if.h"
#include "collective_count.h"

namespace wb::step {
namespace {

const Model& llama7b() {
  static const Model m = load_model("llama2-7b", WB_SOURCE_SUITES_DIR "/models");
  return m;
}

using Count = testing::CollectiveCount;
Count count(const Program& p, CollOp op, Group g) { return testing::count_collectives(p, op, g); }

StepSettings tp_settings(int ranks, int tp, bool sp = false) {
  StepSettings s;
  s.ranks = ranks;
  s.tensor_parallel = tp;
  s.sequence_parallel = sp;
  s.tokens = 4096;
  return s;
}

TEST(TensorParallelTest, FourActivationAllReducesPerLayerOfTokensTimesHiddenInBf16) {
  const Model& m = llama7b();
  const Program p = make_program(m, Strategy::kDdp, tp_settings(16, 8));
  EXPECT_EQ(p.strategy, "tp8+ddp");
  EXPECT_EQ(p.group_sizes[static_cast<int>(Group::kWorld)], 16);
  EXPECT_EQ(p.group_sizes[static_cast<int>(Group::kShard)], 8);
  EXPECT_EQ(p.group_sizes[static_cast<int>(Group::kReplicate)], 2);
  const Count tp = count(p, CollOp::kAllReduce, Group::kShard);
  EXPECT_EQ(tp.calls, 4 * m.shape.layers);  // attention and MLP, forward and backward
  const std::uint64_t per_call = 4096ull * m.shape.hidden * 2;  // b s h, bf16
  EXPECT_EQ(tensor_parallel_bytes(m.shape, tp_settings(16, 8)), per_call);
  EXPECT_EQ(tp.bytes, per_call * 4 * static_cast<std::uint64_t>(m.shape.layers));
  // DDP over the 2 replicas reduces the fp32 gradients of one rank's eighth of the model.
  const Count dp = count(p, CollOp::kAllReduce, Group::kReplicate);
  EXPECT_EQ(dp.bytes, 4 * tensor_parallel_shard(m, 8).parameters());
  EXPECT_EQ(count(p, CollOp::kAllReduce, Group::kWorld).calls, 0);
  // Compute per rank: an eighth of the layers' FLOPs (the norms are whole, a rounding error).
  const double ddp_compute = compute_total_us(make_program(m, Strategy::kDdp, tp_settings(2, 1)));
  EXPECT_NEAR(compute_total_us(p) / ddp_compute, 1.0 / 8, 0.01);
}

TEST(TensorParallelTest, SequenceParallelismTurnsEachAllReduceIntoAGatherAndAScatter) {
  const Model& m = llama7b();
  const Program p = make_program(m, Strategy::kFsdpFull, tp_settings(8, 4, true));
  EXPECT_EQ(p.strategy, "tp4+fsdp-full");
  EXPECT_EQ(count(p, CollOp::kAllReduce, Group::kShard).calls, 0);
  EXPECT_EQ(count(p, CollOp::kAllGather, Group::kShard).calls, 4 * m.shape.layers);
  EXPECT_EQ(count(p, CollOp::kReduceScatter, Group::kShard).calls, 4 * m.shape.layers);
  // FSDP's own gathers and scatters run over the 2 data-parallel ranks.
  EXPECT_GT(count(p, CollOp::kAllGather, Group::kReplicate).calls, m.shape.layers);
  EXPECT_GT(count(p, CollOp::kReduceScatter, Group::kReplicate).calls, m.shape.layers - 1);
}

TEST(TensorParallelTest, EachBlockWaitsForThePreviousBlocksCollective) {
  const Program p = make_program(llama7b(), Strategy::kDdp, tp_settings(8, 8));
  // Every compute after a TP all_reduce depends on it: the activations are on the critical path.
  for (std::size_t i = 0; i + 1 < p.ops.size(); ++i) {
    const Op& op = p.ops[i];
    if (op.kind != OpKind::kCollective || op.group != Group::kShard) continue;
    std::size_t next = i + 1;
    while (next < p.ops.size() && p.ops[next].kind != OpKind::kCompute) ++next;
    ASSERT_LT(next, p.ops.size());
    const auto& after = p.ops[next].after;
    EXPECT_NE(std::find(after.begin(), after.end(), static_cast<int>(i)), after.end()) << p.ops[next].label;
  }
}

TEST(TensorParallelTest, GroupsThatCannotBeModelledAreRefused) {
  EXPECT_THROW(make_program(llama7b(), Strategy::kZero3, tp_settings(8, 4)), UsageError);
  EXPECT_THROW(make_program(llama7b(), Strategy::kFsdpHybrid, tp_settings(8, 4)), UsageError);
  EXPECT_THROW(make_program(llama7b(), Strategy::kDdp, tp_settings(12, 8)), UsageError);
  EXPECT_EQ(parse_plan("tp4+fsdp-full"), (PlanSpec{Strategy::kFsdpFull, 4, 1}));
  EXPECT_EQ(parse_plan("tp8"), (PlanSpec{Strategy::kDdp, 8, 1}));
  EXPECT_EQ(parse_plan("ep8+ddp"), (PlanSpec{Strategy::kDdp, 1, 8}));
  EXPECT_EQ(parse_plan("zero2"), (PlanSpec{Strategy::kZero2, 1, 1}));
  EXPECT_THROW(parse_plan("tpx+ddp"), UsageError);
  EXPECT_THROW(parse_plan("tp4+nothing"), UsageError);
}

TEST(TensorParallelTest, MemoryPerRankIsTheShardsStatesAndPartOfTheActivations) {
  const Model& m = llama7b();
  StepSettings plain;
  plain.ranks = 1;
  plain.shard_group = 1;
  const double one_gpu = memory_per_rank(Strategy::kDdp, m, plain);
  const double tp8 = memory_per_rank(Strategy::kDdp, m, tp_settings(8, 8));
  const double tp8_sp = memory_per_rank(Strategy::kDdp, m, tp_settings(8, 8, true));
  EXPECT_LT(tp8, one_gpu / 5);  // states / 8; the blocks' inputs stay whole
  EXPECT_LT(tp8_sp, tp8);
  // With sequence parallelism exactly an eighth of the activations.
  EXPECT_NEAR(activation_bytes_per_rank(m.shape, tp_settings(8, 8, true)),
              activation_bytes(m.shape, 4096, false) / 8, 1);
}

TEST(TensorParallelTest, TensorParallelismAcrossTwoNodesCostsTheNetwork) {
  // TP 8 on one node of 8 GPUs (NVLink) against TP 8 over two nodes of 4: every one of the 128
  // activation all_reduce (33.5 MB) then crosses the nodes' NICs.
  StepSettings base;
  base.tensor_parallel = 8;
  const auto step = [&](const char* shape, const WhatIfLinks& links, const char* algorithm = "nccl") {
    return predict_clusters(llama7b(), {Strategy::kDdp}, base, parse_cluster_shapes(shape), links, std::nullopt,
                            std::nullopt, parse_algorithm_policy(algorithm))[0].timeline;
  };
  WhatIfLinks rings;  // no NVLS: NCCL runs ring or tree on these links
  rings.nvswitch = NvSwitch::kNone;
  // By hand on NVLink 360 GB/s, 2 us: ring over 8, 2 (7/8) 33.5e6 / 360e3 + 14 x 2 = 191 us a call.
  const double per_call = 2 * 7.0 / 8 * 4096 * 4096 * 2 / 360e3 + 28;
  EXPECT_NEAR(step("1x8", rings).exposed_us(), 128 * per_call, 0.01 * 128 * per_call);
  // An HGX H100's NVSwitch runs them as NVLS: the buffer once each way at .85 x 15/16 of NVLink.
  const double nvls_call = 2 + 4096 * 4096 * 2 / (0.85 * 15 / 16 * 360e3);
  EXPECT_NEAR(step("1x8", WhatIfLinks{}).exposed_us(), 128 * nvls_call, 0.01 * 128 * nvls_call);
  // Across two nodes, a ring (NCCL_ALGO=Ring) whose GPUs share the node's 4 NDR NICs (184 GB/s):
  // 1.85 times the communication (2 (15/16) 33.5e6 / 184e3 + 12 x 2 + 2 x 5 = 353 us a call).
  EXPECT_GT(step("2x4", rings, "ring").exposed_us(), 1.7 * step("1x8", rings, "ring").exposed_us());
  EXPECT_GT(step("2x4", rings, "ring").step_us, 1.15 * step("1x8", rings, "ring").step_us);
  // NCCL's own pick on two nodes is the tree, whose NICs carry the buffer once each way
  // (33.5e6 / (.92 x 180e3) + 2 (3 x 2 + 5) = 225 us): still more than one node's 191.
  EXPECT_NEAR(step("2x4", rings).exposed_us(), 128 * (4096 * 4096 * 2 / (0.92 * 180e3) + 22), 0.01 * 128 * 225);
  EXPECT_GT(step("2x4", rings).exposed_us(), 1.15 * step("1x8", rings).exposed_us());
  // With NVLS tree across the two nodes the NICs still bound it: 1.5 times NVLS's time.
  EXPECT_GT(step("2x4", WhatIfLinks{}).exposed_us(), 1.5 * step("1x8", WhatIfLinks{}).exposed_us());
  // With 100 Gb/s per GPU between the nodes the step nearly doubles.
  WhatIfLinks slow;
  slow.inter_GBps = 12.5;
  EXPECT_GT(step("2x4", slow).step_us, 1.7 * step("1x8", slow).step_us);
  // The TP group inside one node is flat on the node's links; across two, hierarchical.
  const Program p = make_program(llama7b(), Strategy::kDdp, tp_settings(8, 8));
  const ClusterWiring one_node = group_wiring(p, Group::kShard, ClusterWiring{1, 8, {2, 1e-3 / 360}, {5, 1e-3 / 46}});
  const ClusterWiring two_nodes = group_wiring(p, Group::kShard, ClusterWiring{2, 4, {2, 1e-3 / 360}, {5, 1e-3 / 46}});
  EXPECT_EQ(one_node.nodes, 1);
  EXPECT_EQ(one_node.gpus_per_node, 8);
  EXPECT_EQ(two_nodes.nodes, 2);
  EXPECT_EQ(two_nodes.gpus_per_node, 4);
}

}  // namespace
}  // namespace wb::step
