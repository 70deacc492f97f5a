#include "step/nccl_algorithms.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace wb::step {
namespace {

constexpr double kInfinite = std::numeric_limits<double>::infinity();
// tuning.cc: tree all_reduce's bus bandwidth * .92; PAT's * .75; NVLS spends one of its 16
// channels on no data ((nChannels - 1) / nChannels).
constexpr double kTreeEfficiency = 0.92, kPatEfficiency = 0.75, kNvlsChannels = 16;

double rate(const LinkCost& link) { return link.beta_us_per_byte > 0 ? 1 / link.beta_us_per_byte : kInfinite; }
double floor_log2(int k) { return std::floor(std::log2(static_cast<double>(std::max(1, k)))); }
double ceil_log2(int k) { return std::ceil(std::log2(static_cast<double>(std::max(1, k)))); }

bool point_to_point(CollOp op) { return op == CollOp::kAllToAll || op == CollOp::kSendRecv; }

// nccl-tests' bus bandwidth factor: the share of the buffer each rank moves in a ring.
double bus_factor(CollOp op, int p) {
  switch (op) {
    case CollOp::kAllReduce: return 2.0 * (p - 1) / p;
    case CollOp::kAllGather:
    case CollOp::kReduceScatter: return static_cast<double>(p - 1) / p;
    default: return 1;
  }
}

bool offered(CollOp op, Algorithm a, const ClusterWiring& w) {
  for (Algorithm b : nccl_algorithms_for(op, w))
    if (a == b) return true;
  return false;
}

// Bytes per microsecond at large sizes. Bi: a GPU's intra-node rate as a ring sees it; Bn: a node's
// NICs together (one a GPU). The physical bound of each algorithm and NCCL's efficiency factor.
double algorithm_rate(CollOp op, Algorithm a, const ClusterWiring& w) {
  const int k = w.nodes, g = w.gpus_per_node, p = k * g;
  const double Bi = g > 1 ? rate(w.intra) : kInfinite, Bn = k > 1 ? g * rate(w.inter) : kInfinite;
  const double nvls = nvls_efficiency(w.nvswitch) * (kNvlsChannels - 1) / kNvlsChannels * Bi;
  using A = Algorithm;
  switch (a) {
    case A::kRing:  // every rank moves bus_factor of the buffer through its NVLink and its share of the NICs
      return std::min(Bi, Bn) / bus_factor(op, p);
    case A::kTree:  // a chain inside the node carries the buffer up and down (2n); across 2 nodes the
                    // NICs carry n each way, across more 2n (each node inner in one tree, a leaf in the other)
      return kTreeEfficiency * std::min(Bi / 2, k == 2 ? Bn : Bn / 2);
    case A::kNvls:  // the switch reduces and multicasts: the buffer once each way on a GPU's links
      if (op != CollOp::kAllReduce) return nvls * p / (p - 1);
      return std::min(nvls, Bn);  // across nodes IB SHARP reduces: the NICs carry it once each way
    case A::kNvlsTree: return std::min(nvls, k == 2 ? Bn : Bn / 2);
    case A::kCollNetDirect:  // reduce_scatter to the node's NICs and all_gather back, SHARP between
      return std::min(g > 1 ? Bi * g / (2.0 * (g - 1)) : kInfinite, Bn);
    case A::kCollNetChain: return std::min(Bi / 2, Bn);
    case A::kPat: return kPatEfficiency * rate(w.inter);
    default: break;
  }
  return 0;
}

// Microseconds before the first byte, in the shape of tuning.cc's latencies with the wiring's
// per-message latencies: intra-node steps at intra's alpha, inter-node steps at inter's.
double algorithm_latency(CollOp op, Algorithm a, const ClusterWiring& w) {
  const int k = w.nodes, g = w.gpus_per_node, p = k * g;
  const double ai = w.intra.alpha_us, an = w.inter.alpha_us;
  using A = Algorithm;
  switch (a) {
    case A::kRing: {
      const int steps = op == CollOp::kAllReduce ? 2 * (p - 1) : p - 1;
      const int inter = op == CollOp::kAllReduce ? 2 * (k - 1) : k - 1;
      return (steps - inter) * ai + inter * an;
    }
    case A::kTree: return 2 * ((g - 1) * ai + floor_log2(k) * an);
    case A::kNvls: return ai + (k > 1 ? an : 0);
    case A::kNvlsTree: return ai + 2 * floor_log2(k) * an;
    case A::kCollNetDirect: return 2 * std::min(1, g - 1) * ai + an;
    case A::kCollNetChain: return 2 * (g - 1) * ai + an;
    case A::kPat: return ceil_log2(k) * an;  // a Bruck-like exchange: log2 rounds
    default: break;
  }
  return 0;
}

}  // namespace

double nvls_efficiency(NvSwitch nvswitch) {
  switch (nvswitch) {
    case NvSwitch::kHopper: return 0.85;
    case NvSwitch::kBlackwell: return 0.74;
    default: return 0;
  }
}

std::vector<Algorithm> nccl_algorithms_for(CollOp op, const ClusterWiring& w) {
  using A = Algorithm;
  const int k = w.nodes, g = w.gpus_per_node;
  std::vector<Algorithm> algorithms{A::kRing};
  if (k * g <= 1) return algorithms;
  const bool nvls = nvls_efficiency(w.nvswitch) > 0 && g > 1;
  switch (op) {
    case CollOp::kAllReduce:
      algorithms.push_back(A::kTree);
      if (nvls && (k == 1 || w.sharp)) algorithms.push_back(A::kNvls);
      if (nvls && k > 1) algorithms.push_back(A::kNvlsTree);
      if (w.sharp && k > 1 && w.nvswitch != NvSwitch::kNone) algorithms.push_back(A::kCollNetDirect);
      if (w.sharp && k > 1) algorithms.push_back(A::kCollNetChain);
      break;
    case CollOp::kAllGather:
    case CollOp::kReduceScatter:
      if (nvls && k == 1) algorithms.push_back(A::kNvls);
      if (g == 1 && k > 1) algorithms.push_back(A::kPat);
      break;
    default: break;
  }
  return algorithms;
}

double nccl_time_us(CollOp op, Algorithm a, double bytes, const ClusterWiring& w) {
  if (!offered(op, a, w))
    throw std::invalid_argument(std::string("NCCL has no ") + algorithm_name(a) + " for " + describe(op).name +
                                " on " + std::to_string(w.nodes) + " node(s) of " + std::to_string(w.gpus_per_node) +
                                " GPU(s) with this wiring");
  if (w.nodes * w.gpus_per_node <= 1) return 0;
  if (point_to_point(op)) return hierarchical_time_us(op, Algorithm::kRing, bytes, w);
  return algorithm_latency(op, a, w) + bytes / algorithm_rate(op, a, w);
}

NcclBandwidth nccl_bandwidth(CollOp op, Algorithm a, const ClusterWiring& w) {
  if (!offered(op, a, w) || point_to_point(op) || w.nodes * w.gpus_per_node <= 1) return {};
  const double algbw = algorithm_rate(op, a, w) * 1e-3;  // bytes/us -> GB/s
  return {algbw, algbw * bus_factor(op, w.nodes * w.gpus_per_node)};
}

AlgorithmChoice nccl_choice(CollOp op, double bytes, const ClusterWiring& wiring) {
  return choose_algorithm(nccl_algorithms_for(op, wiring), nccl_policy(),
                          [&](Algorithm a) { return nccl_time_us(op, a, bytes, wiring); });
}

std::optional<int> nccl_crossover_nodes(CollOp op, double bytes, const ClusterWiring& wiring, Algorithm incumbent,
                                        Algorithm challenger, int max_nodes) {
  ClusterWiring w = wiring;
  for (int k = 1; k <= max_nodes; ++k) {
    w.nodes = k;
    if (!offered(op, incumbent, w) || !offered(op, challenger, w)) continue;
    if (nccl_time_us(op, challenger, bytes, w) < nccl_time_us(op, incumbent, bytes, w)) return k;
  }
  return std::nullopt;
}

}  // namespace wb::step
