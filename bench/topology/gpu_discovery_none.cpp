// Built without CUDA: the CUDA runtime sees no GPU.
#include "topology/live_discovery.h"

namespace wb {
std::vector<GpuDevice> discover_cuda_gpus() { return {}; }
std::vector<PeerAccess> discover_cuda_peer_access(int) { return {}; }
void read_gpu_links_under_load(std::vector<GpuDevice>& gpus, const std::string& sysfs) {
  for (auto& gpu : gpus) gpu.pcie = read_pcie_link(sysfs + "/bus/pci/devices/" + gpu.pci_bus_id);
}
}  // namespace wb
