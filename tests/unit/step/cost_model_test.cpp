// The cost model against cases worked by hand, the simulation's overlap rules, memory and the
// recommendation.
#include "step/cost_model.h"

#include <gtest/gtest.h>

#include <fstream>

#include "harness/errors.h"
#include "step/memory_model.h"
#include "../test_files.h"

namespace wb::step {
namespace {

TEST(CostModelTest, RingFormulasByHand) {
  const LinkCost link{10.0, 1e-3};  // 10 us, 1 GB/s
  // all_reduce, 4 ranks, 1 MB: 2*3*10 + 2*(3/4)*1e6*1e-3 = 60 + 1500
  EXPECT_DOUBLE_EQ(ring_time_us(CollOp::kAllReduce, 4, 1e6, link), 1560.0);
  // all_gather / reduce_scatter: 3*10 + (3/4)*1000 = 780
  EXPECT_DOUBLE_EQ(ring_time_us(CollOp::kAllGather, 4, 1e6, link), 780.0);
  EXPECT_DOUBLE_EQ(ring_time_us(CollOp::kReduceScatter, 4, 1e6, link), 780.0);
  // 8 ranks all_reduce of 8 MB: 14*10 + 2*(7/8)*8000 = 140 + 14000
  EXPECT_DOUBLE_EQ(ring_time_us(CollOp::kAllReduce, 8, 8e6, link), 14140.0);
  EXPECT_DOUBLE_EQ(ring_time_us(CollOp::kBroadcast, 4, 1e6, link), 1030.0);  // a chain: 3 hops, pipelined
  EXPECT_DOUBLE_EQ(ring_time_us(CollOp::kAllReduce, 1, 1e6, link), 0.0);
}

TEST(CostModelTest, TheMostSpecificFitWinsAndALinkCoversTheRest) {
  CollectiveCosts costs;
  costs.add_fit(CollOp::kAllReduce, 4, AlphaBeta{100, 0.01, 6});
  costs.add_fit(CollOp::kAllReduce, 4, AlphaBeta{50, 0.001, 6}, static_cast<int>(Group::kShard));
  EXPECT_DOUBLE_EQ(costs.predict_us(CollOp::kAllReduce, 4, 1000), 110.0);
  EXPECT_DOUBLE_EQ(costs.predict_us(CollOp::kAllReduce, 4, 1000, static_cast<int>(Group::kShard)), 51.0);
  EXPECT_THROW(costs.predict_us(CollOp::kAllGather, 4, 1000), std::out_of_range);
  costs.set_link({10.0, 1e-3});
  EXPECT_DOUBLE_EQ(costs.predict_us(CollOp::kAllGather, 4, 1e6), 780.0);
}

TEST(CostModelTest, SimulationFollowsStreamsDependenciesAndHostWaits) {
  Program p;
  p.group_sizes[0] = 2;
  const int fwd = p.compute("fwd", 100);
  const int ar = p.collective(CollOp::kAllReduce, Group::kWorld, 1000, 4, "ar", {fwd});
  p.compute("bwd", 80);                 // overlaps the all_reduce
  p.compute("optimizer", 30, {ar});     // waits for it
  Timeline t = simulate(p, [](const Op& op) { return op.kind == OpKind::kCompute ? op.compute_us : 50.0; });
  EXPECT_DOUBLE_EQ(t.ops[1].start_us, 100);
  EXPECT_DOUBLE_EQ(t.ops[1].end_us, 150);
  EXPECT_DOUBLE_EQ(t.ops[3].start_us, 180);
  EXPECT_DOUBLE_EQ(t.step_us, 210);
  EXPECT_DOUBLE_EQ(t.compute_us, 210);
  EXPECT_DOUBLE_EQ(t.exposed_us(), 0);
  // A slow all_reduce is exposed: 100 + 500, then the optimizer.
  t = simulate(p, [](const Op& op) { return op.kind == OpKind::kCompute ? op.compute_us : 500.0; });
  EXPECT_DOUBLE_EQ(t.step_us, 630);
  EXPECT_DOUBLE_EQ(t.exposed_us(), 420);
  // The host waiting for the all_reduce delays everything it issues after.
  Program q;
  q.group_sizes[0] = 2;
  const int a = q.collective(CollOp::kAllGather, Group::kWorld, 1000, 4, "ag");
  q.host_wait(a);
  q.compute("c", 10);
  t = simulate(q, [](const Op& op) { return op.kind == OpKind::kCompute ? op.compute_us : 40.0; });
  EXPECT_DOUBLE_EQ(t.ops[2].start_us, 40);
  EXPECT_DOUBLE_EQ(t.step_us, 50);
}

TEST(CostModelTest, CollectivesOnOneCommunicatorRunInIssueOrder) {
  Program p;
  p.group_sizes[0] = 4;
  const int slow_ready = p.compute("compute", 100);
  p.collective(CollOp::kReduceScatter, Group::kWorld, 1, 4, "rs", {slow_ready});
  p.collective(CollOp::kAllGather, Group::kWorld, 1, 4, "ag");  // ready at once, but queued behind rs
  const Timeline t = simulate(p, [](const Op& op) { return op.kind == OpKind::kCompute ? op.compute_us : 10.0; });
  EXPECT_DOUBLE_EQ(t.ops[2].start_us, 110);
}

TEST(CostModelTest, PredictedStepUsesScaledBytesAndGroupSizes) {
  Program p;
  p.group_sizes[0] = 4;
  p.compute("c", 1000);
  p.collective(CollOp::kAllReduce, Group::kWorld, 4000000, 4, "ar", {0});
  CollectiveCosts costs;
  costs.add_fit(CollOp::kAllReduce, 4, AlphaBeta{20, 0.001, 6});
  // At scale 0.5: compute 500, all_reduce of 2 MB: 20 + 2000.
  const Timeline t = predict_step(p, costs, 0.5);
  EXPECT_DOUBLE_EQ(t.step_us, 500 + 20 + 2000);
}

// A collective queued behind another on its communicator costs its back-to-back figure; one that
// starts on an idle communicator (after compute, or the first) its isolated figure.
TEST(CostModelTest, ACallCostsWhatItsContextCosts) {
  Program p;
  p.group_sizes[0] = 2;
  const int bwd = p.compute("bwd", 1000);
  p.collective(CollOp::kAllReduce, Group::kWorld, 1000, 4, "bucket 0", {bwd});  // isolated: after compute
  p.collective(CollOp::kAllReduce, Group::kWorld, 1000, 4, "bucket 1", {bwd});  // queued behind bucket 0
  CollectiveCosts costs;
  costs.add_fit(CollOp::kAllReduce, 2, AlphaBeta{100, 0, 2});
  costs.add_fit(CollOp::kAllReduce, 2, AlphaBeta{300, 0, 2}, CollectiveCosts::kAny, CollectiveCosts::kAny,
                CallContext::kIsolated);
  const Timeline t = predict_step(p, costs, 1.0);
  EXPECT_DOUBLE_EQ(t.ops[1].end_us - t.ops[1].start_us, 300);
  EXPECT_DOUBLE_EQ(t.ops[2].end_us - t.ops[2].start_us, 100);
  EXPECT_DOUBLE_EQ(t.step_us, 1400);
  // Nothing measured alone: the back-to-back figure stands for both.
  CollectiveCosts queued_only;
  queued_only.add_fit(CollOp::kAllReduce, 2, AlphaBeta{100, 0, 2});
  EXPECT_DOUBLE_EQ(queued_only.predict_us(CollOp::kAllReduce, 2, 10, CollectiveCosts::kAny, CollectiveCosts::kAny,
                                          CallContext::kIsolated),
                   100);
  // A gap between two calls (the host waited on compute) makes the second isolated too.
  Program q;
  q.group_sizes[0] = 2;
  q.collective(CollOp::kAllReduce, Group::kWorld, 1000, 4, "a");
  const int c = q.compute("c", 1000);
  q.collective(CollOp::kAllReduce, Group::kWorld, 1000, 4, "b", {c});
  const Timeline u = predict_step(q, costs, 1.0);
  EXPECT_DOUBLE_EQ(u.ops[2].end_us - u.ops[2].start_us, 300);
}

// Two collectives of groups that cross nodes, at once on one NIC: each progresses at half its
// speed while both run (two equal flows on one bottleneck), the one left alone at full speed again.
TEST(CostModelTest, CollectivesAtOnceOnOneLinkShareIt) {
  Program p;
  p.ranks = 4;
  p.group_sizes[0] = 4, p.group_sizes[1] = 2, p.group_sizes[2] = 2;
  p.collective(CollOp::kReduceScatter, Group::kShard, 1000, 4, "rs");        // 100 alone
  p.collective(CollOp::kAllReduce, Group::kReplicate, 1000, 4, "ar");        // 300 alone
  const auto alone = [](const Op& op, CallContext) { return op.group == Group::kShard ? 100.0 : 300.0; };
  // Apart (one node, or groups inside nodes): 100 and 300 side by side.
  Timeline t = simulate(p, alone);
  EXPECT_DOUBLE_EQ(t.ops[0].end_us, 100);
  EXPECT_DOUBLE_EQ(t.ops[1].end_us, 300);
  // Sharing: both at half speed until rs is done at 200 (ar has done 100 of 300), then ar alone: 400.
  SharedLink both{};
  both[static_cast<int>(Group::kShard)] = both[static_cast<int>(Group::kReplicate)] = true;
  t = simulate(p, alone, both);
  EXPECT_DOUBLE_EQ(t.ops[0].end_us, 200);
  EXPECT_DOUBLE_EQ(t.ops[1].end_us, 400);
  EXPECT_DOUBLE_EQ(t.step_us, 400);
  // Compute beside them shares nothing; a group inside the node neither.
  SharedLink one{};
  one[static_cast<int>(Group::kReplicate)] = true;
  t = simulate(p, alone, one);
  EXPECT_DOUBLE_EQ(t.ops[1].end_us, 300);
}

TEST(CostModelTest, WhichGroupsCrossNodesFollowsWhereTheirRanksSit) {
  Program p;
  p.ranks = 4;
  p.group_sizes[0] = 4, p.group_sizes[1] = 2, p.group_sizes[2] = 2;
  // 2 nodes x 2 ranks: a shard group of 2 consecutive ranks is one node; the replicas span both.
  SharedLink s = groups_crossing_nodes(p, 2, 2);
  EXPECT_TRUE(s[static_cast<int>(Group::kWorld)]);
  EXPECT_FALSE(s[static_cast<int>(Group::kShard)]);
  EXPECT_TRUE(s[static_cast<int>(Group::kReplicate)]);
  // 4 nodes x 1 rank: every group crosses.
  s = groups_crossing_nodes(p, 1, 4);
  EXPECT_TRUE(s[static_cast<int>(Group::kShard)] && s[static_cast<int>(Group::kReplicate)]);
  // One node: nothing does.
  s = groups_crossing_nodes(p, 4, 1);
  EXPECT_FALSE(s[0] || s[1] || s[2]);
}

TEST(CostModelTest, FitsFileIsReadAndBadLinesAreNamed) {
  const wb::testing::TempDir dir;
  const std::string path = dir.file("fits.csv");
  std::ofstream(path) << "bench,op,dtype,case,backend,link_class,ranks,nodes,alpha_us,beta_us_per_byte\n"
                         "coll,all_reduce,float32,out_of_place,mpi,eth,4,2,30,0.008\n"
                         "coll,all_gather,float32,out_of_place,mpi,shm,4,1,5,0.0001\n";
  CollectiveCosts costs = CollectiveCosts::from_fits_csv(path, "eth");
  EXPECT_DOUBLE_EQ(costs.predict_us(CollOp::kAllReduce, 4, 1000), 38.0);
  EXPECT_THROW(costs.predict_us(CollOp::kAllGather, 4, 1000), std::out_of_range);
  std::ofstream(path, std::ios::app) << "coll,all_reduce,float32,out_of_place,mpi,eth,four,2,30,0.008\n";
  try {
    CollectiveCosts::from_fits_csv(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4:"), std::string::npos) << e.what();
  }
}

TEST(MemoryModelTest, ZeroPaperFormulas) {
  const double P = 7.5e9;  // the paper's example: 7.5 B parameters on 64 GPUs
  EXPECT_DOUBLE_EQ(model_state_bytes(Strategy::kDdp, P, 64, 8), 120e9);
  EXPECT_NEAR(model_state_bytes(Strategy::kZero1, P, 64, 8), 31.4e9, 0.1e9);
  EXPECT_NEAR(model_state_bytes(Strategy::kZero2, P, 64, 8), 16.6e9, 0.1e9);
  EXPECT_NEAR(model_state_bytes(Strategy::kZero3, P, 64, 8), 1.9e9, 0.1e9);
  EXPECT_DOUBLE_EQ(model_state_bytes(Strategy::kFsdpHybrid, P, 64, 8), 15e9);
}

ModelShape shape(int layers, std::uint64_t h, std::uint64_t f, std::uint64_t V, int heads, int kv_heads, bool gated) {
  ModelShape m;
  m.name = "test";
  m.layers = layers;
  m.hidden = h;
  m.mlp = f;
  m.vocab = V;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.gated_mlp = gated;
  return m;
}

TEST(MemoryModelTest, ActivationsOfAPlainLayerAreKorthikantisWithoutMasksAndScores) {
  // GPT-3 175B's shape: 34 s b h bytes per layer in Korthikanti et al. 2022, of which 2 s b h are
  // dropout masks (none here) and 5 a s^2 b the attention scores FlashAttention does not keep.
  const ModelShape gpt3 = shape(96, 12288, 4 * 12288, 50257, 96, 96, false);
  const double tokens = 2048;
  const double head = tokens * (2.0 * 12288 * 2 + 50257.0 * 6);
  EXPECT_DOUBLE_EQ(activation_bytes(gpt3, tokens, false), 96 * 32.0 * tokens * 12288 + head);
}

TEST(MemoryModelTest, ActivationsOfLlama2ByHand) {
  // Llama-2 7B, 4096 tokens: per layer and token 6h + 2h (32 KV heads) + 3f = 65792 bf16 values.
  const ModelShape llama = shape(32, 4096, 11008, 32000, 32, 32, true);
  const double layer = 4096.0 * 65792 * 2, head = 4096.0 * (2 * 4096 * 2 + 32000 * 6);
  EXPECT_DOUBLE_EQ(activation_bytes(llama, 4096, false), 32 * layer + head);  // about 18.1 GB
  EXPECT_NEAR(activation_bytes(llama, 4096, false), 18.1e9, 0.05e9);
  // Checkpointed: every layer's input, one layer in full while recomputed, the head.
  EXPECT_DOUBLE_EQ(activation_bytes(llama, 4096, true), 32 * 4096.0 * 4096 * 2 + layer + head);
  // Grouped-query attention keeps smaller k and v: Llama-2 70B's 8 KV heads of 64.
  const ModelShape gqa = shape(1, 8192, 28672, 32000, 64, 8, true);
  const ModelShape mha = shape(1, 8192, 28672, 32000, 64, 64, true);
  EXPECT_DOUBLE_EQ(activation_bytes(mha, 1, false) - activation_bytes(gqa, 1, false), 2.0 * (8192 - 1024) * 2);
}

TEST(MemoryModelTest, MemoryPerRankAddsActivationsToModelStates) {
  const Model model = build_model(shape(2, 256, 1024, 1000, 4, 4, true));
  StepSettings s;
  s.ranks = 4;
  s.shard_group = 2;
  s.tokens = 512;
  const double P = static_cast<double>(model.parameters());
  for (bool checkpointing : {false, true}) {
    s.activation_checkpointing = checkpointing;
    EXPECT_DOUBLE_EQ(memory_per_rank(Strategy::kZero3, model, s),
                     16 * P / 4 + activation_bytes(model.shape, 512, checkpointing));
  }
  // DDP's buckets hold one more fp32 copy of the gradients unless they are the gradients' storage.
  const double activations = activation_bytes(model.shape, 512, true);
  EXPECT_DOUBLE_EQ(memory_per_rank(Strategy::kDdp, model, s), 20 * P + activations);
  EXPECT_EQ(memory_formula(Strategy::kDdp, s), "16P+4P buckets");
  s.gradient_as_bucket_view = true;
  EXPECT_DOUBLE_EQ(memory_per_rank(Strategy::kDdp, model, s), 16 * P + activations);
  EXPECT_EQ(memory_formula(Strategy::kDdp, s), "16P");
}

TEST(MemoryModelTest, FsdpHoldsTwoGatheredLayersTheRootAndOneUnitsGradient) {
  const Model tiny = load_model("tiny", WB_SOURCE_SUITES_DIR "/models");
  // tiny: 4 layers of 4h^2 + 3hf + 2h (h 384, f 1024), a root of 2Vh + h (V 2048)
  const double layer = 4.0 * 384 * 384 + 3.0 * 384 * 1024 + 2 * 384, root = 2.0 * 2048 * 384 + 384;
  StepSettings s;
  s.ranks = 4;
  s.shard_group = 2;
  EXPECT_DOUBLE_EQ(fsdp_unsharded_bytes(Strategy::kFsdpFull, tiny, s), (root + 2 * layer) * 4 + layer * 4);
  EXPECT_DOUBLE_EQ(fsdp_unsharded_bytes(Strategy::kFsdpHybrid, tiny, s), (root + 2 * layer) * 4 + layer * 4);
  EXPECT_DOUBLE_EQ(fsdp_unsharded_bytes(Strategy::kFsdpGradOp, tiny, s), layer * 4);
  s.param_bytes = s.grad_bytes = 2;  // bf16
  EXPECT_DOUBLE_EQ(fsdp_unsharded_bytes(Strategy::kFsdpFull, tiny, s), (root + 2 * layer) * 2 + layer * 2);
  for (Strategy other : {Strategy::kDdp, Strategy::kZero1, Strategy::kZero2, Strategy::kZero3})
    EXPECT_EQ(fsdp_unsharded_bytes(other, tiny, s), 0) << strategy_name(other);
  s.tokens = 512;
  EXPECT_DOUBLE_EQ(memory_per_rank(Strategy::kFsdpFull, tiny, s),
                   model_state_bytes(Strategy::kFsdpFull, static_cast<double>(tiny.parameters()), 4, 2) +
                       fsdp_unsharded_bytes(Strategy::kFsdpFull, tiny, s) + activation_bytes(tiny.shape, 512, false));
}

TEST(MemoryModelTest, RecommendationIsTheFastestThatFits) {
  const std::vector<StrategyOutcome> outcomes = {
      {Strategy::kDdp, 100, 112e9}, {Strategy::kFsdpFull, 130, 14e9}, {Strategy::kZero2, 120, 20e9}};
  Recommendation r = recommend(outcomes, 80e9, StepSettings{});
  ASSERT_TRUE(r.strategy);
  EXPECT_EQ(*r.strategy, Strategy::kZero2);
  EXPECT_NE(r.reason.find("ddp is faster"), std::string::npos) << r.reason;
  r = recommend(outcomes, 200e9, StepSettings{});
  EXPECT_EQ(*r.strategy, Strategy::kDdp);
  r = recommend(outcomes, 1e9, StepSettings{});
  EXPECT_FALSE(r.strategy);
  EXPECT_NE(r.reason.find("no strategy"), std::string::npos);
}

}  // namespace
}  // namespace wb::step

namespace wb::step {
namespace {

TEST(TimelineTest, CommunicationBusyTimeIsTheUnionOverStreams) {
  Program p;
  p.group_sizes[1] = p.group_sizes[2] = 2;
  p.collective(CollOp::kReduceScatter, Group::kShard, 1, 4, "a");
  p.collective(CollOp::kAllReduce, Group::kReplicate, 1, 4, "b");
  p.compute("c", 5);
  Timeline t;
  t.ops = {{0, 10}, {5, 20}, {0, 5}};
  EXPECT_DOUBLE_EQ(communication_busy_us(p, t), 20);
  t.ops = {{0, 10}, {30, 40}, {0, 5}};
  EXPECT_DOUBLE_EQ(communication_busy_us(p, t), 20);
}

}  // namespace
}  // namespace wb::step

namespace wb::step {
namespace {

TEST(CostModelTest, MeasuredSweepsAreFollowedBetweenTheirSizesAndTheFitOutside) {
  CollectiveCosts costs;
  // A library switching algorithm at 1000 bytes: the line through all points would miss both sides.
  costs.add_sweep(CollOp::kReduceScatter, 3, {{4000, 900, 0}, {100, 10, 0}, {1000, 100, 0}}, AlphaBeta{0, 0.2, 3});
  EXPECT_DOUBLE_EQ(costs.predict_us(CollOp::kReduceScatter, 3, 550), 55);    // between 100 and 1000
  EXPECT_DOUBLE_EQ(costs.predict_us(CollOp::kReduceScatter, 3, 2500), 500);  // between 1000 and 4000
  EXPECT_DOUBLE_EQ(costs.predict_us(CollOp::kReduceScatter, 3, 1000), 100);
  EXPECT_DOUBLE_EQ(costs.predict_us(CollOp::kReduceScatter, 3, 8000), 1600);  // beyond: the fit
}

}  // namespace
}  // namespace wb::step

namespace wb::step {
namespace {

TEST(CostModelTest, HierarchicalCollectivesByHand) {
  ClusterWiring w;
  w.nodes = 4;
  w.gpus_per_node = 8;
  w.intra = {2.0, 1e-3 / 400};  // 400 GB/s: 2.5 ps per byte
  w.inter = {5.0, 1e-3 / 50};   // 50 GB/s: 20 ps per byte
  const double S = 8e9;         // 8 GB of gradients
  // all_reduce: inside the node 2*7*2 + 2*(7/8)*8e9*2.5e-6 = 28 + 35000; across the 4 nodes over
  // a GPU's eighth, 1e9 bytes: 2*3*5 + 2*(3/4)*1e9*2e-5 = 30 + 30000.
  EXPECT_NEAR(hierarchical_time_us(CollOp::kAllReduce, Algorithm::kRing, S, w), 28 + 35000 + 30 + 30000, 1e-6);
  // all_gather: 7*2 + (7/8)*8e9*2.5e-6 + 3*5 + (3/4)*1e9*2e-5 = 14 + 17500 + 15 + 15000
  EXPECT_NEAR(hierarchical_time_us(CollOp::kAllGather, Algorithm::kRing, S, w), 14 + 17500 + 15 + 15000, 1e-6);
  // One node: a ring over NVLink only; one GPU per node: a ring over the NICs only.
  w.nodes = 1;
  EXPECT_NEAR(hierarchical_time_us(CollOp::kAllReduce, Algorithm::kRing, S, w), 28 + 35000, 1e-6);
  w.nodes = 4;
  w.gpus_per_node = 1;
  EXPECT_NEAR(hierarchical_time_us(CollOp::kAllReduce, Algorithm::kRing, S, w), 30 + 2 * 0.75 * 8e9 * 2e-5, 1e-6);
}

TEST(CostModelTest, WhatIfGroupsUseTheirOwnLinks) {
  Program p;
  p.group_sizes[static_cast<int>(Group::kWorld)] = 16;
  p.group_sizes[static_cast<int>(Group::kShard)] = 8;
  p.group_sizes[static_cast<int>(Group::kReplicate)] = 2;
  p.collective(CollOp::kReduceScatter, Group::kShard, 8000000, 4, "rs");
  p.collective(CollOp::kAllReduce, Group::kReplicate, 1000000, 4, "ar", {0});
  ClusterWiring w{2, 8, {1.0, 1e-6}, {10.0, 1e-5}};
  const Timeline t = predict_step(p, w, {Algorithm::kRing});
  const double rs = 7 * 1.0 + 7.0 / 8 * 8e6 * 1e-6;  // a ring over the node's links
  const double ar = 2 * 10.0 + 2 * 0.5 * 1e6 * 1e-5;  // a ring over the NICs
  EXPECT_NEAR(t.ops[0].end_us, rs, 1e-9);
  EXPECT_NEAR(t.step_us, rs + ar, 1e-9);
}

}  // namespace
}  // namespace wb::step
