// The endpoint grammar's C++ builder (schema/endpoints.csv): every kind written as the reporter
// parses it.
#include "harness/endpoint_name.h"

#include <gtest/gtest.h>

namespace wb {
namespace {

TEST(EndpointName, EveryKindIsNodeSlashWordIndex) {
  EXPECT_EQ(endpoint_name("node3", EndpointKind::kRank, 5), "node3/rank5");
  EXPECT_EQ(endpoint_name("node3", EndpointKind::kGpu, 0), "node3/gpu0");
  EXPECT_EQ(endpoint_name("dgx-a100-017", EndpointKind::kNuma, 1), "dgx-a100-017/numa1");
  EXPECT_EQ(endpoint_name("n1", EndpointKind::kRail, 12), "n1/rail12");
}

TEST(EndpointName, TheKindsAreTheSchemasInItsOrder) {
  ASSERT_EQ(kEndpointWords.size(), 4u);
  EXPECT_EQ(kEndpointWords[static_cast<std::size_t>(EndpointKind::kRank)], "rank");
  EXPECT_EQ(kEndpointWords[static_cast<std::size_t>(EndpointKind::kRail)], "rail");
}

}  // namespace
}  // namespace wb
