#include "step/collective_algorithms.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "harness/errors.h"

namespace wb::step {

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::kRing: return "ring";
    case Algorithm::kTree: return "tree";
    case Algorithm::kRecursiveDoubling: return "recursive_doubling";
    case Algorithm::kRabenseifner: return "rabenseifner";
    case Algorithm::kBinomial: return "binomial";
    case Algorithm::kNvls: return "nvls";
    case Algorithm::kNvlsTree: return "nvls_tree";
    case Algorithm::kCollNetDirect: return "collnet_direct";
    case Algorithm::kCollNetChain: return "collnet_chain";
    case Algorithm::kPat: return "pat";
  }
  return "?";
}

std::vector<Algorithm> all_algorithms() {
  using A = Algorithm;
  return {A::kRing, A::kTree,          A::kRecursiveDoubling, A::kRabenseifner,  A::kBinomial,
          A::kNvls, A::kNvlsTree,      A::kCollNetDirect,     A::kCollNetChain, A::kPat};
}

bool is_nccl_algorithm(Algorithm a) {
  using A = Algorithm;
  return a != A::kRecursiveDoubling && a != A::kRabenseifner && a != A::kBinomial;
}

bool is_mpi_algorithm(Algorithm a) { return a == Algorithm::kRing || !is_nccl_algorithm(a); }

Algorithm parse_algorithm(const std::string& text) {
  std::string names;
  for (Algorithm a : all_algorithms()) {
    if (text == algorithm_name(a)) return a;
    names += std::string(names.empty() ? "" : ", ") + algorithm_name(a);
  }
  throw UsageError("--algorithm: '" + text + "' is not nccl, mpi, " + names);
}

AlgorithmPolicy nccl_policy() { return {}; }

AlgorithmPolicy mpi_policy() {
  AlgorithmPolicy p;
  p.nccl = false;
  return p;
}

AlgorithmPolicy parse_algorithm_policy(const std::string& text) {
  if (text == "nccl") return nccl_policy();
  if (text == "mpi") return mpi_policy();
  if (text == "best")
    throw UsageError("--algorithm best: gone, it mixed NCCL's algorithms with MPI libraries'; give nccl (NCCL's "
                     "algorithms, as its tuner picks) or mpi (an MPI library's: ring, recursive_doubling, "
                     "rabenseifner, binomial)");
  AlgorithmPolicy p;
  p.fixed = parse_algorithm(text);
  p.nccl = is_nccl_algorithm(*p.fixed);
  return p;
}

std::vector<Algorithm> algorithms_for(CollOp op) {
  using A = Algorithm;
  switch (op) {
    case CollOp::kAllReduce: return {A::kRing, A::kTree, A::kRecursiveDoubling, A::kRabenseifner};
    case CollOp::kBroadcast:
    case CollOp::kReduce: return {A::kRing, A::kTree, A::kBinomial, A::kRabenseifner};
    case CollOp::kAllGather:
    case CollOp::kReduceScatter: return {A::kRing, A::kRecursiveDoubling};
    case CollOp::kAllToAll:
    case CollOp::kSendRecv: return {A::kRing};
  }
  return {A::kRing};
}

bool has_algorithm(CollOp op, Algorithm a) {
  for (Algorithm b : algorithms_for(op))
    if (a == b) return true;
  return false;
}

std::vector<Algorithm> mpi_algorithms_for(CollOp op) {
  std::vector<Algorithm> mpi;
  for (Algorithm a : algorithms_for(op))
    if (is_mpi_algorithm(a)) mpi.push_back(a);
  return mpi;
}

namespace {

// Rounds of a binary tree or a binomial tree over p ranks.
double tree_depth(int p) { return std::ceil(std::log2(static_cast<double>(p))); }

// Recursive doubling and halving run on the largest power of two p' <= p; the p - p' others hand
// their whole buffer to a partner first and get the result back last (MPICH's scheme).
struct PowerOfTwo {
  double p2 = 1, lg = 0;
  bool extra = false;
  explicit PowerOfTwo(int p) {
    while (p2 * 2 <= p) {
      p2 *= 2;
      lg += 1;
    }
    extra = p2 != p;
  }
};

// MPICH's recursive halving reduce_scatter (ireduce_scatter_block_intra_sched_recursive_halving.c):
// where p is no power of two, the p' ranks left after the hand-over each own the blocks of the
// ranks they stand for, two for those that took a partner's buffer, so the halves they exchange are
// unequal (on 3 ranks, 2/3 of the buffer one way, where an even split would be 1/2). Each step's
// pairs exchange at once, both ways; the step lasts as long as its largest send or receive.
double halving_time_us(int ranks, double n, double al, double be, double ga) {
  const PowerOfTwo two(ranks);
  const int p2 = static_cast<int>(two.p2), rem = ranks - p2;
  std::vector<double> counts(static_cast<std::size_t>(p2));
  for (int i = 0; i < p2; ++i) counts[static_cast<std::size_t>(i)] = (i < rem ? 2.0 : 1.0) * n / ranks;
  const auto sum = [&](int from, int to) {
    double s = 0;
    for (int i = from; i < to; ++i) s += counts[static_cast<std::size_t>(i)];
    return s;
  };
  // Every new rank walks MPICH's index ranges; a step costs its slowest pair.
  std::vector<int> send_idx(static_cast<std::size_t>(p2), 0), recv_idx(static_cast<std::size_t>(p2), 0),
      last_idx(static_cast<std::size_t>(p2), p2);
  double total = 0;
  for (int mask = p2 >> 1; mask > 0; mask >>= 1) {
    double step = 0;
    for (int r = 0; r < p2; ++r) {
      int &s = send_idx[static_cast<std::size_t>(r)], &v = recv_idx[static_cast<std::size_t>(r)],
          &last = last_idx[static_cast<std::size_t>(r)];
      double sent = 0, received = 0;
      if (r < (r ^ mask)) {
        s = v + mask;
        sent = sum(s, last);
        received = sum(v, s);
      } else {
        v = s + mask;
        sent = sum(s, v);
        received = sum(v, last);
      }
      step = std::max(step, std::max(sent, received) * be + received * ga);
      s = v;
      last = v + mask;
    }
    total += al + step;
  }
  if (rem > 0) total += (al + n * (be + ga)) + (al + n / ranks * be);  // the hand-over, the result back
  return total;
}

}  // namespace

double early_first_step_bytes(CollOp op, Algorithm a, int ranks, double n) {
  const PowerOfTwo two(ranks);
  const int p2 = static_cast<int>(two.p2), rem = ranks - p2;
  if (rem == 0) return 0;
  // New ranks below rem stand for a hand-over pair; the others had no hand-over.
  if (op == CollOp::kAllReduce && a == Algorithm::kRabenseifner)
    // The reduce-scatter's first step pairs new ranks r and r^1, each sending half the buffer; rem
    // odd: new rank rem-1 (a hand-over) pairs with rem (none).
    return rem % 2 == 1 ? n / 2 : 0;
  if (op == CollOp::kReduceScatter && a == Algorithm::kRecursiveDoubling) {
    // Halving's first step pairs r and r + p'/2: r keeps blocks [0, p'/2) and sends the rest, two
    // blocks for each new rank below rem.
    const int half = p2 / 2;
    bool early = false;
    for (int r = 0; r < half; ++r) early = early || (r < rem && r + half >= rem);
    if (!early) return 0;
    double upper = 0;
    for (int i = half; i < p2; ++i) upper += i < rem ? 2 : 1;
    return upper * n / ranks;
  }
  return 0;
}

double flat_time_us(CollOp op, Algorithm a, int ranks, double n, const LinkCost& link) {
  if (!has_algorithm(op, a))
    throw std::invalid_argument(std::string(describe(op).name) + " has no " + algorithm_name(a) + " algorithm");
  if (ranks <= 1) return 0;
  const double p = ranks, al = link.alpha_us, be = link.beta_us_per_byte, ga = link.gamma_us_per_byte;
  const double share = (p - 1) / p;  // of the buffer, what each rank sends in a ring phase
  const PowerOfTwo two(ranks);
  const double x = two.extra ? 1 : 0, share2 = (two.p2 - 1) / two.p2;
  using A = Algorithm;
  switch (op) {
    case CollOp::kAllReduce:
      switch (a) {
        case A::kRing: return 2 * (p - 1) * al + 2 * share * n * be + share * n * ga;
        // Up both trees and down again; an inner rank receives two halves and sends two.
        case A::kTree: return 2 * tree_depth(ranks) * al + 2 * n * be + n * ga;
        case A::kRecursiveDoubling:
          return (two.lg + 2 * x) * (al + n * be) + (two.lg + x) * n * ga;
        case A::kRabenseifner:
          return 2 * two.lg * al + 2 * share2 * n * be + share2 * n * ga + x * (2 * al + 2 * n * be + n * ga);
        default: break;
      }
      break;
    case CollOp::kBroadcast:
      switch (a) {
        case A::kRing: return (p - 1) * al + n * be;  // a pipelined chain
        case A::kTree: return tree_depth(ranks) * al + n * be;
        case A::kBinomial: return tree_depth(ranks) * (al + n * be);
        case A::kRabenseifner: return (tree_depth(ranks) + p - 1) * al + 2 * share * n * be;
        default: break;
      }
      break;
    case CollOp::kReduce:
      switch (a) {
        case A::kRing: return (p - 1) * al + n * (be + ga);
        case A::kTree: return tree_depth(ranks) * al + n * (be + ga);
        case A::kBinomial: return tree_depth(ranks) * (al + n * (be + ga));
        case A::kRabenseifner:
          return 2 * two.lg * al + 2 * share2 * n * be + share2 * n * ga + x * (al + n * (be + ga));
        default: break;
      }
      break;
    case CollOp::kAllGather:
      if (a == A::kRing) return (p - 1) * al + share * n * be;
      return tree_depth(ranks) * al + share * n * be;  // recursive doubling, Bruck's where p is no power of 2
    case CollOp::kReduceScatter:
      if (a == A::kRing) return (p - 1) * al + share * n * (be + ga);
      return halving_time_us(ranks, n, al, be, ga);
    case CollOp::kAllToAll: return (p - 1) * al + share * n * be;  // pairwise exchange
    case CollOp::kSendRecv: return al + n * be;
  }
  return 0;
}

double hierarchical_time_us(CollOp op, Algorithm a, double n, const ClusterWiring& w) {
  const int g = w.gpus_per_node, k = w.nodes;
  if (!has_algorithm(op, a)) a = Algorithm::kRing;
  if (k <= 1) return flat_time_us(op, a, g, n, w.intra);
  if (g <= 1) return flat_time_us(op, a, k, n, w.inter);
  const auto ring_inside = [&](CollOp inside) { return flat_time_us(inside, Algorithm::kRing, g, n, w.intra); };
  switch (op) {
    case CollOp::kAllReduce:
    case CollOp::kAllGather:
    case CollOp::kReduceScatter:
      // Inside the node over the whole buffer, across nodes over this GPU's g-th of it.
      return ring_inside(op) + flat_time_us(op, a, k, n / g, w.inter);
    case CollOp::kBroadcast:
      // The root's node scatters its buffer over its GPUs, each GPU broadcasts its g-th to its
      // counterparts, every node gathers the pieces (a scatter costs what an all_gather does).
      return 2 * ring_inside(CollOp::kAllGather) + flat_time_us(op, a, k, n / g, w.inter);
    case CollOp::kReduce:
      return ring_inside(CollOp::kReduceScatter) + flat_time_us(op, a, k, n / g, w.inter) +
             ring_inside(CollOp::kAllGather);
    case CollOp::kAllToAll:
    case CollOp::kSendRecv: break;
  }
  return flat_time_us(op, Algorithm::kRing, g * k, n, w.inter);  // flat, limited by the NICs
}

LinkCost link_from_fit(CollOp op, Algorithm a, int ranks, double alpha_us, double beta_us_per_byte) {
  const double per_alpha = flat_time_us(op, a, ranks, 0, {1, 0, 0});
  const double per_byte = flat_time_us(op, a, ranks, 1, {0, 1, 0});
  if (per_alpha <= 0 || per_byte <= 0)
    throw std::invalid_argument(std::string("no link follows from a fit of ") + describe(op).name + " on " +
                                std::to_string(ranks) + " rank(s)");
  return {alpha_us / per_alpha, beta_us_per_byte / per_byte, 0};
}

namespace {

// MPICH's algorithms that match a formula here, by the blocking call's name (MPICH 5's; 4.0 has no
// blocking ring all_reduce) and the nonblocking one's (MPIR_CVAR_I<OP>_INTRA_ALGORITHM, the same in
// 4.0 and 5), first the one that forcing the formula picks.
struct MpichName {
  CollOp op;
  const char* blocking;
  const char* nonblocking;
  Algorithm ours;
};
constexpr MpichName kMpichNames[] = {
    {CollOp::kAllReduce, "ring", "tsp_ring", Algorithm::kRing},
    {CollOp::kAllReduce, "recursive_doubling", "sched_recursive_doubling", Algorithm::kRecursiveDoubling},
    {CollOp::kAllReduce, "reduce_scatter_allgather", "sched_reduce_scatter_allgather", Algorithm::kRabenseifner},
    {CollOp::kBroadcast, "binomial", "sched_binomial", Algorithm::kBinomial},
    {CollOp::kBroadcast, "scatter_ring_allgather", "sched_scatter_ring_allgather", Algorithm::kRabenseifner},
    {CollOp::kReduce, "binomial", "sched_binomial", Algorithm::kBinomial},
    {CollOp::kReduce, "reduce_scatter_gather", "sched_reduce_scatter_gather", Algorithm::kRabenseifner},
    {CollOp::kAllGather, "ring", "sched_ring", Algorithm::kRing},
    {CollOp::kAllGather, "recursive_doubling", "sched_recursive_doubling", Algorithm::kRecursiveDoubling},
    {CollOp::kAllGather, "brucks", "sched_brucks", Algorithm::kRecursiveDoubling},
    {CollOp::kReduceScatter, "pairwise", "sched_pairwise", Algorithm::kRing},
    {CollOp::kReduceScatter, "recursive_halving", "sched_recursive_halving", Algorithm::kRecursiveDoubling},
    {CollOp::kAllToAll, "pairwise", "sched_pairwise", Algorithm::kRing},
};

}  // namespace

std::optional<Algorithm> from_mpich_name(CollOp op, const std::string& name) {
  for (const MpichName& n : kMpichNames)
    if (n.op == op && name == n.blocking) return n.ours;
  return std::nullopt;
}

std::optional<MpichSetting> mpich_nonblocking_forcing(CollOp op, Algorithm a) {
  for (const MpichName& n : kMpichNames)
    if (n.op == op && n.ours == a) return MpichSetting{"MPIR_CVAR_I" + std::string(describe(op).mpich) + "_INTRA_ALGORITHM", n.nonblocking};
  return std::nullopt;
}

std::optional<int> crossover_nodes(CollOp op, double bytes, const ClusterWiring& wiring, Algorithm incumbent,
                                   Algorithm challenger, int max_nodes) {
  ClusterWiring w = wiring;
  for (int k = 1; k <= max_nodes; ++k) {
    w.nodes = k;
    if (hierarchical_time_us(op, challenger, bytes, w) < hierarchical_time_us(op, incumbent, bytes, w)) return k;
  }
  return std::nullopt;
}

std::optional<double> crossover_bytes(CollOp op, int ranks, const LinkCost& link, Algorithm incumbent,
                                      Algorithm challenger, double max_bytes) {
  std::optional<double> last;
  for (double n = 1; n <= max_bytes; n *= 2)
    if (flat_time_us(op, challenger, ranks, n, link) < flat_time_us(op, incumbent, ranks, n, link)) last = n;
  return last;
}

}  // namespace wb::step
