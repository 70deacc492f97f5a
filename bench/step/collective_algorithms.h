// The algorithms collective libraries choose between, as alpha-beta-gamma formulas
// (docs/algorithms.md gives each formula and its source). alpha: latency per message; beta: time
// per byte on the link; gamma: time per byte reduced. n is the full buffer S as nccl-tests counts it.
// A flat formula is one group of p ranks on one link; the hierarchical forms (k nodes of g GPUs)
// ring inside the node and apply the algorithm across nodes, where the choice matters.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "comm/collective.h"

namespace wb::step {

struct LinkCost {
  double alpha_us = 0;
  double beta_us_per_byte = 0;
  double gamma_us_per_byte = 0;  // the reduction's cost per byte (0: the link dominates)
};

enum class Algorithm {
  kRing,               // NCCL's Ring; MPICH's ring (all_reduce), pairwise (all_to_all), pipelined chain (broadcast)
  kTree,               // NCCL's Tree: two pipelined binary trees, each carrying half of the data
  kRecursiveDoubling,  // butterfly exchanges of the whole buffer (reduce_scatter: recursive halving)
  kRabenseifner,       // reduce_scatter by recursive halving then all_gather (or gather) by doubling;
                       // broadcast: scatter then all_gather (van de Geijn)
  kBinomial,           // binomial tree of whole messages (broadcast, reduce)
  // NCCL's own, costed by nccl_algorithms.h only (no flat alpha-beta formula here):
  kNvls,           // NVLink SHARP: the NVSwitch reduces and multicasts (Hopper and later)
  kNvlsTree,       // NVLS inside the node, a tree across nodes
  kCollNetDirect,  // IB SHARP across nodes, GPUs reaching the NICs directly through NVSwitch
  kCollNetChain,   // IB SHARP across nodes, a chain inside the node
  kPat,            // Parallel Aggregated Trees (NCCL 2.23+): all_gather, reduce_scatter at 1 GPU a node
};
// ring, tree, recursive_doubling, rabenseifner, binomial, nvls, nvls_tree, collnet_direct, collnet_chain, pat
const char* algorithm_name(Algorithm a);
std::vector<Algorithm> all_algorithms();
Algorithm parse_algorithm(const std::string& text);  // throws UsageError listing the names
bool is_nccl_algorithm(Algorithm a);  // ring, tree and NCCL's own: what NCCL_ALGO can name
bool is_mpi_algorithm(Algorithm a);   // ring and the MPI libraries' formulas (MPICH has no tree of NCCL's kind)

// The algorithms with a flat alpha-beta formula here for the collective, ring first.
std::vector<Algorithm> algorithms_for(CollOp op);
bool has_algorithm(CollOp op, Algorithm a);
// Those an MPI library runs (MPICH's, from_mpich_name): algorithms_for without NCCL's tree.
std::vector<Algorithm> mpi_algorithms_for(CollOp op);

// Time of one collective of `bytes` over `ranks` on one link. Throws std::invalid_argument when the
// collective has no such algorithm. One rank costs nothing.
double flat_time_us(CollOp op, Algorithm a, int ranks, double bytes, const LinkCost& link);

// Where p is no power of two, MPICH's recursive halving and Rabenseifner schemes first hand the p - p'
// extra ranks' buffers to their partners, but a rank with no hand-over posts its first step at once.
// Its bytes reach a partner still receiving a hand-over, share that partner's ingress and arrive
// with the hand-over; the partner's own first-step send, which the formula overlaps with that
// receive, then runs alone after it. Those bytes (0 on a power of two, for other algorithms, and
// where every first-step pair waits for a hand-over) are what a call that starts on an idle
// communicator takes longer by. 3 ranks, 3.46 MB all_reduce, 1 Gbit/s: 99-101 ms measured, 87
// from the formula, 101.5 with it (bench/MEASUREMENTS.md, session 30).
double early_first_step_bytes(CollOp op, Algorithm a, int ranks, double bytes);

// k nodes x g GPUs, each GPU with `intra` to its node's GPUs and `inter` (its own NIC) to the other
// nodes. A group of one node is flat on `intra`; one GPU per node flat on `inter`.
// What NCCL's own algorithms need besides the links (nccl_algorithms.h): an NVSwitch inside the
// node (CollNet direct; NVLS from Hopper on) and IB SHARP in the fabric (CollNet, NVLS across nodes).
enum class NvSwitch { kNone, kAmpere, kHopper, kBlackwell };
struct ClusterWiring {
  int nodes = 1;
  int gpus_per_node = 1;
  LinkCost intra;
  LinkCost inter;
  NvSwitch nvswitch = NvSwitch::kNone;
  bool sharp = false;
};
double hierarchical_time_us(CollOp op, Algorithm a, double bytes, const ClusterWiring& wiring);

// Which library's algorithms and which one: NCCL's (nccl_algorithms.h: what NCCL runs on the
// wiring, costed as its tuner does) or an MPI library's (the formulas here), a fixed one (a call
// that cannot run it runs ring, as NCCL_ALGO=Tree leaves all_gather on ring) or the fastest per
// call (`nccl`, `mpi`).
struct AlgorithmPolicy {
  std::optional<Algorithm> fixed;
  bool nccl = true;  // false: MPI libraries' formulas
  std::string name() const { return fixed ? algorithm_name(*fixed) : nccl ? "nccl" : "mpi"; }
};
AlgorithmPolicy nccl_policy();
AlgorithmPolicy mpi_policy();
// nccl, mpi, or an algorithm's name: NCCL's for ring, tree and NCCL's own, MPI's for the others.
AlgorithmPolicy parse_algorithm_policy(const std::string& text);

struct AlgorithmChoice {
  Algorithm algorithm = Algorithm::kRing;
  double time_us = 0;
};
// Among `candidates` (ring first): the fixed one where it is a candidate, else ring; or the
// fastest, ring on a tie. `time` is called for each algorithm considered.
template <typename TimeOf>
AlgorithmChoice choose_algorithm(const std::vector<Algorithm>& candidates, const AlgorithmPolicy& policy,
                                 TimeOf time) {
  if (policy.fixed) {
    Algorithm a = Algorithm::kRing;
    for (Algorithm c : candidates)
      if (c == *policy.fixed) a = c;
    return {a, time(a)};
  }
  AlgorithmChoice best{Algorithm::kRing, time(Algorithm::kRing)};
  for (Algorithm a : candidates) {
    const double t = time(a);
    if (t < best.time_us) best = {a, t};
  }
  return best;
}

// The link a measured fit implies under an algorithm's formula: every formula is c_alpha(p) alpha +
// c_beta(p) n beta (+ c_gamma(p) n gamma), so a fit t = a + n b of that algorithm on p ranks gives
// alpha = a / c_alpha and beta = b / c_beta, the reduction's cost folded into beta (gamma 0).
LinkCost link_from_fit(CollOp op, Algorithm a, int ranks, double alpha_us, double beta_us_per_byte);

// MPICH's names for its algorithms (the values of MPIR_CVAR_<OP>_INTRA_ALGORITHM) that match one of
// these formulas: allreduce ring, recursive_doubling, reduce_scatter_allgather (rabenseifner); bcast
// binomial, scatter_ring_allgather (rabenseifner); reduce binomial, reduce_scatter_gather; allgather
// ring, recursive_doubling, brucks; reduce_scatter pairwise (ring), recursive_halving; alltoall
// pairwise. nullopt for any other (MPICH's tree, for one, is a k-nomial tree of whole messages).
std::optional<Algorithm> from_mpich_name(CollOp op, const std::string& name);
// The setting that makes MPICH run `a` for the nonblocking collective (what wb-step's executor and
// its calibration start): MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM=sched_recursive_doubling; nullopt
// where MPICH has no algorithm that follows the formula. (The blocking calls' names differ between
// MPICH 4.0 and 5; the nonblocking ones do not.)
struct MpichSetting {
  std::string variable, value;
  bool operator==(const MpichSetting&) const = default;
};
std::optional<MpichSetting> mpich_nonblocking_forcing(CollOp op, Algorithm a);

// The smallest node count in [1, max_nodes] from which `challenger` is faster than `incumbent` for
// this collective on this wiring (gpus_per_node and links from `wiring`), or nullopt.
std::optional<int> crossover_nodes(CollOp op, double bytes, const ClusterWiring& wiring, Algorithm incumbent,
                                   Algorithm challenger, int max_nodes);
// The largest power-of-two size up to `max_bytes` at which `challenger` is still faster than
// `incumbent` on `ranks` ranks of one link, or nullopt when it is faster at none from 1 B.
std::optional<double> crossover_bytes(CollOp op, int ranks, const LinkCost& link, Algorithm incumbent,
                                      Algorithm challenger, double max_bytes);

}  // namespace wb::step
