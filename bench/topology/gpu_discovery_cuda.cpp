#include <cuda_runtime.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <thread>

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

namespace {

double lane_rate(const PcieLinkState& link) {
  return link.current_gts.value_or(0) * link.current_width.value_or(0);
}

// Copies host memory to the GPU (re-queued whenever the queue drains) while reading the link.
bool read_while_copying(int device, const std::string& dir, PcieLinkState& best) {
  constexpr std::size_t kBytes = 64u << 20;
  constexpr int kCopiesPerRefill = 16;  // about 20 ms at Gen5 x16, 0.3 s at Gen1
  if (cudaSetDevice(device) != cudaSuccess) return false;
  void* host = nullptr;
  void* gpu = nullptr;
  cudaStream_t stream = nullptr;
  bool ok = cudaMallocHost(&host, kBytes) == cudaSuccess && cudaMalloc(&gpu, kBytes) == cudaSuccess &&
            cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess;
  int readings = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (ok && std::chrono::steady_clock::now() < deadline) {
    if (cudaStreamQuery(stream) == cudaSuccess)
      for (int i = 0; i < kCopiesPerRefill && ok; ++i)
        ok = cudaMemcpyAsync(gpu, host, kBytes, cudaMemcpyHostToDevice, stream) == cudaSuccess;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const PcieLinkState now = read_pcie_link(dir);
    if (lane_rate(now) > lane_rate(best)) best = now;
    ++readings;
  }
  if (stream != nullptr) ok = cudaStreamSynchronize(stream) == cudaSuccess && ok;
  if (stream != nullptr) cudaStreamDestroy(stream);
  if (gpu != nullptr) cudaFree(gpu);
  if (host != nullptr) cudaFreeHost(host);
  cudaGetLastError();  // a failure here leaves the plain reading; it must not stick to later calls
  return ok && readings > 0;
}

}  // namespace

void read_gpu_links_under_load(std::vector<GpuDevice>& gpus, const std::string& sysfs) {
  for (auto& gpu : gpus) {
    const std::string dir = sysfs + "/bus/pci/devices/" + gpu.pci_bus_id;
    PcieLinkState best = read_pcie_link(dir);
    gpu.pcie = best;
    if (read_while_copying(gpu.index, dir, best)) {
      gpu.pcie = best;
      gpu.pcie.read_under_load = true;
    }
  }
}

}  // namespace wb
