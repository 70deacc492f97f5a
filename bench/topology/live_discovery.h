// Discovery of this node's wiring from the live machine: sysfs (PCIe tree, InfiniBand ports,
// network interfaces), hwloc (NUMA nodes and their CPUs), the CUDA runtime when a GPU is visible,
// and `nvidia-smi topo -m` / `nvidia-smi nvlink --status` when nvidia-smi exists. Without GPUs it
// still reports CPUs, NUMA nodes, NICs and the PCIe tree, and invents nothing.
#pragma once

#include <string>
#include <vector>

#include "topology/node_topology.h"

namespace wb {

struct DiscoveryRoots {
  std::string sysfs = "/sys";  // tests point this at a fake tree
  bool use_hwloc = true;
  bool use_cuda = true;
  bool use_nvidia_smi = true;
};

NodeTopology discover_node(const DiscoveryRoots& roots = {});

// Pieces, for tests on fake sysfs trees.
std::vector<PcieDevice> discover_pcie(const std::string& sysfs);
std::vector<NicPort> discover_nics(const std::string& sysfs);
std::vector<NumaNode> discover_numa_sysfs(const std::string& sysfs);
PcieLinkState read_pcie_link(const std::string& device_dir);

// `nvidia-smi nvlink --status` text: links up and links in all, per GPU index.
struct NvlinkStatus {
  int gpu = 0;
  int links_up = 0, links_total = 0;
};
std::vector<NvlinkStatus> parse_nvlink_status(const std::string& text);

// GPUs the CUDA runtime sees (empty without CUDA or without a device), in CUDA's order.
std::vector<GpuDevice> discover_cuda_gpus();
std::vector<PeerAccess> discover_cuda_peer_access(int gpu_count);

// Each GPU's PCIe link, read while the GPU copies host memory to itself (an idle GPU runs its link
// slower): the fastest of the readings taken over about 0.3 s of copies, with read_under_load set;
// the plain reading where the copies cannot run.
void read_gpu_links_under_load(std::vector<GpuDevice>& gpus, const std::string& sysfs);

}  // namespace wb
