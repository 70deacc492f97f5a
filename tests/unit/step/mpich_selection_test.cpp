// MPICH's default choice for the nonblocking collectives, from its selection tree
// (maint/tuning/coll/mpir/generic.json of MPICH 4.1-5.0, evaluated as src/mpi/coll/src/csel.c does).
#include "step/mpich_selection.h"

#include <gtest/gtest.h>

namespace wb::step {
namespace {

TEST(MpichSelectionTest, AllReduceIsRecursiveDoublingUpTo2KiBThenRabenseifner) {
  EXPECT_EQ(mpich_nonblocking_choice(CollOp::kAllReduce, 3, 2048, 4).name, "sched_recursive_doubling");
  EXPECT_EQ(mpich_nonblocking_choice(CollOp::kAllReduce, 3, 2052, 4).name, "sched_reduce_scatter_allgather");
  EXPECT_EQ(mpich_nonblocking_choice(CollOp::kAllReduce, 3, 2052, 4).algorithm, Algorithm::kRabenseifner);
  EXPECT_EQ(mpich_switch_bytes(CollOp::kAllReduce, 8, 4), std::vector<double>{2052});
}

// csel.c counts ireduce_scatter_block's total_msg_size in elements (it overwrites the type size),
// so the 524288 threshold falls at 2 MiB of fp32 and 1 MiB of bf16. Measured on the 3-node virtual
// cluster: 2,097,144 B took 38.1 ms (recursive halving), 2,097,156 B 11.8 ms (pairwise).
TEST(MpichSelectionTest, ReduceScatterSwitchesToPairwiseAtHalfAMillionElements) {
  EXPECT_EQ(mpich_nonblocking_choice(CollOp::kReduceScatter, 3, 2097144, 4).name, "sched_recursive_halving");
  EXPECT_EQ(mpich_nonblocking_choice(CollOp::kReduceScatter, 3, 2097156, 4).name, "sched_pairwise");
  EXPECT_EQ(mpich_switch_bytes(CollOp::kReduceScatter, 3, 4), std::vector<double>{2097152});
  EXPECT_EQ(mpich_switch_bytes(CollOp::kReduceScatter, 3, 2), std::vector<double>{1048576});
}

TEST(MpichSelectionTest, AllGatherDependsOnWhetherTheGroupIsAPowerOfTwo) {
  EXPECT_EQ(mpich_nonblocking_choice(CollOp::kAllGather, 4, 524284, 4).name, "sched_recursive_doubling");
  EXPECT_EQ(mpich_nonblocking_choice(CollOp::kAllGather, 4, 524288, 4).name, "sched_ring");
  EXPECT_EQ(mpich_nonblocking_choice(CollOp::kAllGather, 3, 81916, 4).name, "sched_brucks");
  EXPECT_EQ(mpich_nonblocking_choice(CollOp::kAllGather, 3, 81920, 4).name, "sched_ring");
  EXPECT_EQ(mpich_switch_bytes(CollOp::kAllGather, 3, 4), std::vector<double>{81920});
}

}  // namespace
}  // namespace wb::step
