// The step programs against the volumes of docs/step-emulation.md, exactly, on the tiny model, and the
// order rules each framework follows.
#include <gtest/gtest.h>

#include <algorithm>

#include "step/model.h"
#include "step/strategy.h"
#include "step/timeline.h"

namespace wb::step {
namespace {

const Model& tiny() {
  static const Model m = load_model("tiny", WB_SOURCE_SUITES_DIR "/models");
  return m;
}

// The tiny model's sizes, written out: h 384, f 1024, V 2048, 4 layers; every count divides by
// 2, 3, 4, 6 and 12, so no shard padding enters the formulas.
constexpr std::uint64_t kLayer = 4ull * 384 * 384 + 3ull * 384 * 1024 + 2 * 384;
constexpr std::uint64_t kRoot = 2ull * 2048 * 384 + 384;
constexpr std::uint64_t kP = 4 * kLayer + kRoot;
constexpr std::uint64_t kNorms = 4 * 2 * 384 + 384;  // under DeepSpeed's persistence threshold

StepSettings settings(int ranks, int bytes = 4) {
  StepSettings s;
  s.ranks = ranks;
  s.shard_group = ranks / 2;
  s.param_bytes = s.grad_bytes = bytes;
  return s;
}

std::uint64_t kind(const Program& p, const std::string& key) {
  const auto all = bytes_by_kind(p);
  const auto it = all.find(key);
  return it == all.end() ? 0 : it->second;
}

TEST(StepProgramTest, TinyModelCountsAreDivisible) {
  ASSERT_EQ(tiny().parameters(), kP);
  for (int n : {2, 3, 4, 6, 12}) EXPECT_EQ(kP % static_cast<std::uint64_t>(n), 0u);
}

TEST(StepProgramTest, BytesPerCollectiveKindMatchTheFormulas) {
  for (int n : {2, 4}) {
    for (int b : {4, 2}) {
      SCOPED_TRACE("ranks " + std::to_string(n) + ", element bytes " + std::to_string(b));
      const StepSettings s = settings(n, b);
      auto program = [&](Strategy st) { return make_program(tiny(), st, s); };
      // DDP: fp32 gradients all_reduced, whatever the precision of the sharded strategies.
      EXPECT_EQ(bytes_by_kind(program(Strategy::kDdp)), (std::map<std::string, std::uint64_t>{{"all_reduce", 4 * kP}}));
      // FULL_SHARD: gather forward and again backward (not the root), reduce_scatter once.
      const Program full = program(Strategy::kFsdpFull);
      EXPECT_EQ(kind(full, "all_gather"), b * (2 * kP - kRoot));
      EXPECT_EQ(kind(full, "reduce_scatter"), b * kP);
      EXPECT_EQ(bytes_by_kind(full).size(), 2u);
      const Program grad_op = program(Strategy::kFsdpGradOp);
      EXPECT_EQ(kind(grad_op, "all_gather"), b * kP);
      EXPECT_EQ(kind(grad_op, "reduce_scatter"), b * kP);
      // HYBRID: FULL_SHARD in the shard group, the gradient shard all_reduced across replicas.
      const Program hybrid = program(Strategy::kFsdpHybrid);
      const std::uint64_t g = static_cast<std::uint64_t>(s.shard_group);
      EXPECT_EQ(kind(hybrid, "all_gather@shard"), b * (2 * kP - kRoot));
      EXPECT_EQ(kind(hybrid, "reduce_scatter@shard"), b * kP);
      EXPECT_EQ(kind(hybrid, "all_reduce@replicate"), b * kP / g);
      // ZeRO-1/2 as DeepSpeed ships them: all_reduce + all_gather; as the paper: reduce_scatter.
      for (Strategy st : {Strategy::kZero1, Strategy::kZero2}) {
        EXPECT_EQ(bytes_by_kind(program(st)),
                  (std::map<std::string, std::uint64_t>{{"all_gather", b * kP}, {"all_reduce", b * kP}}));
      }
      for (Strategy st : {Strategy::kZero1Paper, Strategy::kZero2Paper}) {
        EXPECT_EQ(bytes_by_kind(program(st)),
                  (std::map<std::string, std::uint64_t>{{"all_gather", b * kP}, {"reduce_scatter", b * kP}}));
      }
      // ZeRO-3: DeepSpeed keeps a model this small gathered from forward to backward (reuse
      // distance under 1e9) and never partitions the norms; the paper gathers twice.
      EXPECT_EQ(bytes_by_kind(program(Strategy::kZero3)),
                (std::map<std::string, std::uint64_t>{{"all_gather", b * (kP - kNorms)}, {"reduce_scatter", b * kP}}));
      EXPECT_EQ(bytes_by_kind(program(Strategy::kZero3Paper)),
                (std::map<std::string, std::uint64_t>{{"all_gather", 2 * b * kP}, {"reduce_scatter", b * kP}}));
    }
  }
}

TEST(StepProgramTest, RingVolumesPerRankFollowStrategiesMd) {
  const int n = 4;
  const double f = (n - 1.0) / n;
  EXPECT_DOUBLE_EQ(ring_bytes_sent_per_rank(make_program(tiny(), Strategy::kDdp, settings(n))), 2 * f * kP * 4);
  EXPECT_DOUBLE_EQ(ring_bytes_sent_per_rank(make_program(tiny(), Strategy::kZero3Paper, settings(n))), 3 * f * kP * 4);
  EXPECT_DOUBLE_EQ(ring_bytes_sent_per_rank(make_program(tiny(), Strategy::kZero1, settings(n))), 3 * f * kP * 4);
}

TEST(StepProgramTest, ZeroThreeRegathersWhatIsReusedTooLate) {
  StepSettings s = settings(4);
  s.max_reuse_distance = 0;  // nothing is kept, except the output head used again at once
  const Program p = make_program(tiny(), Strategy::kZero3, s);
  const std::uint64_t head = 2048ull * 384;
  EXPECT_EQ(kind(p, "all_gather"), 4 * (2 * (kP - kNorms) - head));
}

std::vector<int> indices_of(const Program& p, OpKind k, const std::string& label_start) {
  std::vector<int> found;
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].kind == k && p.ops[i].label.rfind(label_start, 0) == 0) found.push_back(static_cast<int>(i));
  return found;
}

int index_of(const Program& p, const std::string& label) {
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].label == label) return static_cast<int>(i);
  ADD_FAILURE() << "no operation '" << label << "'";
  return -1;
}

TEST(StepProgramTest, DdpBucketsFollowTheCapsAndGoOutInOrder) {
  StepSettings s = settings(4);
  s.first_bucket_bytes = 1 << 20;
  s.bucket_cap_bytes = 4 << 20;  // several buckets in the tiny model
  s.gradient_as_bucket_view = true;  // no copies between gradient and bucket (tested below)
  const Program p = make_program(tiny(), Strategy::kDdp, s);
  const auto buckets = indices_of(p, OpKind::kCollective, "all_reduce bucket");
  ASSERT_GE(buckets.size(), 4u);
  const std::uint64_t largest_tensor = 384ull * 1024 * 4;
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    const Op& op = p.ops[static_cast<std::size_t>(buckets[k])];
    EXPECT_EQ(op.label, "all_reduce bucket " + std::to_string(k));  // bucket k issued before k+1
    const std::uint64_t cap = k == 0 ? s.first_bucket_bytes : s.bucket_cap_bytes;
    if (k + 1 < buckets.size()) {
      EXPECT_GE(op.bytes, cap);
      EXPECT_LT(op.bytes, cap + 2048ull * 384 * 4);  // overshoots by at most one tensor
    }
    ASSERT_EQ(op.after.size(), 1u);
    EXPECT_LT(op.after[0], buckets[k]);  // after the backward compute that made it ready
    EXPECT_EQ(p.ops[static_cast<std::size_t>(op.after[0])].label.substr(0, 3), "bwd");
    if (k > 0) {
      EXPECT_GE(op.after[0], p.ops[static_cast<std::size_t>(buckets[k - 1])].after[0]);
    }
  }
  EXPECT_LE(p.ops[static_cast<std::size_t>(buckets[0])].bytes, s.first_bucket_bytes + largest_tensor * 2);
  // The optimizer waits for every bucket.
  const Op& optimizer = p.ops.back();
  EXPECT_EQ(optimizer.label, "optimizer");
  EXPECT_EQ(optimizer.after, buckets);
}

TEST(StepProgramTest, FsdpBackwardPrefetchOrder) {
  StepSettings s = settings(4);
  // PRE: the next unit's gather before the current unit's gradient computation.
  s.backward_prefetch = Prefetch::kPre;
  Program p = make_program(tiny(), Strategy::kFsdpFull, s);
  EXPECT_LT(index_of(p, "all_gather layer2 (backward)"), index_of(p, "bwd layer3"));
  EXPECT_LT(index_of(p, "all_gather layer2 (backward)"), index_of(p, "reduce_scatter layer3"));
  EXPECT_LT(index_of(p, "all_gather layer3 (backward)"), index_of(p, "bwd head"));
  // POST: after the current gradient computation, ahead of its reduce_scatter.
  s.backward_prefetch = Prefetch::kPost;
  p = make_program(tiny(), Strategy::kFsdpFull, s);
  const int gather = index_of(p, "all_gather layer2 (backward)");
  EXPECT_GT(gather, index_of(p, "bwd layer3"));
  EXPECT_LT(gather, index_of(p, "reduce_scatter layer3"));
  EXPECT_EQ(p.ops[static_cast<std::size_t>(gather)].after, std::vector<int>{index_of(p, "bwd layer3")});
  // None: in the unit's own pre-backward, behind the previous reduce_scatter.
  s.backward_prefetch = Prefetch::kNone;
  p = make_program(tiny(), Strategy::kFsdpFull, s);
  EXPECT_GT(index_of(p, "all_gather layer2 (backward)"), index_of(p, "reduce_scatter layer3"));
  // Every backward computation waits for its own gather.
  for (const char* unit : {"layer0", "layer1", "layer2", "layer3"}) {
    const Op& bwd = p.ops[static_cast<std::size_t>(index_of(p, std::string("bwd ") + unit))];
    EXPECT_NE(std::find(bwd.after.begin(), bwd.after.end(), index_of(p, std::string("all_gather ") + unit + " (backward)")),
              bwd.after.end());
  }
}

// Plays a program with slow compute (the host runs ahead) and counts, at each gather's issue, the
// units gathered before it whose compute has not ended (FSDP1's rate limiter: at most two).
int most_gathered_at_an_issue(const Program& p) {
  const Timeline t = simulate(p, [](const Op& op) { return op.kind == OpKind::kCollective ? 10.0 : 1000.0; });
  std::map<int, int> consumer;  // gather -> the first compute that uses it
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    for (int dep : p.ops[i].after) {
      const Op& d = p.ops[static_cast<std::size_t>(dep)];
      if (d.kind == OpKind::kCollective && d.collective == CollOp::kAllGather && p.ops[i].kind == OpKind::kCompute &&
          !consumer.count(dep))
        consumer[dep] = static_cast<int>(i);
    }
  double host = 0;
  std::vector<double> freed_at;  // each earlier gather's consumer end
  int most = 0;
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const Op& op = p.ops[i];
    if (op.kind == OpKind::kHostWait) host = std::max(host, t.ops[i].end_us);
    if (op.kind != OpKind::kCollective || op.collective != CollOp::kAllGather || op.label == "all_gather root") continue;
    int gathered = 0;
    for (double freed : freed_at)
      if (freed > host) ++gathered;
    most = std::max(most, gathered);
    freed_at.push_back(t.ops[static_cast<std::size_t>(consumer.at(static_cast<int>(i)))].end_us);
  }
  return most;
}

TEST(StepProgramTest, FsdpKeepsAtMostTwoAllGathersInFlight) {
  for (Prefetch prefetch : {Prefetch::kPre, Prefetch::kPost, Prefetch::kNone}) {
    StepSettings s = settings(4);
    s.backward_prefetch = prefetch;
    EXPECT_LE(most_gathered_at_an_issue(make_program(tiny(), Strategy::kFsdpFull, s)), 2) << prefetch_name(prefetch);
    s.limit_all_gathers = false;  // the host runs ahead: every layer gathered at once
    const Program unlimited = make_program(tiny(), Strategy::kFsdpFull, s);
    EXPECT_TRUE(indices_of(unlimited, OpKind::kHostWait, "").empty());
    EXPECT_GE(most_gathered_at_an_issue(unlimited), 3) << prefetch_name(prefetch);
  }
}

TEST(StepProgramTest, ZeroStageTwoComputeWaitsForEachBucketUnlessOverlapped) {
  StepSettings s = settings(4);
  s.reduce_bucket_elements = 1000000;  // several buckets in the tiny model
  Program p = make_program(tiny(), Strategy::kZero2, s);
  const auto buckets = indices_of(p, OpKind::kCollective, "all_reduce bucket");
  ASSERT_GE(buckets.size(), 3u);
  auto waited_by_compute = [&](const Program& prog, int op) {
    for (const Op& o : prog.ops)
      if (o.kind == OpKind::kCompute && o.label != "optimizer" && std::find(o.after.begin(), o.after.end(), op) != o.after.end())
        return true;
    return false;
  };
  // overlap_comm off (stage 2's default): the next computation waits for the buckets just launched.
  const int last_backward_2 = index_of(p, "bwd layer0");
  int during_backward = 0;
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    if (buckets[k] > last_backward_2) continue;  // after backward only the optimizer follows
    EXPECT_TRUE(waited_by_compute(p, buckets[k])) << k;
    ++during_backward;
  }
  EXPECT_GE(during_backward, 3);
  // Stage 1 reduces after backward: no backward compute waits, every reduction after the last one.
  p = make_program(tiny(), Strategy::kZero1, s);
  const int last_backward = index_of(p, "bwd layer0");
  for (int b : indices_of(p, OpKind::kCollective, "all_reduce bucket")) EXPECT_GT(b, last_backward);
  // overlap_comm on: bucket k is waited for only once bucket k+1 has been launched.
  s.overlap_comm = true;
  p = make_program(tiny(), Strategy::kZero2, s);
  const auto overlapped = indices_of(p, OpKind::kCollective, "all_reduce bucket");
  for (std::size_t k = 0; k + 1 < overlapped.size(); ++k)
    for (const Op& o : p.ops)
      if (o.kind == OpKind::kCompute && std::find(o.after.begin(), o.after.end(), overlapped[k]) != o.after.end() &&
          o.label != "optimizer") {
        const int at = static_cast<int>(&o - p.ops.data());
        EXPECT_GT(at, overlapped[k + 1]) << "bucket " << k << " waited for before bucket " << k + 1 << " was launched";
      }
}

TEST(StepProgramTest, ComputeIsTheSameWorkForEveryStrategy) {
  const StepSettings s = settings(4);
  const double ddp = compute_total_us(make_program(tiny(), Strategy::kDdp, s));
  for (Strategy st : all_strategies()) {
    // Optimizer work differs (sharded or not); forward and backward are the same 6 P FLOPs per
    // token except the embedding lookups, which are not matmuls.
    // (DDP's copies into and out of its buckets are not the model's work.)
    auto model_work = [](const Op& op) {
      return op.kind == OpKind::kCompute && op.label != "optimizer" && !op.label.starts_with("copy ");
    };
    double without_optimizer = 0;
    for (const Op& op : make_program(tiny(), st, s).ops)
      if (model_work(op)) without_optimizer += op.compute_us;
    double ddp_without = 0;
    for (const Op& op : make_program(tiny(), Strategy::kDdp, s).ops)
      if (model_work(op)) ddp_without += op.compute_us;
    EXPECT_NEAR(without_optimizer, ddp_without, 1e-6 * ddp) << strategy_name(st);
  }
}

TEST(StepProgramTest, ActivationCheckpointingRecomputesEachLayerInItsBackward) {
  StepSettings s = settings(4);
  auto forward_backward_us = [](const Program& p) {
    double us = 0;
    for (const Op& op : p.ops)
      if (op.kind == OpKind::kCompute && op.label != "optimizer" && !op.label.starts_with("copy ")) us += op.compute_us;
    return us;
  };
  // 6 P FLOPs per token become 8 P for the layers (the head is not checkpointed): one more
  // forward of every layer, whichever strategy issues it.
  const double layers_forward = 4 * forward_us(kLayer, s);
  for (Strategy st : all_strategies()) {
    s.activation_checkpointing = false;
    const Program plain = make_program(tiny(), st, s);
    s.activation_checkpointing = true;
    const Program recomputed = make_program(tiny(), st, s);
    EXPECT_NEAR(forward_backward_us(recomputed) - forward_backward_us(plain), layers_forward, 1e-9 * layers_forward)
        << strategy_name(st);
    EXPECT_EQ(bytes_by_kind(recomputed), bytes_by_kind(plain)) << strategy_name(st);  // the same traffic
  }
}

TEST(StepProgramTest, DdpCopiesGradientsIntoItsBucketsAndBackUnlessTheyAreViews) {
  StepSettings s = settings(4);
  const Program copied = make_program(tiny(), Strategy::kDdp, s);
  double in_us = 0, out_us = 0;
  int copies_in = 0, buckets = 0;
  for (std::size_t i = 0; i < copied.ops.size(); ++i) {
    const Op& op = copied.ops[i];
    if (op.label.starts_with("copy into bucket")) {
      in_us += op.compute_us;
      ++copies_in;
      // the bucket's all_reduce waits for its copy
      const Op& next = copied.ops[i + 1];
      ASSERT_EQ(next.kind, OpKind::kCollective);
      EXPECT_EQ(next.after, std::vector<int>{static_cast<int>(i)});
    }
    if (op.label == "copy out of buckets") out_us = op.compute_us;
    if (op.kind == OpKind::kCollective) ++buckets;
  }
  EXPECT_EQ(copies_in, buckets);
  // every fp32 gradient read and written once each way, at the HBM rate
  EXPECT_NEAR(in_us, device_copy_us(4 * kP, s), 1e-9 * in_us);
  EXPECT_NEAR(out_us, device_copy_us(4 * kP, s), 1e-9 * out_us);
  EXPECT_DOUBLE_EQ(device_copy_us(1'000'000'000, s), 2.0 / 3000 * 1e6);
  s.gradient_as_bucket_view = true;
  for (const Op& op : make_program(tiny(), Strategy::kDdp, s).ops) EXPECT_FALSE(op.label.starts_with("copy ")) << op.label;
}

TEST(StepProgramTest, StrategyNamesParse) {
  EXPECT_EQ(parse_strategies("all").size(), 10u);
  EXPECT_EQ(parse_strategies("ddp,zero3"), (std::vector<Strategy>{Strategy::kDdp, Strategy::kZero3}));
  EXPECT_THROW(parse_strategies("ddp,fsdp"), std::exception);
}

}  // namespace
}  // namespace wb::step
