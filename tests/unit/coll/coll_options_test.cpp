#include "coll/coll_options.h"

#include <gtest/gtest.h>

#include "harness/errors.h"

namespace wb {
namespace {

CollOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "wb-coll");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  CommandLine line(static_cast<int>(argv.size()), argv.data());
  return parse_coll_options(line);
}

std::string error_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(CollOptions, NcclTestsFlags) {
  const CollOptions o = parse({"-b", "8", "-e", "64M", "-f", "2", "-d", "half,bf16", "-o", "max", "-r", "1", "-c", "3",
                               "-z", "0", "-n", "7", "--op", "all_reduce,all_gather"});
  EXPECT_EQ(o.sizes.front(), 8u);
  EXPECT_EQ(o.sizes.back(), 64u << 20);
  EXPECT_EQ(o.sizes.size(), 24u);
  EXPECT_EQ(o.dtypes, (std::vector<DType>{DType::kFloat16, DType::kBfloat16}));
  EXPECT_EQ(o.redops, std::vector<RedOp>{RedOp::kMax});
  EXPECT_EQ(o.root, 1);
  EXPECT_EQ(o.checks, 3);
  EXPECT_FALSE(o.blocking);
  EXPECT_EQ(o.iterations, 7u);
  EXPECT_EQ(o.ops, (std::vector<CollOp>{CollOp::kAllReduce, CollOp::kAllGather}));
  EXPECT_EQ(o.placements.size(), 2u);
}

TEST(CollOptions, DefaultsAndAll) {
  const CollOptions o = parse({"--op", "all", "-d", "all", "-o", "all", "-i", "1K", "-e", "4K"});
  EXPECT_EQ(o.ops.size(), 7u);
  EXPECT_EQ(o.dtypes.size(), 10u);
  EXPECT_EQ(o.redops.size(), 4u);
  EXPECT_EQ(o.sizes, (std::vector<std::uint64_t>{8, 1032, 2056, 3080}));  // -b 8 by +1K up to 4K
  EXPECT_EQ(parse({}).ops, std::vector<CollOp>{CollOp::kAllReduce});
  EXPECT_EQ(parse({"--sizes", "1K,1M"}).sizes, (std::vector<std::uint64_t>{1024, 1u << 20}));
}

TEST(CollOptions, BadArgumentsSayWhy) {
  EXPECT_NE(error_of({"--op", "scan"}).find("unknown op 'scan'"), std::string::npos);
  EXPECT_NE(error_of({"-d", "float8"}).find("unknown datatype 'float8'"), std::string::npos);
  EXPECT_NE(error_of({"-o", "avg"}).find("unknown reduction op 'avg'"), std::string::npos);
  EXPECT_NE(error_of({"-b", "4q"}).find("unknown size unit 'q'"), std::string::npos);
  EXPECT_NE(error_of({"-e", "-8"}).find("negative size"), std::string::npos);
  EXPECT_NE(error_of({"-b"}).find("option -b needs a value"), std::string::npos);
  EXPECT_NE(error_of({"-r", "x"}).find("-r: 'x' is not a whole number"), std::string::npos);
  EXPECT_NE(error_of({"-z", "2"}).find("-z: '2' is not 0 or 1"), std::string::npos);
  EXPECT_NE(error_of({"--sizes", "8", "-b", "8"}).find("either --sizes or -b"), std::string::npos);
  EXPECT_NE(error_of({"--in-place", "maybe"}).find("not both, yes or no"), std::string::npos);
  EXPECT_NE(error_of({"--backend", "gloo"}).find("not mpi or nccl"), std::string::npos);
  EXPECT_NE(error_of({"--split", "odd"}).find("not none, intra or rails"), std::string::npos);
  EXPECT_NE(error_of({"--mpich-algorithm", "ring"}).find("is not OP=ALGORITHM"), std::string::npos);
  EXPECT_NE(error_of({"-c", "0", "--inject-fault", "corrupt"}).find("needs the data check"), std::string::npos);
  EXPECT_NE(error_of({"--bogus"}).find("unknown option --bogus"), std::string::npos);
  EXPECT_NE(error_of({"-G", "1"}).find("needs --backend nccl"), std::string::npos);
  EXPECT_TRUE(parse({"--backend", "nccl", "-G", "1"}).graph);
}

}  // namespace
}  // namespace wb
