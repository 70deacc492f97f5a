#include "p2p/copy_patterns.h"
#include "p2p/gpu_cases.h"

#include <gtest/gtest.h>

#include "harness/errors.h"

namespace wb {
namespace {

TEST(CopyPatterns, NamesRoundTripAndUnknownNamesAreRefused) {
  const auto patterns = all_copy_patterns();
  EXPECT_EQ(patterns.size(), 10u);
  for (const auto& p : patterns) EXPECT_EQ(parse_copy_pattern(p.name()), p);
  EXPECT_EQ(parse_copy_pattern("sm/read/bidir").initiator, Initiator::kSm);
  EXPECT_THROW(parse_copy_pattern("ce/sideways"), UsageError);
}

TEST(CopyPatterns, EveryOrderedPairWithSelfFirst) {
  const auto pairs = plan_gpu_pairs(3);
  ASSERT_EQ(pairs.size(), 9u);
  EXPECT_EQ(pairs[0], (GpuPair{0, 0}));
  EXPECT_EQ(pairs[1], (GpuPair{0, 1}));
  EXPECT_EQ(pairs[3], (GpuPair{1, 1}));
  EXPECT_EQ(pairs[8], (GpuPair{2, 1}));
  EXPECT_TRUE(plan_gpu_pairs(0).empty());
}

TEST(CopyPatterns, WhoInitiates) {
  const GpuPair pair{1, 3};
  EXPECT_EQ(initiating_gpu(parse_copy_pattern("ce/write"), pair), 1);  // the source pushes
  EXPECT_EQ(initiating_gpu(parse_copy_pattern("sm/read"), pair), 3);   // the destination pulls
  EXPECT_EQ(initiating_gpu(parse_copy_pattern("ce/write/all_to_one"), GpuPair{2, 2}), 2);
}

TEST(CopyPatterns, BytesCountBothDirectionsAndEveryPeer) {
  EXPECT_DOUBLE_EQ(bytes_per_op(parse_copy_pattern("ce/write"), 1000, 8), 1000);
  EXPECT_DOUBLE_EQ(bytes_per_op(parse_copy_pattern("ce/write/bidir"), 1000, 8), 2000);
  EXPECT_DOUBLE_EQ(bytes_per_op(parse_copy_pattern("ce/write/all_to_one"), 1000, 8), 7000);
  EXPECT_DOUBLE_EQ(bytes_per_op(parse_copy_pattern("ce/write/one_to_all"), 1000, 4), 3000);
}

TEST(CopyPatterns, WhatAppliesWhere) {
  const GpuPair self{0, 0}, peers{0, 1};
  EXPECT_FALSE(not_applicable(parse_copy_pattern("ce/write"), self, true, 2));  // device-local copy
  EXPECT_TRUE(not_applicable(parse_copy_pattern("ce/read"), self, true, 2));
  EXPECT_TRUE(not_applicable(parse_copy_pattern("sm/write/bidir"), self, true, 2));
  EXPECT_FALSE(not_applicable(parse_copy_pattern("sm/read/bidir"), peers, true, 2));
  const auto no_peer = not_applicable(parse_copy_pattern("sm/write"), peers, false, 2);
  ASSERT_TRUE(no_peer);
  EXPECT_NE(no_peer->find("peer access"), std::string::npos);
  // copy engines still run without peer access, through host memory, and say so
  EXPECT_FALSE(not_applicable(parse_copy_pattern("ce/write"), peers, false, 2));
  EXPECT_TRUE(staged_through_host(parse_copy_pattern("ce/write"), peers, false));
  EXPECT_FALSE(staged_through_host(parse_copy_pattern("ce/write"), peers, true));
  // contention: once per GPU, and only with a second GPU
  EXPECT_FALSE(not_applicable(parse_copy_pattern("ce/write/all_to_one"), self, true, 2));
  EXPECT_TRUE(not_applicable(parse_copy_pattern("ce/write/all_to_one"), peers, true, 2));
  EXPECT_TRUE(not_applicable(parse_copy_pattern("ce/write/all_to_one"), self, true, 1));
}

}  // namespace
}  // namespace wb

namespace wb {
namespace {

// A healthy H200 read 3 FAIL when every host copy was held to the PCIe ceiling: pageable copies
// ran at 6-14 GB/s (the driver's CPU staging copy) and the copy both ways at 77% of twice the
// one-way ceiling. Only pinned one-way copies measure the link.
TEST(HostGpuCases, OnlyPinnedOneWayCopiesAreHeldToTheLinksCeiling) {
  for (const std::string& kind : host_gpu_case_kinds()) {
    const std::string judged = host_gpu_case_judged(kind, 1 << 20);
    const bool pinned_one_way = kind != "bidir_pinned" && kind.find("pageable") == std::string::npos;
    EXPECT_EQ(judged, pinned_one_way ? "algbw_GBps@largest:ceiling" : "algbw_GBps@largest:siblings") << kind;
  }
  EXPECT_EQ(host_gpu_case_judged("h2d_pinned", 0), "time_us@smallest:siblings");
}

}  // namespace
}  // namespace wb
