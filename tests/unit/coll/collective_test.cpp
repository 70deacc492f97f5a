#include "comm/collective.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "comm/dtype.h"
#include "harness/errors.h"

namespace wb {
namespace {

TEST(DType, RoundTripOfSmallWholeNumbersInEveryType) {
  for (DType type : all_dtypes()) {
    std::vector<unsigned char> element(8);
    for (double v : {0.0, 1.0, 2.0, 5.0, 100.0, 125.0}) {
      store_element(type, element.data(), v);
      EXPECT_EQ(load_element(type, element.data()), v) << info(type).name;
    }
  }
}

TEST(DType, SixteenBitFloatsRoundLikeHardware) {
  std::vector<unsigned char> e(2);
  store_element(DType::kFloat16, e.data(), 2049);  // not representable: ties to even -> 2048
  EXPECT_EQ(load_element(DType::kFloat16, e.data()), 2048);
  store_element(DType::kFloat16, e.data(), 0.1);
  EXPECT_NEAR(load_element(DType::kFloat16, e.data()), 0.1, 1e-4);
  store_element(DType::kFloat16, e.data(), 70000);  // above float16's range
  EXPECT_TRUE(std::isinf(load_element(DType::kFloat16, e.data())));
  store_element(DType::kBfloat16, e.data(), 257);  // 8-bit significand: 256
  EXPECT_EQ(load_element(DType::kBfloat16, e.data()), 256);
  store_element(DType::kBfloat16, e.data(), 3.0e38);
  EXPECT_NEAR(load_element(DType::kBfloat16, e.data()), 3.0e38, 3.0e36);
}

TEST(DType, NamesAndNcclTestsAliases) {
  EXPECT_EQ(parse_dtype("half"), DType::kFloat16);
  EXPECT_EQ(parse_dtype("bf16"), DType::kBfloat16);
  EXPECT_EQ(parse_dtype("float"), DType::kFloat32);
  EXPECT_EQ(parse_dtype("double"), DType::kFloat64);
  EXPECT_EQ(parse_dtype("uint64"), DType::kUint64);
  EXPECT_THROW(parse_dtype("float128"), UsageError);
  EXPECT_EQ(parse_redop("max"), RedOp::kMax);
  EXPECT_EQ(parse_redop("avg"), RedOp::kAvg);
  EXPECT_THROW(parse_redop("mulsum"), UsageError);
  EXPECT_EQ(parse_collective("allreduce"), CollOp::kAllReduce);
  EXPECT_EQ(parse_collective("reduce_scatter"), CollOp::kReduceScatter);
  EXPECT_EQ(parse_collective("alltoall"), CollOp::kAllToAll);
  EXPECT_THROW(parse_collective("scan"), UsageError);
}

// MPICH's spellings name the same collectives, and each names the variable of the call wirebench
// makes (MPI_Reduce_scatter_block's for reduce_scatter).
TEST(Collective, MpichNamesAndVariables) {
  EXPECT_EQ(find_collective("bcast"), CollOp::kBroadcast);
  EXPECT_EQ(find_collective("ALLREDUCE"), CollOp::kAllReduce);
  EXPECT_EQ(find_collective("reduce_scatter_block"), CollOp::kReduceScatter);
  EXPECT_EQ(find_collective("scan"), std::nullopt);
  EXPECT_EQ(mpich_algorithm_variable(CollOp::kAllReduce), "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM");
  EXPECT_EQ(mpich_algorithm_variable(CollOp::kBroadcast), "MPIR_CVAR_BCAST_INTRA_ALGORITHM");
  EXPECT_EQ(mpich_algorithm_variable(CollOp::kReduceScatter), "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM");
  EXPECT_EQ(mpich_algorithm_variable(CollOp::kAllToAll), "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM");
  EXPECT_EQ(mpich_algorithm_variable(CollOp::kSendRecv), "");
}

TEST(Collective, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(describe(CollOp::kAllReduce).busbw_factor(4), 1.5);   // 2(n-1)/n
  EXPECT_DOUBLE_EQ(describe(CollOp::kAllGather).busbw_factor(4), 0.75);  // (n-1)/n
  EXPECT_DOUBLE_EQ(describe(CollOp::kReduceScatter).busbw_factor(8), 0.875);
  EXPECT_DOUBLE_EQ(describe(CollOp::kAllToAll).busbw_factor(2), 0.5);
  EXPECT_DOUBLE_EQ(describe(CollOp::kBroadcast).busbw_factor(8), 1.0);
  EXPECT_DOUBLE_EQ(describe(CollOp::kReduce).busbw_factor(8), 1.0);
  EXPECT_DOUBLE_EQ(describe(CollOp::kSendRecv).busbw_factor(8), 1.0);
}

TEST(Collective, ShapesFollowNcclTestsSizes) {
  // all_reduce of 4 KiB float32: 1024 elements in and out.
  const CollectiveShape ar = shape_of(CollOp::kAllReduce, 4096, DType::kFloat32, 4);
  EXPECT_EQ(ar.count, 1024u);
  EXPECT_EQ(ar.send_elements, 1024u);
  EXPECT_EQ(ar.bytes, 4096u);
  // all_gather: S is the gathered buffer; each rank sends S/n.
  const CollectiveShape ag = shape_of(CollOp::kAllGather, 4096, DType::kFloat32, 4);
  EXPECT_EQ(ag.count, 256u);
  EXPECT_EQ(ag.send_elements, 256u);
  EXPECT_EQ(ag.recv_elements, 1024u);
  // reduce_scatter: the opposite.
  const CollectiveShape rs = shape_of(CollOp::kReduceScatter, 4096, DType::kFloat32, 4);
  EXPECT_EQ(rs.send_elements, 1024u);
  EXPECT_EQ(rs.recv_elements, 256u);
  // rounding down to whole elements per rank; too small is 0 elements
  EXPECT_EQ(shape_of(CollOp::kAllToAll, 100, DType::kFloat32, 3).bytes, 96u);
  EXPECT_EQ(shape_of(CollOp::kAllGather, 8, DType::kFloat32, 4).count, 0u);
  EXPECT_EQ(shape_of(CollOp::kAllReduce, 7, DType::kFloat64, 4).count, 0u);
}

CheckContext context(CollOp op, DType dtype, RedOp redop, int ranks, std::size_t count) {
  return CheckContext{op, dtype, redop, ranks, 0, 3, count};
}

TEST(Collective, AnAverageIsTheValueEveryRankContributes) {
  for (int ranks : {1, 2, 4, 8}) {
    const CheckContext c = context(CollOp::kAllReduce, DType::kBfloat16, RedOp::kAvg, ranks, 16);
    for (std::size_t i = 0; i < 16; ++i) {
      for (int r = 1; r < ranks; ++r) ASSERT_EQ(input_value(c, r, i), input_value(c, 0, i));
      ASSERT_EQ(expected_value(c, 0, i), input_value(c, 0, i));
      ASSERT_GE(expected_value(c, 0, i), 1.0);
    }
  }
}

TEST(Collective, ExpectedValuesAgreeWithAHandComputedExchange) {
  // Simulate the collectives on the host from the inputs, and compare with expected_value.
  const int n = 3;
  const std::size_t count = 5;
  for (RedOp redop : {RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin}) {
    const CheckContext ar = context(CollOp::kAllReduce, DType::kFloat32, redop, n, count);
    for (std::size_t i = 0; i < count; ++i) {
      double result = input_value(ar, 0, i);
      for (int r = 1; r < n; ++r) {
        const double v = input_value(ar, r, i);
        result = redop == RedOp::kSum ? result + v
                 : redop == RedOp::kProd ? result * v
                 : redop == RedOp::kMax ? std::max(result, v)
                                        : std::min(result, v);
      }
      for (int r = 0; r < n; ++r) EXPECT_EQ(expected_value(ar, r, i), result);
      EXPECT_GE(result, 1.0);  // a buffer poisoned with 0 can never pass
    }
  }
  const CheckContext a2a = context(CollOp::kAllToAll, DType::kInt32, RedOp::kSum, n, count);
  for (int me = 0; me < n; ++me)
    for (int from = 0; from < n; ++from)
      for (std::size_t i = 0; i < count; ++i)
        EXPECT_EQ(expected_value(a2a, me, from * count + i), input_value(a2a, from, me * count + i));
  const CheckContext ag = context(CollOp::kAllGather, DType::kInt32, RedOp::kSum, n, count);
  EXPECT_EQ(expected_value(ag, 1, 2 * count + 4), input_value(ag, 2, 4));
  const CheckContext sr = context(CollOp::kSendRecv, DType::kInt32, RedOp::kSum, n, count);
  EXPECT_EQ(expected_value(sr, 0, 2), input_value(sr, 2, 2));  // rank 0 hears from rank n-1
  const CheckContext rs = context(CollOp::kReduceScatter, DType::kInt32, RedOp::kSum, n, count);
  double block = 0;
  for (int r = 0; r < n; ++r) block += input_value(rs, r, 2 * count + 1);
  EXPECT_EQ(expected_value(rs, 2, 1), block);
}

TEST(Collective, SumsStayExactInTheNarrowTypes) {
  for (DType type : {DType::kInt8, DType::kBfloat16, DType::kFloat16}) {
    const int ranks = 64;
    const CheckContext c = context(CollOp::kAllReduce, type, RedOp::kSum, ranks, 100);
    for (std::size_t i = 0; i < 100; ++i) EXPECT_LE(expected_value(c, 0, i), info(type).exact_limit) << info(type).name;
  }
}

TEST(Collective, CheckCatchesUnwrittenAndWrongElements) {
  const CheckContext c = context(CollOp::kAllGather, DType::kFloat16, RedOp::kSum, 4, 8);
  std::vector<unsigned char> buffer(4 * 8 * 2);
  poison_recv(c, buffer.data());
  EXPECT_EQ(count_wrong(c, 1, buffer.data()), 32u);  // nothing arrived: every element wrong
  for (std::size_t i = 0; i < 32; ++i) store_element(c.dtype, buffer.data() + 2 * i, expected_value(c, 1, i));
  EXPECT_EQ(count_wrong(c, 1, buffer.data()), 0u);
  store_element(c.dtype, buffer.data() + 2 * 17, expected_value(c, 1, 17) + 1);
  EXPECT_EQ(count_wrong(c, 1, buffer.data()), 1u);
  // reduce: only the root's buffer holds a result
  const CheckContext r = context(CollOp::kReduce, DType::kFloat32, RedOp::kSum, 4, 8);
  EXPECT_TRUE(receives_result(r, 0));
  EXPECT_FALSE(receives_result(r, 2));
}

}  // namespace
}  // namespace wb
