// NCCL's algorithms as NCCL runs them: which ones a collective can use on a wiring (the support
// matrix of NCCL's src/graph/tuning.cc and src/enqueue.cc, 2.23 to 2.30) and what each costs, in
// the shape of NCCL's tuning model (Simple protocol) with the wiring's links in place of NCCL's
// searched graphs. docs/algorithms.md gives each formula, its source, and the predictions beside
// published figures.
#pragma once

#include <optional>
#include <vector>

#include "comm/collective.h"
#include "step/collective_algorithms.h"

namespace wb::step {

// The algorithms NCCL can run for the collective on this wiring, ring first:
// - broadcast, reduce: ring only.
// - all_reduce: ring, tree; NVLS where the node has an NVSwitch of Hopper or later (across nodes
//   only with IB SHARP); NVLS tree across nodes with such a switch; CollNet direct (an NVSwitch)
//   and CollNet chain across nodes with IB SHARP.
// - all_gather, reduce_scatter: ring; NVLS on one node with such a switch; PAT at one GPU a node
//   across nodes. (CollNet direct for these needs a network plugin's iallgather/ireducescatter and
//   one NIC per GPU: not modelled.)
// - all_to_all, send/recv: point-to-point, "ring" (pairwise) only.
std::vector<Algorithm> nccl_algorithms_for(CollOp op, const ClusterWiring& wiring);

// NCCL's efficiency of NVLS against the NVLink rate (tuning.cc nvlsEfficiency: Hopper 0.85,
// Blackwell 0.74; 0 where the switch has no NVLS).
double nvls_efficiency(NvSwitch nvswitch);

// One call of `bytes` (the full buffer, as nccl-tests counts it) with algorithm `a` on the wiring:
// latency + bytes / algorithm bandwidth. `intra` is a GPU's NVLink (or PCIe) rate as a ring sees
// it, `inter` a GPU's NIC (one NIC a GPU). Throws std::invalid_argument where NCCL cannot run `a`
// for the collective on the wiring. One rank costs nothing.
double nccl_time_us(CollOp op, Algorithm a, double bytes, const ClusterWiring& wiring);

// The algorithm bandwidth (bytes / time at large sizes, GB/s) and the bus bandwidth nccl-tests would
// print for it (its factor for the collective: 2(p-1)/p for all_reduce, (p-1)/p for all_gather and
// reduce_scatter, 1 for the rooted ones), which can exceed every link's rate for tree, NVLS, CollNet.
struct NcclBandwidth {
  double algbw_GBps = 0;
  double busbw_GBps = 0;
};
NcclBandwidth nccl_bandwidth(CollOp op, Algorithm a, const ClusterWiring& wiring);

// NCCL's choice for one call: the fastest of nccl_algorithms_for.
AlgorithmChoice nccl_choice(CollOp op, double bytes, const ClusterWiring& wiring);

// The smallest node count in [1, max_nodes] from which `challenger` is faster than `incumbent`
// under NCCL's model, or nullopt (also where either cannot run).
std::optional<int> nccl_crossover_nodes(CollOp op, double bytes, const ClusterWiring& wiring, Algorithm incumbent,
                                        Algorithm challenger, int max_nodes);

}  // namespace wb::step
