#include "harness/command_line.h"

#include <gtest/gtest.h>

#include "harness/errors.h"
#include "net/net_options.h"

namespace wb {
namespace {

struct Argv {
  explicit Argv(std::vector<std::string> args) : storage(std::move(args)) {
    for (auto& a : storage) pointers.push_back(a.data());
  }
  int argc() { return static_cast<int>(pointers.size()); }
  char** argv() { return pointers.data(); }
  std::vector<std::string> storage;
  std::vector<char*> pointers;
};

NetOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "wb-net");
  Argv argv(args);
  CommandLine line(argv.argc(), argv.argv());
  return parse_net_options(line);
}

std::string usage_error(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(NetOptions, Defaults) {
  const NetOptions options = parse({});
  EXPECT_EQ(options.sizes.front(), 0u);
  EXPECT_EQ(options.sizes.back(), 4u << 20);
  EXPECT_EQ(options.patterns.size(), 3u);
  EXPECT_EQ(options.pairs, PairMode::kFirst);
  EXPECT_EQ(options.backends, std::vector<std::string>{"mpi"});
  EXPECT_EQ(options.harness.run_dir, ".");
  EXPECT_EQ(options.harness.timeout.count(), 60000);
  EXPECT_TRUE(options.check);
  EXPECT_FALSE(parse({"--check", "0"}).check);
  EXPECT_EQ(options.batch_bytes, 16u << 20);
  EXPECT_EQ(parse({"--batch-bytes", "4M"}).batch_bytes, 4u << 20);
}

TEST(NetOptions, BothSpellingsAndBenchmarkFlagsPassThrough) {
  Argv argv({"wb-net", "--sizes", "8,1K", "--tests=latency", "--pairs=all", "--benchmark_filter=latency",
             "--timeout", "2.5", "--backend=all", "--link-class", "ib", "--run-dir=/tmp/x"});
  CommandLine line(argv.argc(), argv.argv());
  const NetOptions options = parse_net_options(line);
  EXPECT_EQ(options.sizes, (std::vector<std::uint64_t>{8, 1024}));
  EXPECT_EQ(options.patterns, std::vector<P2pPattern>{P2pPattern::kPingPong});
  EXPECT_EQ(options.pairs, PairMode::kAll);
  EXPECT_EQ(options.backends.size(), 3u);
  EXPECT_EQ(options.link_class, "ib");
  EXPECT_EQ(options.harness.timeout.count(), 2500);
  EXPECT_EQ(options.harness.run_dir, "/tmp/x");
  EXPECT_EQ(line.benchmark_arguments(), (std::vector<std::string>{"wb-net", "--benchmark_filter=latency"}));
}

TEST(NetOptions, BadArgumentsSayWhatIsWrong) {
  EXPECT_NE(usage_error({"--sizes", "4q"}).find("unknown size unit 'q'"), std::string::npos);
  EXPECT_NE(usage_error({"--sizes=-8"}).find("negative size"), std::string::npos);
  EXPECT_NE(usage_error({"--sizes"}).find("option --sizes needs a value"), std::string::npos);
  EXPECT_NE(usage_error({"--sizes", "--pairs=all"}).find("needs a value"), std::string::npos);
  EXPECT_NE(usage_error({"--tests=ping"}).find("'ping' is not latency, bw or bibw"), std::string::npos);
  EXPECT_NE(usage_error({"--pairs=some"}).find("not first, ring, all, all-serial, bisection, alltoall, adaptive or a list of rank pairs (0-1,2-3)"), std::string::npos);
  EXPECT_NE(usage_error({"--backend=gloo"}).find("'gloo'"), std::string::npos);
  EXPECT_NE(usage_error({"--link-class=wifi"}).find("'wifi'"), std::string::npos);
  EXPECT_NE(usage_error({"--timeout=0"}).find("not a positive number"), std::string::npos);
  EXPECT_NE(usage_error({"--timeout=abc"}).find("not a positive number"), std::string::npos);
  EXPECT_NE(usage_error({"--warmup=-1"}).find("--warmup"), std::string::npos);
  EXPECT_NE(usage_error({"--frobnicate"}).find("unknown option --frobnicate"), std::string::npos);
  EXPECT_NE(usage_error({"stray"}).find("unexpected argument 'stray'"), std::string::npos);
  EXPECT_NE(usage_error({"--inject-fault=melt"}).find("not corrupt"), std::string::npos);
  EXPECT_NE(usage_error({"--check=2"}).find("'2' is not 0 or 1"), std::string::npos);
  EXPECT_NE(usage_error({"--batch-bytes=0"}).find("--batch-bytes: '0' is not a size above 0"), std::string::npos);
  EXPECT_NE(usage_error({"--batch-bytes=4q"}).find("unknown size unit 'q'"), std::string::npos);
  EXPECT_NE(usage_error({"--check=0", "--inject-fault=corrupt"}).find("needs the data check"), std::string::npos);
}

}  // namespace
}  // namespace wb
