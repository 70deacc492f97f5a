#include <gtest/gtest.h>

#include <filesystem>

#include "harness/errors.h"
#include "harness/link_class.h"
#include "net/p2p_batches.h"
#include "net/all_to_all_batch.h"
#include "net/pair_plan.h"
#include "net/sweep_estimate.h"
#include "test_files.h"

namespace wb {
namespace {

using Rounds = std::vector<PairRound>;

std::vector<PairRound> plan(PairMode mode, int ranks) { return plan_rounds({mode, ranks, 1, 1, {}}); }

TEST(PairPlan, SerialModesAreRoundsOfOnePair) {
  EXPECT_EQ(plan(PairMode::kFirst, 4), (Rounds{{{0, 1}}}));
  EXPECT_EQ(plan(PairMode::kRing, 2), (Rounds{{{0, 1}}}));
  EXPECT_EQ(plan(PairMode::kRing, 4), (Rounds{{{0, 1}}, {{1, 2}}, {{2, 3}}, {{3, 0}}}));
  EXPECT_EQ(plan(PairMode::kAllSerial, 4), (Rounds{{{0, 1}}, {{0, 2}}, {{0, 3}}, {{1, 2}}, {{1, 3}}, {{2, 3}}}));
  EXPECT_THROW(plan(PairMode::kFirst, 1), UsageError);
  EXPECT_THROW(plan(PairMode::kAll, 1), UsageError);
  EXPECT_THROW(parse_pair_mode("everything"), UsageError);
  EXPECT_EQ(parse_pair_mode("all-serial"), PairMode::kAllSerial);
}

TEST(PairPlan, FourRanksMeetInThreeRoundsOfTwoPairs) {
  EXPECT_EQ(plan(PairMode::kAll, 4), (Rounds{{{0, 3}, {1, 2}}, {{0, 2}, {1, 3}}, {{0, 1}, {2, 3}}}));
  EXPECT_EQ(plan(PairMode::kAll, 2), (Rounds{{{0, 1}}}));
}

// Every pair exactly once, no rank twice in a round, n-1 rounds of n/2 pairs (n even) or n rounds
// of (n-1)/2 pairs with one rank idle (n odd): for every count a cluster may have up to 1,024.
TEST(PairPlan, TheRoundRobinScheduleCoversEveryPairOnceForUpTo1024Ranks) {
  for (int n = 2; n <= 1024; ++n) {
    const auto rounds = round_robin_rounds(n);
    const bool odd = n % 2 == 1;
    ASSERT_EQ(rounds.size(), static_cast<std::size_t>(odd ? n : n - 1)) << n;
    std::vector<char> met(static_cast<std::size_t>(n) * n, 0);
    std::size_t pairs = 0;
    for (const auto& round : rounds) {
      ASSERT_EQ(round.size(), static_cast<std::size_t>(n / 2)) << n;
      std::vector<char> busy(static_cast<std::size_t>(n), 0);
      for (const auto& [a, b] : round) {
        ASSERT_TRUE(a >= 0 && b < n && a < b) << n << ": " << a << "-" << b;
        ASSERT_FALSE(busy[a] || busy[b]) << n << ": a rank twice in one round";
        busy[a] = busy[b] = 1;
        ASSERT_FALSE(met[a * n + b]) << n << ": " << a << "-" << b << " twice";
        met[a * n + b] = 1;
        ++pairs;
      }
    }
    ASSERT_EQ(pairs, static_cast<std::size_t>(n) * (n - 1) / 2) << n;
  }
}

TEST(PairPlan, BisectionMatchingsArePerfectAndFollowTheSeed) {
  for (int n : {2, 3, 8, 9, 1024}) {
    const auto matchings = random_matchings(n, 5, 42);
    ASSERT_EQ(matchings.size(), 5u);
    for (const auto& round : matchings) {
      ASSERT_EQ(round.size(), static_cast<std::size_t>(n / 2));
      std::vector<char> busy(static_cast<std::size_t>(n), 0);
      for (const auto& [a, b] : round) {
        ASSERT_TRUE(a < b && b < n);
        ASSERT_FALSE(busy[a] || busy[b]);
        busy[a] = busy[b] = 1;
      }
    }
  }
  EXPECT_EQ(random_matchings(64, 3, 7), random_matchings(64, 3, 7));  // every rank draws the same
  EXPECT_NE(random_matchings(64, 1, 7), random_matchings(64, 1, 8));
  const auto two = random_matchings(64, 2, 7);
  EXPECT_NE(two[0], two[1]);  // K matchings, not one K times
  EXPECT_EQ(plan_rounds({PairMode::kBisection, 8, 3, 1, {}}).size(), 3u);
  EXPECT_THROW(plan_rounds({PairMode::kBisection, 8, 0, 1, {}}), UsageError);
}

TEST(PairPlan, ListedPairsAreOneRoundOfDisjointPairs) {
  EXPECT_EQ(parse_pair_mode("0-1,5-2"), PairMode::kListed);
  EXPECT_EQ(parse_listed_pairs("0-1,5-2"), (PairRound{{0, 1}, {2, 5}}));  // the lower rank first
  EXPECT_EQ(plan_rounds({PairMode::kListed, 6, 1, 1, parse_listed_pairs("0-1,5-2")}), (Rounds{{{0, 1}, {2, 5}}}));
  EXPECT_THROW(plan_rounds({PairMode::kListed, 4, 1, 1, parse_listed_pairs("0-1,5-2")}), UsageError);  // no rank 5
  for (const char* bad : {"0-0", "0-1,1-2", "0-", "-1", "0-1,", "a-1", "0-1-2", "0--1", "0_1"})
    EXPECT_THROW(parse_listed_pairs(bad), UsageError) << bad;
  EXPECT_THROW(parse_pair_mode("0-1,1-2"), UsageError);
  // Adaptive rounds follow earlier figures: only the runner runs it; wb-net plans it.
  EXPECT_EQ(parse_pair_mode("adaptive"), PairMode::kAdaptive);
  EXPECT_THROW(plan(PairMode::kAdaptive, 8), UsageError);
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
  // Ping-pong receives into buffers of its own, as osu_latency does: a scratch slot for every round
  // but the last, the checked slot for the last; one slot when the batch is one round.
  EXPECT_EQ(pingpong.receive_slots, 2u);
  EXPECT_EQ(batch_shape(P2pPattern::kPingPong, 256u << 20).receive_slots, 1u);
}

TEST(BatchShape, BatchBytesSetTheRoundsButNeverLessThanOneWindow) {
  // --batch-bytes 4M: a 64 KiB window of 64 messages (4 MiB) is the whole batch, not a quarter of it.
  EXPECT_EQ(batch_shape(P2pPattern::kStreamBandwidth, 64u << 10).rounds, 4u);
  EXPECT_EQ(batch_shape(P2pPattern::kStreamBandwidth, 64u << 10, WindowMode::kOsu, 4u << 20).rounds, 1u);
  EXPECT_EQ(batch_shape(P2pPattern::kStreamBandwidth, 1u << 20, WindowMode::kOsu, 4u << 20).rounds, 1u);  // one window
  EXPECT_EQ(batch_shape(P2pPattern::kBidirectional, 8, WindowMode::kOsu, 1u << 20).rounds, 100u);      // capped
  // Ping-pong keeps its 16 round trips up to 4 MiB whatever the batch.
  EXPECT_EQ(batch_shape(P2pPattern::kPingPong, 1u << 20, WindowMode::kOsu, 1u << 20).rounds, 16u);
  const LinkModel link{0.2, 2};  // 200 Mbit/s: 16 MiB take 0.67 s, 4 MiB a quarter of that
  EXPECT_NEAR(batch_seconds(P2pPattern::kStreamBandwidth, 64u << 10, WindowMode::kOsu, link, 4u << 20) * 4,
              batch_seconds(P2pPattern::kStreamBandwidth, 64u << 10, WindowMode::kOsu, link), 1e-4);
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

namespace wb {
namespace {

// wb-net --plan: the batch formulas from the link model, and the schedules' measurement counts.
TEST(SweepEstimate, BatchTimesFollowTheLinkModel) {
  const LinkModel link{400, 2};  // 400 Gbit/s: 50 bytes per ns
  const double wire_1mib = 1048576 * 8 / 400e9;
  // ping-pong at 1 MiB: 16 round trips of two messages, each alpha + bytes/rate
  EXPECT_NEAR(batch_seconds(P2pPattern::kPingPong, 1 << 20, WindowMode::kOsu, link), 16 * 2 * (2e-6 + wire_1mib), 1e-12);
  // a stream at 1 MiB: one round of 64 messages, then the acknowledgement
  EXPECT_NEAR(batch_seconds(P2pPattern::kStreamBandwidth, 1 << 20, WindowMode::kOsu, link), 64 * wire_1mib + 4e-6, 1e-12);
  EXPECT_NEAR(batch_seconds(P2pPattern::kBidirectional, 1 << 20, WindowMode::kOsu, link), 64 * wire_1mib + 2e-6, 1e-12);
}

TEST(SweepEstimate, RoundsCostNMinusOneMeasurementsWhereSerialCostsAPairEach) {
  SweepShape shape;
  shape.nodes = 1024;
  shape.patterns = {P2pPattern::kPingPong, P2pPattern::kStreamBandwidth};
  shape.sizes = {1 << 20};
  shape.matchings = 3;
  const LinkModel link{400, 2};
  const SweepCost rounds = estimate_sweep(PairMode::kAll, shape, link);
  const SweepCost serial = estimate_sweep(PairMode::kAllSerial, shape, link);
  const SweepCost bisection = estimate_sweep(PairMode::kBisection, shape, link);
  EXPECT_EQ(rounds.rounds, 1023u);
  EXPECT_EQ(rounds.largest_round, 512u);
  EXPECT_EQ(rounds.pairs, 523776u);
  EXPECT_EQ(rounds.measurements, 1023u * 3);  // ping-pong once, the stream both ways
  EXPECT_EQ(serial.measurements, 523776u * 2);
  EXPECT_EQ(bisection.measurements, 3u * 3);
  // each measurement takes at least the minimum time (0.5 s) and its warm-up (0.05 s)
  EXPECT_GE(rounds.seconds, 3069 * 0.55);
  EXPECT_LT(rounds.seconds, 3069 * 0.7);
  EXPECT_GT(serial.seconds / rounds.seconds, 300);  // n/2 pairs at once, less the second stream pass
  EXPECT_GE(rounds.seconds_at_cap, rounds.seconds);
  // The adaptive screen: one round of every node when healthy, three when a node is bad.
  const SweepCost adaptive = estimate_sweep(PairMode::kAdaptive, shape, link);
  EXPECT_EQ(adaptive.rounds, 3u);
  EXPECT_EQ(adaptive.largest_round, 512u);
  EXPECT_EQ(adaptive.measurements, 3u * 3);
  EXPECT_LT(adaptive.seconds * 300, rounds.seconds);
  const std::string text = sweep_plan_text(shape, link);
  EXPECT_NE(text.find("adaptive            1            512"), std::string::npos) << text;
  EXPECT_NE(text.find("  + culprits        3            512"), std::string::npos) << text;
  EXPECT_NE(text.find("523,776"), std::string::npos) << text;
  EXPECT_NE(text.find("all-serial"), std::string::npos) << text;
}

TEST(AllToAllShape, SharesOsuWindowAmongThePeers) {
  EXPECT_EQ(all_to_all_shape(1 << 20, 8).window, 9u);  // 64 messages in flight over 7 peers
  EXPECT_EQ(all_to_all_shape(1 << 20, 8).rounds, 1u);
  EXPECT_EQ(all_to_all_shape(8, 2).window, 64u);
  EXPECT_EQ(all_to_all_shape(8, 2).rounds, 100u);
  EXPECT_EQ(all_to_all_shape(1 << 20, 1000).window, 1u);
}

}  // namespace
}  // namespace wb
