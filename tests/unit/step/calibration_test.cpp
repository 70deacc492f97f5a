// step_calibration.csv read back (a real 2-node calibration of the 1 Gbit/s virtual cluster), and
// the links it gives each collective, carried to group sizes it did not measure.
#include "step/calibration_file.h"

#include "step/calibration.h"

#include <gtest/gtest.h>

#include "harness/errors.h"
#include "step/core_sharing.h"
#include "step/mpich_selection.h"
#include "step/prediction_errors.h"
#include "step/timeline.h"
#include "../test_files.h"

namespace wb::step {
namespace {

const std::string kTwoNodes = std::string(WB_SOURCE_DATA_DIR) + "/step-calibration/vcluster-2node-1gbit.csv";

const CalibrationPoint& find(const std::vector<CalibrationPoint>& all, CollOp op, Group g, CallContext c) {
  for (const auto& p : all)
    if (p.op == op && p.group == g && p.context == c) return p;
  throw std::runtime_error("not in the fixture");
}

TEST(CalibrationFileTest, AWrittenCalibrationReadsBackPointForPoint) {
  const auto all = read_calibration_csv(kTwoNodes);
  EXPECT_EQ(all.size(), 8u);  // all_reduce world and replicate, all_gather, reduce_scatter; two contexts each
  const auto& rs = find(all, CollOp::kReduceScatter, Group::kWorld, CallContext::kIsolated);
  EXPECT_EQ(rs.ranks, 2);
  EXPECT_EQ(rs.element_bytes, 4);
  ASSERT_EQ(rs.points.size(), 10u);  // 8 sizes and the two beside MPICH's switch at 2 MiB
  EXPECT_EQ(rs.points.front().bytes, 54088u);
  EXPECT_DOUBLE_EQ(rs.points.front().time_us, 141.935);
  EXPECT_EQ(rs.ranks_per_core, 0);  // format 2: not recorded
  const wb::testing::TempDir dir;
  auto shared = all;
  for (auto& c : shared) c.ranks_per_core = 4;  // 8 ranks on 2 cores
  write_calibration_csv(dir.file("again.csv"), shared);
  EXPECT_EQ(wb::testing::read_text(dir.file("again.csv")).rfind("# wirebench step_calibration format 3\n", 0), 0u);
  const auto again = read_calibration_csv(dir.file("again.csv"));
  ASSERT_EQ(again.size(), all.size());
  for (const auto& c : again) EXPECT_EQ(c.ranks_per_core, 4);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(again[i].points.size(), all[i].points.size());
    EXPECT_DOUBLE_EQ(again[i].points.back().time_us, all[i].points.back().time_us);
  }
}

TEST(CalibrationFileTest, OtherFormatsAndBadFieldsAreRefusedNamingTheLine) {
  const wb::testing::TempDir dir;
  wb::testing::write_text(dir.file("v1.csv"), "op,group,ranks,element_bytes,bytes,time_us,alpha_us,beta_us_per_byte\n"
                                              "all_reduce,world,3,4,54096,1106.1,0,0.025\n");
  try {
    read_calibration_csv(dir.file("v1.csv"));
    FAIL() << "format 1 read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("format 1"), std::string::npos) << e.what();
  }
  wb::testing::write_text(dir.file("v9.csv"), "# wirebench step_calibration format 9\n"
                                              "op,group,ranks,element_bytes,context,bytes,time_us,alpha_us,beta_us_per_byte\n");
  try {
    read_calibration_csv(dir.file("v9.csv"));
    FAIL() << "format 9 read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("format 3"), std::string::npos) << e.what();
  }
  wb::testing::write_text(dir.file("bad.csv"), "# wirebench step_calibration format 2\n"
                                               "op,group,ranks,element_bytes,context,bytes,time_us,alpha_us,beta_us_per_byte\n"
                                               "all_reduce,world,2,4,queued,100,5,0,0.01\n"
                                               "all_reduce,world,2,4,sideways,200,7,0,0.01\n");
  try {
    read_calibration_csv(dir.file("bad.csv"));
    FAIL() << "an unknown context read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sideways"), std::string::npos) << e.what();
  }
}

// On 2 ranks every algorithm MPICH picks sends half the buffer each way: the link is the shaped
// 1 Gbit/s (8 ns a byte), a little faster where tbf's 32 kB burst carries the small calls.
TEST(CalibrationFileTest, TwoNodesGiveTheShapedLinkForEveryCollective) {
  const auto all = read_calibration_csv(kTwoNodes);
  for (CollOp op : {CollOp::kAllGather, CollOp::kReduceScatter, CollOp::kAllReduce}) {
    const auto link = link_from_calibration(find(all, op, Group::kWorld, CallContext::kIsolated), true);
    ASSERT_TRUE(link) << describe(op).name;
    EXPECT_GT(link->beta_us_per_byte, 0.0075) << describe(op).name;
    EXPECT_LT(link->beta_us_per_byte, 0.0095) << describe(op).name;
  }
}

// At 3 ranks MPICH runs other algorithms (ring all_gather, pairwise or recursive halving with the
// extra rank's two whole-buffer hops, Rabenseifner's all_reduce with them): their formulas on the
// 2-node link.
TEST(CalibrationFileTest, AnotherGroupSizeCostsTheAlgorithmMpichRunsThere) {
  const CollectiveCosts costs = costs_from_calibration(read_calibration_csv(kTwoNodes), true);
  const auto iso = CallContext::kIsolated;
  const double s = 3461688;  // the tiny model's gradients at scale 0.1
  const auto link = link_from_calibration(find(read_calibration_csv(kTwoNodes), CollOp::kAllGather, Group::kWorld, iso), true);
  EXPECT_DOUBLE_EQ(costs.predict_us(CollOp::kAllGather, 3, s, 0, 4, iso),
                   flat_time_us(CollOp::kAllGather, Algorithm::kRing, 3, s, *link));
  // About 2/3 S at 1 Gbit/s: 18.5 ms.
  EXPECT_NEAR(costs.predict_us(CollOp::kAllGather, 3, s, 0, 4, iso), 18500, 2500);
  // reduce_scatter: recursive halving below 2 MiB of fp32 (S + 2S/3 + S/3 on 3 ranks, and S/3 more
  // on an idle communicator), pairwise above.
  EXPECT_GT(costs.predict_us(CollOp::kReduceScatter, 3, 2097144, 0, 4, iso),
            2 * costs.predict_us(CollOp::kReduceScatter, 3, 2097156, 0, 4, iso));
  // all_reduce on 3 ranks: 3 S on the link back to back (Rabenseifner with the extra rank's hops),
  // 3.5 S on an idle communicator, where rank 2's first half shares rank 1's ingress with the
  // hand-over: about 87 and 101 ms (measured here: 86.8 and 99-101).
  EXPECT_NEAR(costs.predict_us(CollOp::kAllReduce, 3, s, 0, 4, CallContext::kQueued), 87000, 5000);
  EXPECT_NEAR(costs.predict_us(CollOp::kAllReduce, 3, s, 0, 4, iso), 101000, 5000);
  // The measured group size keeps its own sweep.
  EXPECT_NEAR(costs.predict_us(CollOp::kAllGather, 2, s, 0, 4, iso), 14333.5, 1);
}

// A calibration made at another scale (tests/data/step-calibration/ORIGIN.md): at scale 1 on shared
// memory its largest all_reduce left the caches (34.6 MB: 26.5 ms, 19.1 MB: 7.3 ms). A 3-rank run at
// scale 0.1 calls 3.46 MB; its links come from the points near that, not through the cliff.
TEST(CalibrationFileTest, LinksAreFittedNearTheSizesTheRunCalls) {
  const auto file = read_calibration_csv(std::string(WB_SOURCE_DATA_DIR) + "/step-calibration/shm-2rank-tiny-scale1.csv");
  const double s = 3461688;
  CallSizes needed;
  needed[{CollOp::kAllReduce, 4}] = {static_cast<std::uint64_t>(s / kSweepSpan), static_cast<std::uint64_t>(s)};
  needed[{CollOp::kAllGather, 4}] = needed[{CollOp::kAllReduce, 4}];
  std::vector<std::string> notes;
  const CollectiveCosts near = costs_from_calibration(file, true, &needed, &notes);
  const CollectiveCosts through_all = costs_from_calibration(file, true);
  const auto q = CallContext::kQueued;
  const double with_window = near.predict_us(CollOp::kAllReduce, 3, s, 0, 4, q);
  const double without = through_all.predict_us(CollOp::kAllReduce, 3, s, 0, 4, q);
  // Two ranks took 1.49 ms at 3.2 MB and 2.34 ms at 5.8 MB; three ranks move more than two
  // (Rabenseifner plus the extra rank's hand-over), but nothing like the cliff's 7.7 us/KB.
  EXPECT_GT(with_window, 1495);
  EXPECT_LT(with_window, 0.5 * without);  // 4.1 ms against 8.9 ms (measured on 3 ranks: 3.7-4.5 ms)
  // The run needs sizes from 54 KB; the file starts at 540 KB: said, once per collective.
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("from 540888 to 34616832 B; this run needs it from 54088 to 3461688 B"), std::string::npos)
      << notes[0];
  // A file made at the run's own sizes keeps every point: the same links as without a window.
  CallSizes own;
  own[{CollOp::kAllReduce, 4}] = {540888 / 2, 34616832};
  own[{CollOp::kAllGather, 4}] = own[{CollOp::kAllReduce, 4}];
  notes.clear();
  EXPECT_DOUBLE_EQ(costs_from_calibration(file, true, &own, &notes).predict_us(CollOp::kAllReduce, 3, s, 0, 4, q), without);
  EXPECT_TRUE(notes.empty());
}

// What another run's file must describe: each collective's calls over every group it runs on (the
// shard group's small all_reduce and the world's large one are one range), from the smallest call
// or a kSweepSpan-th of the largest; a group of one rank calls nothing; compute is no call.
TEST(CalibrationFileTest, CallSizesSpanEveryGroupsCallsOfACollective) {
  Program p;
  p.ranks = 4;
  p.group_sizes[static_cast<int>(Group::kWorld)] = 4;
  p.group_sizes[static_cast<int>(Group::kShard)] = 2;
  p.group_sizes[static_cast<int>(Group::kReplicate)] = 1;
  const auto call = [](Group g, std::uint64_t bytes, CollOp c = CollOp::kAllReduce) {
    Op op;
    op.kind = OpKind::kCollective;
    op.collective = c;
    op.group = g;
    op.bytes = bytes;
    return op;
  };
  p.ops = {call(Group::kWorld, 64 << 20), call(Group::kShard, 256 << 10), call(Group::kReplicate, 1),
           call(Group::kWorld, 8 << 20, CollOp::kAllGather), Op{}};
  const double scale = 0.5;
  const CallSizes sizes = call_sizes({p}, scale);
  ASSERT_EQ(sizes.size(), 2u);
  const std::uint64_t world = scaled_bytes(p.ops[0], 4, scale), shard = scaled_bytes(p.ops[1], 2, scale);
  const auto& reduce = sizes.at({CollOp::kAllReduce, 4});
  ASSERT_LT(shard, world / kSweepSpan);  // the shard group's call is the smallest
  EXPECT_EQ(reduce.second, world);
  EXPECT_EQ(reduce.first, std::min(shard, static_cast<std::uint64_t>(static_cast<double>(world) / kSweepSpan)));
  const std::uint64_t gather = scaled_bytes(p.ops[3], 4, scale);
  EXPECT_EQ(sizes.at({CollOp::kAllGather, 4}),
            std::make_pair(static_cast<std::uint64_t>(static_cast<double>(gather) / kSweepSpan), gather));
}

// The default suite's run 9 of 20 (session 30): the 3-node all_reduce sweep with its largest
// points slowed by something else (queued 3,461,688 B at 202.9 ms beside 46.9 ms at 1,911,012 B;
// isolated 1,911,012 B at 112.4 ms beside 30.0 ms at 1,054,968 B). Every other run: 86-87 and 54 ms.
TEST(CalibrationTest, APointOutOfLineWithItsNeighboursIsFoundForMeasuringAgain) {
  const auto rabenseifner = [](double bytes) { return bytes > 2048 ? "rabenseifner" : "recursive_doubling"; };
  const std::vector<SweepPoint> queued{{54096, 1094.24, 0},   {97980, 2145.44, 0},   {177492, 4111.72, 0},
                                       {321504, 7637.12, 0},  {582384, 14000.3, 0},  {1054968, 25894.7, 0},
                                       {1911012, 46925, 0},   {3461688, 202927, 0}};
  EXPECT_EQ(disturbed_points(queued, rabenseifner), (std::vector<std::size_t>{7}));
  const std::vector<SweepPoint> isolated{{54096, 1302.51, 0},  {97980, 2547.15, 0},   {177492, 4744.27, 0},
                                         {321504, 8850.94, 0}, {582384, 16277.4, 0},  {1054968, 29999.6, 0},
                                         {1911012, 112363, 0}, {3461688, 156321, 0}};
  EXPECT_EQ(disturbed_points(isolated, rabenseifner), (std::vector<std::size_t>{6}));
  // A healthy run's sweep (run 8): nothing.
  const std::vector<SweepPoint> healthy{{54096, 1024.76, 0},  {97980, 2240.27, 0},   {177492, 4543.72, 0},
                                        {321504, 8953.39, 0}, {582384, 16252.6, 0},  {1054968, 30218.6, 0},
                                        {1911012, 54364.3, 0}, {3461688, 100932, 0}};
  EXPECT_TRUE(disturbed_points(healthy, rabenseifner).empty());
  // Nor any sweep of the committed 2-node calibration, under MPICH's own choice at each size.
  for (const CalibrationPoint& c : read_calibration_csv(kTwoNodes))
    EXPECT_TRUE(disturbed_points(c.points, [&](double bytes) {
                  return std::string(mpich_nonblocking_choice(c.op, c.ranks, bytes, c.element_bytes).name);
                }).empty())
        << describe(c.op).name << " " << context_name(c.context);
  // MPICH's reduce_scatter cliff (38.1 ms, then 11.8 ms two elements later) is a switch, not a
  // disturbance: never judged across.
  const auto halving = [](double bytes) { return bytes < 2097152 ? "recursive_halving" : "pairwise"; };
  const std::vector<SweepPoint> cliff{{1054968, 19839.2, 0}, {2097144, 38100, 0}, {2097156, 11800, 0}};
  EXPECT_TRUE(disturbed_points(cliff, halving).empty());
  // The same sweep judged as one algorithm would flag the point before the drop.
  EXPECT_EQ(disturbed_points(cliff, [](double) { return "one"; }), (std::vector<std::size_t>{1}));
}

}  // namespace
}  // namespace wb::step

namespace wb::step {
namespace {

TEST(PredictionErrorsTest, TheShippedTableReadsAndGivesEachStrategyItsBand) {
  const auto errors = read_prediction_errors(std::string(WB_SOURCE_SUITES_DIR) + "/step-prediction-errors.csv");
  for (const char* s : {"ddp", "fsdp-full", "fsdp-grad-op", "fsdp-hybrid", "zero1", "zero2", "zero3", "zero1-paper",
                        "zero2-paper", "zero3-paper"}) {
    const std::string band = error_band(errors, s);
    EXPECT_NE(band.find("own calibration "), std::string::npos) << s << ": " << band;
    EXPECT_NE(band.find("; from 2 nodes "), std::string::npos) << s << ": " << band;
    EXPECT_NE(band.find("% (8)"), std::string::npos) << s << ": " << band;
  }
  EXPECT_EQ(error_band(errors, "tp8+ddp"), "");
}

TEST(PredictionErrorsTest, ABandIsMinToMaxByNodeCountAndBadRowsAreNamed) {
  const wb::testing::TempDir dir;
  wb::testing::write_text(dir.file("e.csv"), "# a comment\n# another\n"
                                             "strategy,calibration,nodes,runs,min_pct,median_pct,max_pct,machine\n"
                                             "ddp,own,3,3,-3.7,-0.6,-0.3,vm\n"
                                             "ddp,own,2,3,-2,-1.5,-0.8,vm\n"
                                             "ddp,from 2 nodes,8,3,-32.4,-31.9,-27.7,vm\n");
  EXPECT_EQ(error_band(read_prediction_errors(dir.file("e.csv")), "ddp"),
            "own calibration -2.0..-0.8% (2) -3.7..-0.3% (3); from 2 nodes -32.4..-27.7% (8)");
  wb::testing::write_text(dir.file("bad.csv"), "# a comment\n"
                                               "strategy,calibration,nodes,runs,min_pct,median_pct,max_pct,machine\n"
                                               "ddp,own,three,3,-3.7,-0.6,-0.3,vm\n");
  try {
    read_prediction_errors(dir.file("bad.csv"));
    FAIL() << "a bad row read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("three"), std::string::npos) << e.what();
  }
}


// Ranks per core: the virtual cluster's 8 nodes are namespaces of one 2-core machine (one boot id).
TEST(CoreSharingTest, RanksPerCoreIsTheMostLoadedMachines) {
  EXPECT_DOUBLE_EQ(ranks_per_core({{"a", 2}, {"a", 2}}), 1);                   // 2 nodes, a core each
  EXPECT_DOUBLE_EQ(ranks_per_core(std::vector<std::pair<std::string, int>>(8, {"a", 2})), 4);
  EXPECT_DOUBLE_EQ(ranks_per_core({{"a", 16}, {"b", 2}, {"b", 2}, {"b", 2}}), 1.5);  // the busiest machine
  EXPECT_DOUBLE_EQ(ranks_per_core({{"a", 0}}), 1);                              // a machine says 0 cores: 1
  EXPECT_GE(usable_cores(), 1);
  EXPECT_FALSE(machine_identity().empty());
}

}  // namespace
}  // namespace wb::step
