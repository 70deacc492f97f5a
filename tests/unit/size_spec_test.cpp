#include "harness/size_spec.h"

#include <gtest/gtest.h>

#include "harness/errors.h"

namespace wb {
namespace {

using Sizes = std::vector<std::uint64_t>;

TEST(SizeSpec, SingleSizesAndUnits) {
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("8B"), 8u);
  EXPECT_EQ(parse_size("4K"), 4096u);
  EXPECT_EQ(parse_size("4k"), 4096u);
  EXPECT_EQ(parse_size("256MiB"), 256ull << 20);
  EXPECT_EQ(parse_size("4G"), 4ull << 30);
  EXPECT_EQ(parse_size("1TiB"), 1ull << 40);
  EXPECT_EQ(parse_size("1KB"), 1000u);
  EXPECT_EQ(parse_size("2MB"), 2000000u);
  EXPECT_EQ(parse_size("1GB"), 1000000000u);
  EXPECT_EQ(parse_size(" 16 M "), 16ull << 20);
}

TEST(SizeSpec, RangesDoubleByDefault) {
  EXPECT_EQ(parse_size_spec("8:64"), (Sizes{8, 16, 32, 64}));
  EXPECT_EQ(parse_size_spec("8:100"), (Sizes{8, 16, 32, 64}));
  EXPECT_EQ(parse_size_spec("0:4"), (Sizes{0, 1, 2, 4}));
  EXPECT_EQ(parse_size_spec("1K:1K"), (Sizes{1024}));
}

TEST(SizeSpec, RangesWithFactorOrStep) {
  EXPECT_EQ(parse_size_spec("1:64:4"), (Sizes{1, 4, 16, 64}));
  EXPECT_EQ(parse_size_spec("1:64:x4"), (Sizes{1, 4, 16, 64}));
  EXPECT_EQ(parse_size_spec("0:3K:+1K"), (Sizes{0, 1024, 2048, 3072}));
}

TEST(SizeSpec, ListsKeepTheirOrder) {
  EXPECT_EQ(parse_size_spec("64,8,1K:2K"), (Sizes{64, 8, 1024, 2048}));
  EXPECT_EQ(parse_size_spec("8:4G").back(), 4ull << 30);
  EXPECT_EQ(parse_size_spec("8:4G").size(), 30u);
}


TEST(SizeSpec, RangeNearTheTopOfUint64StopsInsteadOfWrapping) {
  // 2^63 doubled wraps to 0; the range must end at 2^63, not loop or wrap.
  EXPECT_EQ(parse_size_spec("8589934592G:17179869183G"), (Sizes{1ull << 63}));
  EXPECT_EQ(parse_size_spec("17179869183G:17179869183G:+1G"), (Sizes{17179869183ull << 30}));
}

TEST(SizeSpec, BadSpecsSayWhatIsWrong) {
  auto message_of = [](const char* spec) {
    try {
      parse_size_spec(spec);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of("4q").find("unknown size unit 'q' in '4q'"), std::string::npos);
  EXPECT_NE(message_of("-8").find("negative size"), std::string::npos);
  EXPECT_NE(message_of("").find("missing size value"), std::string::npos);
  EXPECT_NE(message_of("8:").find("missing size value"), std::string::npos);
  EXPECT_NE(message_of("8,,16").find("empty entry"), std::string::npos);
  EXPECT_NE(message_of("1.5M").find("whole number"), std::string::npos);
  EXPECT_NE(message_of("M").find("does not start with a number"), std::string::npos);
  EXPECT_NE(message_of("64:8").find("start is above its end"), std::string::npos);
  EXPECT_NE(message_of("8:64:1").find("factor must be at least 2"), std::string::npos);
  EXPECT_NE(message_of("8:64:abc").find("bad step"), std::string::npos);
  EXPECT_NE(message_of("99999999999999999999").find("too large"), std::string::npos);
  EXPECT_NE(message_of("17179869184G").find("too large"), std::string::npos);
  EXPECT_NE(message_of("0:1G:+1").find("too many sizes"), std::string::npos);
}

TEST(SizeSpec, FormatIsExactAndShort) {
  EXPECT_EQ(format_size(0), "0B");
  EXPECT_EQ(format_size(8), "8B");
  EXPECT_EQ(format_size(1000), "1000B");
  EXPECT_EQ(format_size(4096), "4KiB");
  EXPECT_EQ(format_size(256ull << 20), "256MiB");
  EXPECT_EQ(format_size(4ull << 30), "4GiB");
  EXPECT_EQ(format_size(1536), "1536B");
}

}  // namespace
}  // namespace wb
