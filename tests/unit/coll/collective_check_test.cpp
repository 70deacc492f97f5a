// The device check's formulas (kernels/collective_check.h), run on the host, against the host
// reference check (coll/collective.h): bit-equal inputs, expected values, stored and loaded
// elements and wrong-element counts on every collective, type and reduction. The same formulas
// run on a GPU in tests/gpu/collective_check_device_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "comm/collective.h"
#include "collective_check.h"

namespace wb {
namespace {

std::vector<CheckContext> contexts() {
  std::vector<CheckContext> all;
  for (CollOp op : all_collectives())
    for (DType dtype : all_dtypes())
      for (RedOp redop : {RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin, RedOp::kAvg})
        for (int ranks : {1, 2, 3, 8, 64})
          for (std::uint64_t seed : {0ull, 7ull, 1000003ull}) {
            CheckContext c{op, dtype, redop, ranks, ranks - 1, seed, 37};
            all.push_back(c);
          }
  return all;
}

std::uint64_t bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

TEST(CollectiveCheck, InputsAndExpectedValuesAreBitEqualToTheHostCheck) {
  for (const CheckContext& c : contexts()) {
    const collcheck::Params p = check_params(c);
    ASSERT_EQ(collcheck::send_elements(p), check_send_elements(c));
    ASSERT_EQ(collcheck::recv_elements(p), check_recv_elements(c));
    for (int rank = 0; rank < c.ranks; ++rank) {
      ASSERT_EQ(collcheck::receives_result(p, rank), receives_result(c, rank));
      for (std::size_t i = 0; i < check_send_elements(c); ++i)
        ASSERT_EQ(bits(collcheck::input(p, rank, i)), bits(input_value(c, rank, i)));
      for (std::size_t i = 0; i < check_recv_elements(c); ++i)
        ASSERT_EQ(bits(collcheck::expected(p, rank, i)), bits(expected_value(c, rank, i)))
            << describe(c.op).name << " " << info(c.dtype).name << " rank " << rank << " index " << i;
    }
  }
}

TEST(CollectiveCheck, StoredAndLoadedElementsAreBitEqualOnEveryType) {
  std::mt19937_64 random(42);
  std::vector<double> values = {0, 1, 2, 3, 5, 64, 2048, 2049, 65504, 65520, 1e6, -1, -2.5, 0.1, 1.0 / 3, 6e-5, 6e-8,
                                3e-8, 1e-30, 3.4e38, -0.0};
  std::uniform_real_distribution<double> wide(-70000, 70000), narrow(-1, 1);
  for (int i = 0; i < 20000; ++i) values.push_back(i % 2 ? wide(random) : narrow(random) * std::pow(2.0, -(i % 30)));
  for (DType dtype : all_dtypes()) {
    const bool integer = info(dtype).name[0] == 'i' || info(dtype).name[0] == 'u';
    for (double value : values) {
      if (integer && (value < 0 || value > 120 || value != std::floor(value))) continue;  // defined conversions only
      unsigned char host[8] = {}, device[8] = {};
      store_element(dtype, host, value);
      collcheck::store(static_cast<int>(dtype), device, value);
      ASSERT_EQ(std::memcmp(host, device, info(dtype).size), 0) << info(dtype).name << " " << value;
      ASSERT_EQ(bits(collcheck::load(static_cast<int>(dtype), device)), bits(load_element(dtype, host)))
          << info(dtype).name << " " << value;
    }
    // every bit pattern of the 16-bit types loads alike (NaNs as NaN)
    if (info(dtype).size == 2)
      for (std::uint32_t pattern = 0; pattern < 65536; ++pattern) {
        unsigned char element[8] = {};
        const std::uint16_t h = static_cast<std::uint16_t>(pattern);
        std::memcpy(element, &h, 2);
        const double a = load_element(dtype, element), b = collcheck::load(static_cast<int>(dtype), element);
        ASSERT_TRUE(bits(a) == bits(b) || (std::isnan(a) && std::isnan(b))) << info(dtype).name << " " << pattern;
      }
  }
}

TEST(CollectiveCheck, WrongElementCountsAgreeWithTheHostCheck) {
  for (const CheckContext& c : contexts()) {
    if (c.ranks > 8) continue;
    const collcheck::Params p = check_params(c);
    const std::size_t size = info(c.dtype).size;
    for (int rank = 0; rank < c.ranks; ++rank) {
      std::vector<unsigned char> result(check_recv_elements(c) * size + 1);
      for (std::size_t i = 0; i < check_recv_elements(c); ++i)
        store_element(c.dtype, result.data() + i * size, expected_value(c, rank, i));
      for (std::size_t i = 0; i < check_recv_elements(c); i += 5)  // every fifth element wrong
        store_element(c.dtype, result.data() + i * size, expected_value(c, rank, i) + 1);
      std::uint64_t kernel = 0;
      if (collcheck::receives_result(p, rank))
        for (std::size_t i = 0; i < collcheck::recv_elements(p); ++i)
          kernel += collcheck::wrong(p, rank, i, result.data() + i * size);
      const std::uint64_t host = count_wrong(c, rank, result.data());
      ASSERT_EQ(kernel, host) << describe(c.op).name << " " << info(c.dtype).name << " rank " << rank;
      if (receives_result(c, rank)) {
        ASSERT_GT(host, 0u);
      }
    }
  }
}

}  // namespace
}  // namespace wb
