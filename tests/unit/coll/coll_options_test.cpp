#include "coll/coll_options.h"

#include <gtest/gtest.h>

#include <cstdlib>

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
                               "-z", "1", "-n", "7", "-w", "9", "-g", "1", "-t", "1", "-a", "3",
                               "--collective", "all_reduce,all_gather"});
  EXPECT_EQ(o.sizes.front(), 8u);
  EXPECT_EQ(o.sizes.back(), 64u << 20);
  EXPECT_EQ(o.sizes.size(), 24u);
  EXPECT_EQ(o.dtypes, (std::vector<DType>{DType::kFloat16, DType::kBfloat16}));
  EXPECT_EQ(o.redops, std::vector<RedOp>{RedOp::kMax});
  EXPECT_EQ(o.root, 1);
  EXPECT_EQ(o.checks, 3);
  EXPECT_TRUE(o.blocking);
  EXPECT_EQ(o.iterations, 7u);
  EXPECT_EQ(o.harness.warmup_batches, 2);  // 9 warm-up calls in batches of 7
  EXPECT_EQ(o.harness.rank_time, RankTime::kSlowest);
  EXPECT_EQ(o.ops, (std::vector<CollOp>{CollOp::kAllReduce, CollOp::kAllGather}));
  EXPECT_EQ(o.placements.size(), 2u);
}

TEST(CollOptions, NcclTestsDefaults) {
  const CollOptions o = parse({});
  EXPECT_EQ(o.sizes, std::vector<std::uint64_t>{32u << 20});  // -b 32M -e 32M
  EXPECT_EQ(o.ops, std::vector<CollOp>{CollOp::kAllReduce});
  EXPECT_EQ(o.redops, std::vector<RedOp>{RedOp::kSum});
  EXPECT_FALSE(o.blocking);  // -z 0
  EXPECT_EQ(o.iterations, 20u);
  EXPECT_EQ(o.checks, 1);
  EXPECT_EQ(o.harness.rank_time, RankTime::kAverage);  // -a 1
  EXPECT_EQ(o.harness.console, "nccl-tests");
  EXPECT_EQ(o.harness.timeout.count(), 60000);
  // -f 1 (the default) steps by -i, as nccl-tests does.
  EXPECT_EQ(parse({"-b", "8", "-e", "4K", "-i", "1K"}).sizes, (std::vector<std::uint64_t>{8, 1032, 2056, 3080}));
  EXPECT_EQ(parse({"-T", "0"}).harness.timeout.count(), 60000);  // never without a deadline
  EXPECT_EQ(parse({"-T", "5"}).harness.timeout.count(), 5000);
  EXPECT_EQ(parse({"--timeout=2"}).harness.timeout.count(), 2000);
  EXPECT_EQ(parse({"-J", "/tmp/x.json"}).harness.json_file, "/tmp/x.json");
}

TEST(CollOptions, AliasesSelectTheirCollective) {
  EXPECT_EQ(collective_of_alias("/usr/bin/all_gather_perf"), "all_gather");
  EXPECT_EQ(collective_of_alias("sendrecv_perf"), "send_recv");
  EXPECT_EQ(collective_of_alias("wb-coll"), "");
  std::vector<std::string> args = {"/opt/wirebench/bin/alltoall_perf", "-b", "8", "-e", "8"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  CommandLine line(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(parse_coll_options(line).ops, std::vector<CollOp>{CollOp::kAllToAll});
  EXPECT_NE(coll_help("reduce_scatter_perf").find("default reduce_scatter, as reduce_scatter_perf says"), std::string::npos);
}

TEST(CollOptions, NcclTestsNamesNotMeasuredYetBecomeSkipRows) {
  const CollOptions o = parse({"-o", "sum,avg,mulsum", "-d", "float,f8e4m3"});
  EXPECT_EQ(o.redops, std::vector<RedOp>{RedOp::kSum});  // MPI has no avg
  EXPECT_EQ(o.unmeasured_redops, (std::vector<std::string>{"mulsum", "avg"}));
  EXPECT_EQ(parse({"--backend", "nccl", "-o", "sum,avg"}).redops, (std::vector<RedOp>{RedOp::kSum, RedOp::kAvg}));
  EXPECT_EQ(inexact_average_reason(DType::kFloat32, 4), "");
  EXPECT_EQ(inexact_average_reason(DType::kInt32, 3), "");
  EXPECT_NE(inexact_average_reason(DType::kBfloat16, 3).find("1/3 is not exact in bfloat16"), std::string::npos);
  EXPECT_EQ(o.dtypes, std::vector<DType>{DType::kFloat32});
  EXPECT_EQ(o.unmeasured_dtypes, std::vector<std::string>{"f8e4m3"});
  EXPECT_NE(unmeasured_reason("avg", "mpi").find("MPI has no avg reduction"), std::string::npos);
  EXPECT_NE(unmeasured_reason("mulsum", "nccl").find("not measured by wirebench yet"), std::string::npos);
  EXPECT_NE(unmeasured_reason("f8e5m2", "nccl").find("not measured by wirebench yet"), std::string::npos);
}

TEST(CollOptions, DefaultsAndAll) {
  const CollOptions o = parse({"--collective", "all", "-d", "all", "-o", "all"});
  EXPECT_EQ(o.ops.size(), 7u);
  EXPECT_EQ(o.dtypes.size(), 10u);
  EXPECT_EQ(o.redops.size(), 4u);
  EXPECT_EQ(parse({"--sizes", "1K,1M"}).sizes, (std::vector<std::uint64_t>{1024, 1u << 20}));
}

TEST(CollOptions, HelpNamesEveryNcclTestsFlag) {
  const std::string help = coll_help();
  for (const char* flag : {"-t,--nthreads", "-g,--ngpus", "-b,--minbytes", "-e,--maxbytes", "-f,--stepfactor",
                           "-i,--stepbytes", "-n,--iters", "-w,--warmup_iters", "-m,--agg_iters", "-o,--op",
                           "-d,--datatype", "-r,--root", "-c,--check", "-z,--blocking", "-G,--cudagraph",
                           "-a,--average", "-C,--report_cputime", "-T,--timeout", "-J,--output_file",
                           "-R,--local_register", "--collective", "--benchmark_min_time"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
}

TEST(CollOptions, MpichAlgorithmsReachTheVariableOfTheCallWbCollMakes) {
  // MPICH's spelling and wirebench's; reduce_scatter is MPI_Reduce_scatter_block's own variable.
  for (const char* name : {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM",
                           "MPIR_CVAR_BCAST_INTRA_ALGORITHM"})
    unsetenv(name);
  apply_mpich_algorithms(parse({"--mpich-algorithm", "all_reduce=ring,reduce_scatter=pairwise,broadcast=binomial"}));
  EXPECT_STREQ(std::getenv("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"), "ring");
  EXPECT_STREQ(std::getenv("MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM"), "pairwise");
  EXPECT_STREQ(std::getenv("MPIR_CVAR_BCAST_INTRA_ALGORITHM"), "binomial");
  for (const char* name : {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM",
                           "MPIR_CVAR_BCAST_INTRA_ALGORITHM"})
    unsetenv(name);
}

TEST(CollOptions, BadArgumentsSayWhy) {
  EXPECT_NE(error_of({"--collective", "scan"}).find("unknown collective 'scan'"), std::string::npos);
  EXPECT_NE(error_of({"--op", "all_reduce"}).find("--op is the reduction, as in nccl-tests: 'all_reduce' is a collective; use --collective all_reduce"), std::string::npos);
  EXPECT_NE(error_of({"-d", "float8"}).find("unknown datatype 'float8'"), std::string::npos);
  EXPECT_NE(error_of({"-o", "median"}).find("unknown reduction op 'median'"), std::string::npos);
  EXPECT_NE(error_of({"-b", "4q"}).find("unknown size unit 'q'"), std::string::npos);
  EXPECT_NE(error_of({"-e", "-8"}).find("negative size"), std::string::npos);
  EXPECT_NE(error_of({"-b"}).find("option -b needs a value"), std::string::npos);
  EXPECT_NE(error_of({"-r", "x"}).find("-r: 'x' is not a whole number"), std::string::npos);
  EXPECT_NE(error_of({"-z", "2"}).find("-z: '2' is not 0 or 1"), std::string::npos);
  EXPECT_NE(error_of({"-a", "4"}).find("-a: '4' is not 0, 1, 2 or 3"), std::string::npos);
  EXPECT_NE(error_of({"-t", "2"}).find("one thread per process"), std::string::npos);
  EXPECT_NE(error_of({"-g", "8"}).find("one GPU per rank"), std::string::npos);
  EXPECT_NE(error_of({"-R", "1"}).find("not supported"), std::string::npos);
  EXPECT_NE(error_of({"-b", "1M", "-e", "8"}).find("-b 1M is larger than -e 8"), std::string::npos);
  EXPECT_NE(error_of({"--sizes", "8", "-b", "8"}).find("either --sizes or -b"), std::string::npos);
  EXPECT_NE(error_of({"--in-place", "maybe"}).find("not both, yes or no"), std::string::npos);
  EXPECT_NE(error_of({"--backend", "gloo"}).find("not mpi or nccl"), std::string::npos);
  EXPECT_NE(error_of({"--split", "odd"}).find("not none, intra or rails"), std::string::npos);
  EXPECT_NE(error_of({"--mpich-algorithm", "ring"}).find("is not OP=ALGORITHM"), std::string::npos);
  EXPECT_NE(error_of({"--mpich-algorithm", "allreduc=ring"}).find("'allreduc' is not a collective"), std::string::npos);
  EXPECT_NE(error_of({"-c", "0", "--inject-fault", "corrupt"}).find("needs the data check"), std::string::npos);
  EXPECT_NE(error_of({"--bogus"}).find("unknown option --bogus"), std::string::npos);
  EXPECT_NE(error_of({"--minbyte", "8"}).find("unknown option --minbyte (did you mean --minbytes?)"), std::string::npos);
  EXPECT_NE(error_of({"--warmup-iters", "8"}).find("did you mean --warmup_iters?"), std::string::npos);
  EXPECT_NE(error_of({"-G", "1"}).find("needs --backend nccl"), std::string::npos);
  EXPECT_NE(error_of({"-m", "4"}).find("needs --backend nccl"), std::string::npos);
  EXPECT_EQ(parse({"--backend", "nccl", "-G", "3"}).graph_launches, 3);
}

}  // namespace
}  // namespace wb
