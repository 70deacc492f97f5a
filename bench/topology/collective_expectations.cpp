#include "topology/collective_expectations.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "step/nccl_algorithms.h"

namespace wb {
namespace {

// NVLinks a GPU of each generation has: through an NVSwitch every pair shows them all.
int nvlinks_per_gpu(const std::string& generation) {
  if (generation == "2") return 6;
  if (generation == "3") return 12;
  if (generation == "4" || generation == "5") return 18;
  return 0;
}

step::NvSwitch switch_of(const std::string& generation) {
  if (generation == "4") return step::NvSwitch::kHopper;
  if (generation == "5") return step::NvSwitch::kBlackwell;
  if (generation == "3") return step::NvSwitch::kAmpere;
  return step::NvSwitch::kNone;  // V100's NVSwitch: no NVLS, and NCCL's CollNet direct is not modelled on it
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

bool starts_with_gpu(const std::string& name) { return name.starts_with("gpu"); }

// The healthy share of NVLS's figure: NVLS runs on healthy 8x H100 nodes reach 460-480 GB/s busbw
// (NVIDIA/nccl-tests#212), 73-77% of the 627.5 GB/s this model gives at line rate; below 70%
// (439 GB/s) a node is 5% under the lowest of them. Azure's health checks fail it below 460.
constexpr double kNvlsHealthy = 0.70;
constexpr const char* kNvlsHealthySource =
    "healthy from 70%: NVLS on healthy 8x H100 nodes reaches 460-480 GB/s (NVIDIA/nccl-tests#212), 73-77% of "
    "this model's 627.5 GB/s; Azure's health checks fail below 460";

}  // namespace

void add_collective_expectations(NodeReport& report, const CeilingsDb& ceilings) {
  report.collectives.clear();
  const int gpus = static_cast<int>(report.node.gpus.size());
  std::vector<const DerivedLink*> pairs;
  const DerivedLink* widest = nullptr;  // the designed link (a degraded pair is judged on its own)
  double nics_GBps = 0, nic_healthy = 1;
  std::string nic_class;
  for (const DerivedLink& l : report.links) {
    if (starts_with_gpu(l.a) && starts_with_gpu(l.b) && l.a != l.b) {  // a GPU's own copy (`device`) is no pair
      pairs.push_back(&l);
      if (l.ceiling_GBps && (!widest || *l.ceiling_GBps > *widest->ceiling_GBps)) widest = &l;
    }
    if (l.b == "network" && l.inactive.empty() && l.ceiling_GBps) {
      nics_GBps += *l.ceiling_GBps;
      nic_healthy = std::min(nic_healthy, l.healthy_fraction.value_or(0.9));
      nic_class = l.link_class;
    }
  }
  if (gpus < 2) return;  // nothing to expect, nothing to say
  const bool all_nvlink = std::all_of(pairs.begin(), pairs.end(), [](const DerivedLink* l) {
    return l->link_class == "nvlink" && l->ceiling_GBps;
  });
  const std::string full = "NV" + std::to_string(widest ? nvlinks_per_gpu(widest->generation) : 0);
  const bool nvswitch = all_nvlink && widest && !pairs.empty() &&
                        std::all_of(pairs.begin(), pairs.end(), [&](const DerivedLink* l) {
                          return l->distance == full || !l->degraded.empty();
                        });
  // An NVLink pair judged as PCIe: nvidia-smi topo -p2p said peer access is off for it.
  const bool peer_access_off = std::any_of(pairs.begin(), pairs.end(), [](const DerivedLink* l) {
    return l->link_class != "nvlink" && l->distance.starts_with("NV");
  });
  if (peer_access_off) {
    report.collectives_note = "none: peer access is off between some GPUs (nvidia-smi topo -p2p), so NCCL's "
                              "traffic between them goes through host memory";
    return;
  }
  if (!nvswitch) {
    report.collectives_note = "none: the GPUs are not all on one NVSwitch (each pair " + full +
                              "), and NCCL's rings follow the links each pair has";
    return;
  }
  const double Bi = *widest->ceiling_GBps, nvlink_healthy = widest->healthy_fraction.value_or(0.8);
  const step::NvSwitch nvs = switch_of(widest->generation);
  // A ring bound by the node's ports together: NCCL drives them below one port's own healthy figure
  // (suites/ceilings.csv nics_ring, from published healthy nccl-tests runs); one port's fraction else.
  const CeilingEntry* ring_over_ports = ceilings.find("nics_ring", nic_class);
  const bool ring_fraction_known = ring_over_ports && ring_over_ports->healthy_fraction;
  const double ports_ring_healthy = ring_fraction_known ? *ring_over_ports->healthy_fraction : nic_healthy;
  if (nics_GBps <= 0) report.collectives_note = "one node only: no network port with a known rate";
  struct Shape {
    const char* name;
    int nodes;
  };
  for (const Shape shape : {Shape{"1", 1}, Shape{"2", 2}, Shape{"3+", 4}}) {
    if (shape.nodes > 1 && nics_GBps <= 0) break;
    step::ClusterWiring w;
    w.nodes = shape.nodes;
    w.gpus_per_node = gpus;
    w.intra = {0, 1e-3 / Bi, 0};
    w.inter = {0, shape.nodes > 1 ? 1e-3 / (nics_GBps / gpus) : 0, 0};
    w.nvswitch = nvs;
    const bool nic_bound = shape.nodes > 1 && nics_GBps < Bi;
    const std::string links = widest->reason + (shape.nodes > 1 ? "; the node's ports together " + number(nics_GBps) + " GB/s" : "");
    const auto add = [&](step::Algorithm a, bool choice) {
      CollectiveExpectation e;
      e.nodes = shape.name;
      e.gpus_per_node = gpus;
      e.algorithm = step::algorithm_name(a);
      e.nccl_choice = choice;
      e.busbw_GBps = step::nccl_bandwidth(CollOp::kAllReduce, a, w).busbw_GBps;
      e.source = "NCCL's algorithms on the node's links (docs/algorithms.md; NCCL src/graph/tuning.cc)";
      switch (a) {
        case step::Algorithm::kRing:
          e.reason = "ring: busbw is the slower of a GPU's NVLink and its share of the node's ports (" + links + ")";
          e.healthy_fraction = nic_bound ? ports_ring_healthy : nvlink_healthy;
          if (nic_bound && ring_fraction_known) e.source += "; " + ring_over_ports->source;
          break;
        case step::Algorithm::kNvls:
          e.reason = "NVLS: the NVSwitch reduces and multicasts; busbw 2(p-1)/p x NCCL's NVLS efficiency x 15/16 of "
                     "the GPU's NVLink (" + links + ")";
          e.healthy_fraction = kNvlsHealthy;
          e.source += "; " + std::string(kNvlsHealthySource);
          break;
        default:  // tree, nvls_tree across nodes
          e.reason = std::string(e.algorithm) + ": " +
                     (shape.nodes == 2 ? "on two nodes each node's ports carry the buffer once each way, so busbw goes "
                                         "beyond the network's rate (NVIDIA/nccl-tests#196)"
                                       : "a tree of nodes, each node's ports carrying the buffer twice") +
                     " (" + links + ")";
          e.healthy_fraction = std::min(nic_healthy, nvlink_healthy);
          if (a == step::Algorithm::kNvlsTree) {  // NVLS inside the node: NVLS's healthy share
            e.healthy_fraction = kNvlsHealthy;
            e.source += "; " + std::string(kNvlsHealthySource);
          }
          break;
      }
      report.collectives.push_back(std::move(e));
    };
    add(step::Algorithm::kRing, false);
    const step::Algorithm pick = step::nccl_choice(CollOp::kAllReduce, 16.0 * (1 << 30), w).algorithm;
    if (pick != step::Algorithm::kRing) add(pick, true);
    else report.collectives.back().nccl_choice = true;
  }
}

}  // namespace wb
