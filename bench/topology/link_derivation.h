// Every path the benchmarks measure, with its link class, its ceiling and the reason:
// GPU pairs (NVLink bundles or PCIe), a GPU's copy inside its own memory (`device`, a == b), GPU to
// host (its PCIe link: what the link carries after each TLP's overhead, not its line rate), GPU to NIC (the nvidia-smi
// distance, limited by the slower of the two PCIe links and the port), and each NIC's port to the
// network. Degraded links are flagged: PCIe trained below its maximum, NVLink links down, an IB
// port not ACTIVE or narrower than 4X.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "topology/ceilings.h"
#include "topology/node_topology.h"

namespace wb {

struct DerivedLink {
  std::string a, b;                  // gpu0, gpu3, host, mlx5_0, network
  std::string link_class;            // nvlink, pcie, ib, roce, eth
  std::optional<double> ceiling_GBps;  // per direction; empty when it cannot be known
  std::string reason;                // "NV18 x 25 GB/s (NVLink 4)"
  std::string distance;              // nvidia-smi's cell for the pair, when known
  std::optional<double> healthy_fraction;
  std::string source;                // the ceilings.csv row the rate came from
  std::vector<std::string> degraded;  // why the link is below what it should be
  // A port that is not up: unused, or a cable or switch problem; only the operator knows which.
  std::vector<std::string> inactive;
  std::string generation{};  // the ceilings.csv row's generation: 4 for NVLink 4, ndr, gen5
};

struct DerivationOptions {
  // NVLink generation of every GPU when their names are unknown (saved text): "4", "5", ...
  std::optional<std::string> nvlink_generation;
  // The GPU model of saved text, as nvidia-smi names it ("NVIDIA H100 80GB HBM3"): its NVLink
  // generation comes first, before --nvlink-generation and any guess from a bundle's width.
  std::optional<std::string> gpu_model;
  // Each GPU model's memory bandwidth (suites/gpu-memory.csv): with it, every GPU whose model it
  // knows (its name, else gpu_model) gets a `device` link to itself, its copies' ceiling.
  const GpuMemoryDb* gpu_memory = nullptr;
};

// The NVLink generation a GPU name implies (H100 -> 4, A100 -> 3, B200 -> 5, RTX 3090 -> ga102).
std::optional<std::string> nvlink_generation_of(const std::string& gpu_name);
// A GPU on NVLink-C2C to a Grace CPU: the matrix's GPU NUMA ID, or a superchip's name (GH200, GB200,
// GB300). Its link to the host is C2C, not PCIe.
bool on_c2c(const GpuDevice& gpu);

// A port rate text from sysfs ("400 Gb/sec (4X NDR)") as Gb/s, IB generation and width.
struct PortRate {
  double gbps = 0;
  std::string generation;  // edr, hdr, ndr, xdr; empty when the text names none
  int width = 0;           // 4 of "4X"; 0 when unknown
};
std::optional<PortRate> parse_port_rate(const std::string& text);

std::vector<DerivedLink> derive_links(const NodeTopology& node, const CeilingsDb& ceilings,
                                      const DerivationOptions& options = {});

}  // namespace wb
