#include <cuda_runtime.h>

#include <cctype>
#include <cstdio>

#include "topology/live_discovery.h"

namespace wb {

std::vector<GpuDevice> discover_cuda_gpus() {
  std::vector<GpuDevice> gpus;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return gpus;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    GpuDevice gpu;
    gpu.index = i;
    gpu.name = prop.name;
    char bdf[32];
    std::snprintf(bdf, sizeof bdf, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
    gpu.pci_bus_id = bdf;
    gpu.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    gpu.memory_bytes = prop.totalGlobalMem;
    char uuid[64];
    const auto* b = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
    std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    gpu.uuid = uuid;
    gpus.push_back(gpu);
  }
  return gpus;
}

std::vector<PeerAccess> discover_cuda_peer_access(int gpu_count) {
  std::vector<PeerAccess> pairs;
  for (int a = 0; a < gpu_count; ++a)
    for (int b = 0; b < gpu_count; ++b) {
      if (a == b) continue;
      PeerAccess access{a, b, false, 0, false};
      int value = 0;
      if (cudaDeviceCanAccessPeer(&value, a, b) == cudaSuccess) access.can_access = value != 0;
      if (cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, a, b) == cudaSuccess)
        access.performance_rank = value;
      if (cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrNativeAtomicSupported, a, b) == cudaSuccess)
        access.native_atomics = value != 0;
      pairs.push_back(access);
    }
  return pairs;
}

}  // namespace wb
