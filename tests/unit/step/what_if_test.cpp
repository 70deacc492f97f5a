// --what-if: cluster shapes on the command line, and strong scaling played on link figures.
#include "step/what_if.h"

#include <gtest/gtest.h>

#include "harness/errors.h"

namespace wb::step {
namespace {

const Model& llama7b() {
  static const Model m = load_model("llama2-7b", WB_SOURCE_SUITES_DIR "/models");
  return m;
}

TEST(WhatIfTest, ShapesParseAloneAndAsLists) {
  const auto one = parse_cluster_shapes("4x8");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].nodes, 4);
  EXPECT_EQ(one[0].gpus_per_node, 8);
  EXPECT_EQ(one[0].ranks(), 32);
  const auto list = parse_cluster_shapes("1x8,2x8,16x4");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[2].nodes, 16);
  EXPECT_EQ(list[2].gpus_per_node, 4);
  for (const char* bad : {"8by8", "0x8", "4x", "x4", "4x8x2", "-1x8", "", ","}) {
    try {
      parse_cluster_shapes(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--what-if"), std::string::npos) << e.what();
    }
  }
}

TEST(WhatIfTest, AGlobalBatchIsSplitOverTheRanksAndComputeShrinksWithIt) {
  StepSettings base;
  const auto shapes = parse_cluster_shapes("1x8,2x8,4x8");
  const std::vector<Strategy> strategies = {Strategy::kDdp, Strategy::kZero3};
  const auto outcomes = predict_clusters(llama7b(), strategies, base, shapes, WhatIfLinks{}, std::nullopt, 65536.0);
  ASSERT_EQ(outcomes.size(), 6u);  // shape-major: every strategy on 1x8, then on 2x8, ...
  EXPECT_EQ(outcomes[0].strategy, Strategy::kDdp);
  EXPECT_EQ(outcomes[1].strategy, Strategy::kZero3);
  EXPECT_EQ(outcomes[2].shape.nodes, 2);
  EXPECT_DOUBLE_EQ(outcomes[0].tokens_per_rank, 8192);
  EXPECT_DOUBLE_EQ(outcomes[4].tokens_per_rank, 2048);
  // ZeRO-3's forward and backward halve with each doubling (its sharded optimizer shrinks too).
  EXPECT_LT(outcomes[3].timeline.compute_us, 0.51 * outcomes[1].timeline.compute_us);
  // Without a global batch every shape keeps --tokens per rank.
  const auto weak = predict_clusters(llama7b(), strategies, base, shapes, WhatIfLinks{}, std::nullopt, std::nullopt);
  EXPECT_DOUBLE_EQ(weak[4].tokens_per_rank, base.tokens);
}

TEST(WhatIfTest, ASlowNetworkStopsTheStepFromShrinking) {
  // 100 Gb/s per GPU between nodes, a fixed global batch: FSDP's step stops falling (its
  // communication does not shrink with the GPU count) while compute keeps halving.
  StepSettings base;
  WhatIfLinks slow;
  slow.inter_GBps = 12.5;
  const auto shapes = parse_cluster_shapes("4x8,8x8");
  const auto o = predict_clusters(llama7b(), {Strategy::kFsdpFull}, base, shapes, slow, std::nullopt, 262144.0);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_LT(o[1].timeline.compute_us, 0.51 * o[0].timeline.compute_us);
  EXPECT_GT(o[1].timeline.step_us, 0.9 * o[0].timeline.step_us);
  EXPECT_GT(o[1].timeline.exposed_us(), 2 * o[0].timeline.exposed_us());
  // and on the default NDR-per-GPU links it still scales
  const auto fast = predict_clusters(llama7b(), {Strategy::kFsdpFull}, base, shapes, WhatIfLinks{}, std::nullopt, 262144.0);
  EXPECT_LT(fast[1].timeline.step_us, 0.7 * fast[0].timeline.step_us);
}

TEST(WhatIfTest, HybridShardGroupsAreANodeUnlessGiven) {
  StepSettings base;
  const auto shapes = parse_cluster_shapes("2x4");
  const auto node = predict_clusters(llama7b(), {Strategy::kFsdpHybrid}, base, shapes, WhatIfLinks{}, std::nullopt, std::nullopt);
  const auto pairs = predict_clusters(llama7b(), {Strategy::kFsdpHybrid}, base, shapes, WhatIfLinks{}, 2, std::nullopt);
  EXPECT_LT(node[0].memory_bytes, pairs[0].memory_bytes);  // 16P/4 against 16P/2
  EXPECT_THROW(predict_clusters(llama7b(), {Strategy::kFsdpHybrid}, base, shapes, WhatIfLinks{}, 3, std::nullopt),
               UsageError);
}

TEST(WhatIfTest, OnAThousandNodesTreeCarriesDdpsBucketsAndTheStepShrinks) {
  StepSettings base;
  const auto shapes = parse_cluster_shapes("2x8,1024x8");
  WhatIfLinks no_nvls;  // NCCL chooses between ring and tree only
  no_nvls.nvswitch = NvSwitch::kNone;
  const auto ring = predict_clusters(llama7b(), {Strategy::kDdp}, base, shapes, no_nvls, std::nullopt, 4194304.0,
                                     parse_algorithm_policy("ring"));
  const auto nccl = predict_clusters(llama7b(), {Strategy::kDdp}, base, shapes, no_nvls, std::nullopt, 4194304.0);
  // 2 nodes: NCCL's choice is never slower than ring alone.
  EXPECT_LE(nccl[0].timeline.step_us, ring[0].timeline.step_us);
  // 1,024 nodes: ring's 2(p-1) latencies per bucket dominate; every bucket goes to tree.
  EXPECT_EQ(nccl[1].algorithms.at("all_reduce").count(Algorithm::kRing), 0u);
  EXPECT_GT(nccl[1].algorithms.at("all_reduce").at(Algorithm::kTree), 100);
  EXPECT_LT(nccl[1].timeline.step_us, 0.5 * ring[1].timeline.step_us);
  // With an HGX H100's NVSwitch NVLS tree carries them on both; no MPI algorithm is ever named.
  const auto hopper = predict_clusters(llama7b(), {Strategy::kDdp}, base, shapes, WhatIfLinks{}, std::nullopt, 4194304.0);
  for (const WhatIfOutcome& o : hopper) {
    EXPECT_GT(o.algorithms.at("all_reduce").count(Algorithm::kNvlsTree), 0u);
    for (const auto& [algorithm, count] : o.algorithms.at("all_reduce")) EXPECT_TRUE(is_nccl_algorithm(algorithm));
  }
  EXPECT_LT(hopper[0].timeline.step_us, nccl[0].timeline.step_us);
}

}  // namespace
}  // namespace wb::step
