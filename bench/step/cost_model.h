// The alpha-beta (Hockney) cost model of docs/step-emulation.md. Two sources of parameters:
// - a fit per collective and group size, t(S) = alpha + S beta over the full buffer S, taken
//   from a measured sweep (wb-coll's fits.csv, or wb-step's own calibration before the steps,
//   whose measured points also refine it between the sizes measured);
// - a link's alpha and beta, turned into a collective's time by the ring formulas.
// The step prediction plays the program with these durations (same schedule, same overlap rules).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "coll/sweep_summary.h"
#include "step/collective_algorithms.h"
#include "step/program.h"
#include "step/timeline.h"

namespace wb::step {

// Ring algorithms (docs/algorithms.md): all_reduce 2(p-1) alpha + 2 (p-1)/p n beta; reduce_scatter,
// all_gather, all_to_all (p-1) alpha + (p-1)/p n beta; broadcast, reduce (p-1) alpha + n beta (a
// pipelined chain); send/recv alpha + n beta. n is the full buffer S; one rank costs nothing.
inline double ring_time_us(CollOp op, int ranks, double bytes, const LinkCost& link) {
  return flat_time_us(op, Algorithm::kRing, ranks, bytes, link);
}

// Fits are looked up by collective and group size, and where known by the group (HYBRID_SHARD's
// shard and replicate groups can have one size and different links) and the element size (a
// bf16 reduction costs the CPU more than an fp32 one); the most specific fit wins.
class CollectiveCosts {
 public:
  static constexpr int kAny = -1;
  // A fit or sweep measured in one call context (timeline.h); a call in a context nothing was
  // measured in takes the other's (wb-coll's fits.csv is back to back: queued).
  void add_fit(CollOp op, int ranks, const AlphaBeta& fit, int group = kAny, int element_bytes = kAny,
               CallContext context = CallContext::kQueued) {
    fits_[index(context)][{op, ranks, group, element_bytes}] = fit;
  }
  // A measured sweep: between its sizes the time is interpolated point to point (a local
  // alpha-beta per segment), since libraries switch algorithms with the size (MPICH's
  // reduce_scatter changes from recursive halving to pairwise exchange); outside, the fit holds.
  void add_sweep(CollOp op, int ranks, std::vector<SweepPoint> points, const AlphaBeta& fit, int group = kAny,
                 int element_bytes = kAny, CallContext context = CallContext::kQueued);
  void set_link(const LinkCost& link) { link_ = link; }
  // A collective's own link, fitted at one group size (link_from_calibration): a group size with no
  // sweep or fit of its own costs the formula of the algorithm that runs there on this link.
  void add_link_fit(CollOp op, const LinkCost& link, int element_bytes = kAny,
                    CallContext context = CallContext::kQueued) {
    links_[index(context)][{op, element_bytes}] = link;
  }
  // The library is MPICH (mpich_selection.h): a sweep is not interpolated across the sizes where
  // MPICH switches algorithms, and a link fit is played through the algorithm MPICH picks.
  void follow_mpich_selection() { mpich_ = true; }
  bool follows_mpich_selection() const { return mpich_; }
  // Throws std::out_of_range when neither a fit nor a link cost covers the collective.
  double predict_us(CollOp op, int ranks, double bytes, int group = kAny, int element_bytes = kAny,
                    CallContext context = CallContext::kQueued) const;

  // Reads fit rows of wb-coll's fits.csv (op, ranks, alpha_us, beta_us_per_byte); rows for the
  // link class given (if any) only. Throws InputError naming the file and line.
  static CollectiveCosts from_fits_csv(const std::string& path, const std::string& link_class = "");

 private:
  using Key = std::tuple<CollOp, int, int, int>;
  static int index(CallContext context) { return context == CallContext::kQueued ? 0 : 1; }
  std::optional<double> lookup_us(int context, CollOp op, int ranks, double bytes, int group, int element_bytes) const;
  std::map<Key, AlphaBeta> fits_[2];                  // per call context
  std::map<Key, std::vector<SweepPoint>> sweeps_[2];  // sorted by bytes
  std::map<std::pair<CollOp, int>, LinkCost> links_[2];  // per call context, by collective and element size
  std::optional<LinkCost> link_;
  bool mpich_ = false;
};

// The predicted timeline of a program at `scale`, each collective costed on its group's size in its
// call context; collectives of the groups in `shared` that run at once share the link (timeline.h).
Timeline predict_step(const Program& program, const CollectiveCosts& costs, double scale,
                      const SharedLink& shared = {});

// A cluster that has not been measured (ClusterWiring, collective_algorithms.h). Under NCCL's
// policies each collective costs what nccl_algorithms.h says NCCL's algorithm costs on the group's
// wiring; under MPI's, the hierarchical formulas: a ring inside the node over the whole buffer,
// then the algorithm across nodes over 1/g of it. A group inside a node (HYBRID_SHARD's shard,
// tensor parallelism's group) is one node; a group of one rank per node (the replicas, the
// data-parallel group beside tensor parallelism) one GPU a node.
// Where a group's ranks sit on the wiring (ranks placed node by node): the world as it is; a shard
// group (consecutive ranks: HYBRID_SHARD's shard, a tensor-parallel group) inside one node, or over
// whole nodes when larger; the replicas (one rank per shard group) one per node, or several per
// node when shard groups are smaller than a node.
ClusterWiring group_wiring(const Program& program, Group group, const ClusterWiring& wiring);
// The algorithm of one collective of the program under the policy, and its time.
AlgorithmChoice predict_collective(const Program& program, const Op& op, const ClusterWiring& wiring,
                                   const AlgorithmPolicy& policy);
Timeline predict_step(const Program& program, const ClusterWiring& wiring, const AlgorithmPolicy& policy);

// How many calls of each collective (by kind and group: "all_reduce", "all_gather@shard") ran
// each algorithm: what a what-if prints beside the step.
using AlgorithmUse = std::map<std::string, std::map<Algorithm, int>>;
AlgorithmUse algorithms_used(const Program& program, const ClusterWiring& wiring, const AlgorithmPolicy& policy);
std::string describe_algorithm_use(const AlgorithmUse& use);  // "all_reduce: ring 12, tree 1; all_gather: ring 4"

}  // namespace wb::step
