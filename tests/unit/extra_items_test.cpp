// The one writer of results.csv's `extra` column (harness/extra_items.h) and its catalogue.
#include "harness/extra_items.h"

#include <gtest/gtest.h>

#include <stdexcept>

TEST(ExtraItems, WritesKeyValueItemsInOrderAndReadsThemBack) {
  wb::ExtraItems items;
  items.set("redop", "sum").set("iters", std::uint64_t{40}).set("NCCL_ALGO", "Ring").set("redop", "max");
  EXPECT_EQ(items.text(), "redop=max;iters=40;NCCL_ALGO=Ring");
  EXPECT_EQ(wb::ExtraItems::parse(items.text()).text(), items.text());
  EXPECT_EQ(wb::ExtraItems::parse("").text(), "");
  EXPECT_EQ(items.get("iters"), "40");
}

TEST(ExtraItems, IdentityLeavesOutBatchingAndResults) {
  const auto items = wb::ExtraItems::parse("redop=sum;iters=40;window=64;compute_us=3;bytes_all_gather_shard=8;root=0");
  EXPECT_EQ(items.identity_text(), "redop=sum;root=0");
  EXPECT_EQ(wb::extra_kind("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"), wb::ExtraKind::kIdentity);
  EXPECT_EQ(wb::extra_kind("bytes_reduce_scatter"), wb::ExtraKind::kResult);
  EXPECT_EQ(wb::extra_kind("rounds"), wb::ExtraKind::kBatching);
  EXPECT_FALSE(wb::extra_kind("no_such_key"));
}

TEST(ExtraItems, RefusesWhatTheGrammarOrTheCatalogueDoesNotAllow) {
  wb::ExtraItems items;
  EXPECT_THROW(items.set("no_such_key", "1"), std::logic_error);       // not in schema/extra-items.csv
  EXPECT_THROW(items.set("bytes_all_gather@shard", "1"), std::logic_error);  // not a key
  EXPECT_THROW(items.set("redop", "a;b"), std::logic_error);
  EXPECT_THROW(items.set("redop", ""), std::logic_error);
  EXPECT_THROW(wb::ExtraItems::parse("redop=sum;broken"), std::invalid_argument);
  EXPECT_THROW(wb::ExtraItems::parse("=x"), std::invalid_argument);
}
