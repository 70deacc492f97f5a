// Every algorithm's formula worked by hand for small p, the hierarchical forms, and the choice of
// the fastest switching exactly where the formulas cross.
#include "step/collective_algorithms.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/errors.h"

namespace wb::step {
namespace {

using A = Algorithm;
const LinkCost kLink{10.0, 1e-3, 1e-4};  // 10 us, 1 GB/s, reduction at 10 GB/s

TEST(CollectiveAlgorithmsTest, AllReduceByHand) {
  const double n = 1e6;  // n beta = 1000 us, n gamma = 100 us
  // ring, p = 4: 2*3*10 + 2*(3/4)*1000 + (3/4)*100
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kRing, 4, n, kLink), 60 + 1500 + 75);
  // tree, p = 4: depth 2, up and down: 4*10 + 2*1000 + 100
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kTree, 4, n, kLink), 40 + 2000 + 100);
  // tree, p = 5: depth 3
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kTree, 5, n, kLink), 60 + 2000 + 100);
  // recursive doubling, p = 4: 2 steps of the whole buffer, 2 reductions
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kRecursiveDoubling, 4, n, kLink), 2 * 1010 + 200);
  // p = 6: 4 of them double (2 steps), the 2 others hand over first and get the result last
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kRecursiveDoubling, 6, n, kLink), 4 * 1010 + 3 * 100);
  // Rabenseifner, p = 4: 2*2*10 + 2*(3/4)*1000 + (3/4)*100
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kRabenseifner, 4, n, kLink), 40 + 1500 + 75);
  // p = 6: on 4, plus the hand-over and the return: 2*10 + 2*1000 + 100
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kRabenseifner, 6, n, kLink), 40 + 1500 + 75 + 2120);
  // p = 2: ring and Rabenseifner are one exchange of halves each way
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kRing, 2, n, kLink), 20 + 1000 + 50);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kRabenseifner, 2, n, kLink), 20 + 1000 + 50);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllReduce, A::kTree, 1, n, kLink), 0);
}

TEST(CollectiveAlgorithmsTest, RootedAndGatheringCollectivesByHand) {
  const double n = 1e6;
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kBroadcast, A::kRing, 8, n, kLink), 70 + 1000);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kBroadcast, A::kTree, 8, n, kLink), 30 + 1000);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kBroadcast, A::kBinomial, 8, n, kLink), 3 * 1010);
  // scatter (binomial) then ring all_gather: (3 + 7)*10 + 2*(7/8)*1000
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kBroadcast, A::kRabenseifner, 8, n, kLink), 100 + 1750);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kReduce, A::kRing, 4, n, kLink), 30 + 1100);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kReduce, A::kBinomial, 4, n, kLink), 2 * 1110);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kReduce, A::kTree, 4, n, kLink), 20 + 1100);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kReduce, A::kRabenseifner, 4, n, kLink), 40 + 1500 + 75);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllGather, A::kRing, 4, n, kLink), 30 + 750);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllGather, A::kRecursiveDoubling, 4, n, kLink), 20 + 750);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllGather, A::kRecursiveDoubling, 5, n, kLink), 30 + 800);  // Bruck's
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kReduceScatter, A::kRing, 4, n, kLink), 30 + 750 + 75);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kReduceScatter, A::kRecursiveDoubling, 4, n, kLink), 20 + 750 + 75);
  // 3 ranks, MPICH's scheme: rank 0 hands its whole buffer to rank 1 (10 + 1000 + 100); ranks 1 and 2
  // halve unequally, rank 1 standing for blocks 0 and 1: it receives 2/3 and sends 1/3 (10 + 666.7 +
  // 66.7); rank 1 sends rank 0 its block (10 + 333.3). An even split would say 1/2 for the middle step.
  EXPECT_NEAR(flat_time_us(CollOp::kReduceScatter, A::kRecursiveDoubling, 3, n, kLink),
              1110 + (10 + 2e6 / 3 * 1.1e-3) + (10 + 1e6 / 3 * 1e-3), 1e-6);
  // On an idle communicator, rank 2 (no hand-over) sends rank 1 its first step during rank 0's
  // hand-over; rank 1's own first-step send then runs after it: 1/2 of the buffer for Rabenseifner,
  // rank 1's upper block (1/3) for halving. Powers of two and other algorithms: nothing.
  EXPECT_DOUBLE_EQ(early_first_step_bytes(CollOp::kAllReduce, A::kRabenseifner, 3, n), n / 2);
  EXPECT_DOUBLE_EQ(early_first_step_bytes(CollOp::kReduceScatter, A::kRecursiveDoubling, 3, n), n / 3);
  EXPECT_DOUBLE_EQ(early_first_step_bytes(CollOp::kAllReduce, A::kRabenseifner, 4, n), 0);
  EXPECT_DOUBLE_EQ(early_first_step_bytes(CollOp::kAllReduce, A::kRabenseifner, 6, n), 0);  // 1 and 3 pair
  EXPECT_DOUBLE_EQ(early_first_step_bytes(CollOp::kAllReduce, A::kRabenseifner, 5, n), n / 2);
  EXPECT_DOUBLE_EQ(early_first_step_bytes(CollOp::kAllReduce, A::kRing, 3, n), 0);
  // 6 ranks, halving: new rank 1 (rank 3, a hand-over) pairs with new rank 3 (rank 5, none).
  EXPECT_DOUBLE_EQ(early_first_step_bytes(CollOp::kReduceScatter, A::kRecursiveDoubling, 6, n), n / 3);
  // 7 ranks: new rank 3 (rank 6, no hand-over) pairs with new rank 1 (rank 3, a hand-over), which
  // sends the upper half of the new ranking: new rank 2's two blocks and new rank 3's one, 3/7.
  EXPECT_DOUBLE_EQ(early_first_step_bytes(CollOp::kReduceScatter, A::kRecursiveDoubling, 7, n), 3 * n / 7);
  // 6 ranks: blocks 2,2,1,1 sixths on the 4 left; steps of 4/6 and 2/6 of the buffer.
  EXPECT_NEAR(flat_time_us(CollOp::kReduceScatter, A::kRecursiveDoubling, 6, n, kLink),
              1110 + (10 + 4e6 / 6 * 1.1e-3) + (10 + 2e6 / 6 * 1.1e-3) + (10 + 1e6 / 6 * 1e-3), 1e-6);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kAllToAll, A::kRing, 4, n, kLink), 30 + 750);
  EXPECT_DOUBLE_EQ(flat_time_us(CollOp::kSendRecv, A::kRing, 2, n, kLink), 1010);
  EXPECT_THROW(flat_time_us(CollOp::kAllGather, A::kTree, 4, n, kLink), std::invalid_argument);
  EXPECT_THROW(flat_time_us(CollOp::kAllToAll, A::kBinomial, 4, n, kLink), std::invalid_argument);
}

TEST(CollectiveAlgorithmsTest, HierarchicalFormsRingInsideAndTheAlgorithmAcross) {
  ClusterWiring w{4, 8, {2.0, 1e-3 / 400}, {5.0, 1e-3 / 50}};
  const double S = 8e9;
  const double inside = 28 + 35000;  // ring all_reduce over the node's 8 GPUs, the whole buffer
  // across 4 nodes, a GPU's eighth (1e9 B): tree 2*2*5 + 2*1e9*2e-5
  EXPECT_NEAR(hierarchical_time_us(CollOp::kAllReduce, A::kTree, S, w), inside + 20 + 40000, 1e-6);
  EXPECT_NEAR(hierarchical_time_us(CollOp::kAllReduce, A::kRecursiveDoubling, S, w), inside + 2 * (5 + 20000), 1e-6);
  // broadcast: scatter and gather in the node (2 x (7*2 + 7/8*8e9*2.5e-6)), a binomial tree across
  EXPECT_NEAR(hierarchical_time_us(CollOp::kBroadcast, A::kBinomial, S, w), 2 * (14 + 17500) + 2 * (5 + 20000), 1e-6);
  // An algorithm the collective lacks runs ring; all_to_all is flat over every GPU's NIC.
  EXPECT_NEAR(hierarchical_time_us(CollOp::kAllGather, A::kTree, S, w),
              hierarchical_time_us(CollOp::kAllGather, A::kRing, S, w), 1e-9);
  EXPECT_NEAR(hierarchical_time_us(CollOp::kAllToAll, A::kRing, S, w), 31 * 5 + 31.0 / 32 * S * 2e-5, 1e-6);
}

TEST(CollectiveAlgorithmsTest, TheFastestIsChosenAndSwitchesAtTheCrossover) {
  // ring against tree all_reduce, p = 16, alpha 10 us, beta 1 ns/B, gamma 0: ring 300 + 1.875 n/1000,
  // tree 80 + 2 n/1000, equal at n = 220 / 0.000125 = 1,760,000 B.
  const LinkCost link{10.0, 1e-3, 0};
  const auto time_of = [&](double n) {
    return [&, n](Algorithm a) { return flat_time_us(CollOp::kAllReduce, a, 16, n, link); };
  };
  const std::vector<Algorithm> ring_tree{A::kRing, A::kTree};
  EXPECT_EQ(choose_algorithm(ring_tree, nccl_policy(), time_of(1.75e6)).algorithm, A::kTree);
  EXPECT_EQ(choose_algorithm(ring_tree, nccl_policy(), time_of(1.77e6)).algorithm, A::kRing);
  EXPECT_NEAR(choose_algorithm(ring_tree, nccl_policy(), time_of(1.77e6)).time_us, 300 + 1.875 * 1770, 1e-9);
  // The crossover size found by doubling: the largest power of two where tree still wins (1 MiB).
  EXPECT_EQ(crossover_bytes(CollOp::kAllReduce, 16, link, A::kRing, A::kTree, 1 << 30).value(), 1048576.0);
  // At 8 B every algorithm is latency: recursive doubling (4 alpha) beats tree (8) and ring (30);
  // between ring and tree, tree. An MPI library has no tree of NCCL's kind.
  const std::vector<Algorithm> mpi = mpi_algorithms_for(CollOp::kAllReduce);
  EXPECT_EQ(mpi, (std::vector<Algorithm>{A::kRing, A::kRecursiveDoubling, A::kRabenseifner}));
  EXPECT_EQ(choose_algorithm(ring_tree, nccl_policy(), time_of(8)).algorithm, A::kTree);
  EXPECT_EQ(choose_algorithm(mpi, mpi_policy(), time_of(8)).algorithm, A::kRecursiveDoubling);
  // At 64 MiB ring and Rabenseifner move the least; Rabenseifner has fewer messages.
  EXPECT_EQ(choose_algorithm(mpi, mpi_policy(), time_of(64 << 20)).algorithm, A::kRabenseifner);
  // A fixed algorithm is used where it is a candidate, ring where not.
  const AlgorithmPolicy tree = parse_algorithm_policy("tree");
  EXPECT_EQ(choose_algorithm(algorithms_for(CollOp::kAllReduce), tree, time_of(64 << 20)).algorithm, A::kTree);
  EXPECT_EQ(choose_algorithm(algorithms_for(CollOp::kAllGather), tree, [](Algorithm) { return 1.0; }).algorithm,
            A::kRing);
}

TEST(CollectiveAlgorithmsTest, TreeOvertakesRingFromANodeCount) {
  // 8 GPUs a node, 25 MiB all_reduce: across nodes each GPU's eighth (3.3 MB). Ring's latency grows
  // with 2(k-1) alpha, tree's with 2 lg k alpha, while tree moves 2 n beta against 2 (k-1)/k n beta.
  ClusterWiring w{1, 8, {2.0, 1e-3 / 360}, {5.0, 1e-3 / 46}};
  const double bucket = 25 << 20;
  const auto k = crossover_nodes(CollOp::kAllReduce, bucket, w, A::kRing, A::kTree, 1024);
  ASSERT_TRUE(k.has_value());
  w.nodes = *k;
  EXPECT_LT(hierarchical_time_us(CollOp::kAllReduce, A::kTree, bucket, w),
            hierarchical_time_us(CollOp::kAllReduce, A::kRing, bucket, w));
  w.nodes = *k - 1;
  EXPECT_GE(hierarchical_time_us(CollOp::kAllReduce, A::kTree, bucket, w),
            hierarchical_time_us(CollOp::kAllReduce, A::kRing, bucket, w));
  // By hand: tree wins once 2(k-1-lg k)*5 > (2 - 2(k-1)/k) * 3.28e6 / 46e3, i.e. 10(k-1-lg k) > 142.5/k.
  // k = 8: 10*4 = 40 < 17.8? no: 40 > 17.8 -> tree; k = 4: 10*1 = 10 < 35.6 -> ring; k = 5 (lg 3):
  // 10*1 = 10 < 28.5 -> ring; k = 6: 20 > 23.8? no -> ring; k = 7: 30 > 20.4 -> tree.
  EXPECT_EQ(*k, 7);
  // A 2-node job never uses tree for it: both are one exchange.
  EXPECT_FALSE(crossover_nodes(CollOp::kAllReduce, bucket, w, A::kRing, A::kTree, 2).has_value());
}

TEST(CollectiveAlgorithmsTest, NamesParseAndUnknownOnesAreListed) {
  for (Algorithm a : all_algorithms()) EXPECT_EQ(parse_algorithm(algorithm_name(a)), a);
  EXPECT_FALSE(parse_algorithm_policy("mpi").fixed.has_value());
  EXPECT_FALSE(parse_algorithm_policy("mpi").nccl);
  EXPECT_TRUE(parse_algorithm_policy("nvls").nccl);
  EXPECT_FALSE(parse_algorithm_policy("rabenseifner").nccl);
  EXPECT_THROW(parse_algorithm_policy("best"), UsageError);  // it mixed NCCL's algorithms with MPI's
  EXPECT_EQ(parse_algorithm_policy("tree").name(), "tree");
  EXPECT_EQ(parse_algorithm_policy("nccl").name(), "nccl");
  EXPECT_EQ(parse_algorithm_policy("mpi").name(), "mpi");
  try {
    parse_algorithm("butterfly");
    ADD_FAILURE() << "accepted butterfly";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("recursive_doubling"), std::string::npos) << e.what();
  }
}

TEST(CollectiveAlgorithmsTest, ForcingAnAlgorithmOnMpichNamesTheNonblockingCallsVariable) {
  EXPECT_EQ(mpich_nonblocking_forcing(CollOp::kAllReduce, A::kRecursiveDoubling),
            (MpichSetting{"MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM", "sched_recursive_doubling"}));
  // wb-coll and wb-step call MPI_Reduce_scatter_block, which has variables of its own.
  EXPECT_EQ(mpich_algorithm_variable(CollOp::kReduceScatter), "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM");
  EXPECT_EQ(mpich_nonblocking_forcing(CollOp::kReduceScatter, A::kRing)->variable,
            "MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM");
  // Only the formulas MPICH has are forced (its tree is not NCCL's), each on the variable of the
  // collective's nonblocking call.
  int forced = 0;
  for (CollOp op : {CollOp::kAllReduce, CollOp::kAllGather, CollOp::kReduceScatter, CollOp::kBroadcast,
                    CollOp::kReduce, CollOp::kAllToAll})
    for (Algorithm a : all_algorithms()) {
      const auto setting = mpich_nonblocking_forcing(op, a);
      if (!setting) continue;
      ++forced;
      EXPECT_EQ("MPIR_CVAR_I" + mpich_algorithm_variable(op).substr(std::string("MPIR_CVAR_").size()),
                setting->variable);
      EXPECT_NE(a, A::kTree);
    }
  EXPECT_EQ(forced, 12);  // brucks is read as recursive doubling but never forced for it
  EXPECT_FALSE(mpich_nonblocking_forcing(CollOp::kAllReduce, A::kBinomial));
}

}  // namespace
}  // namespace wb::step
