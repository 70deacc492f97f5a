// Built without CUDA: the CUDA runtime sees no GPU.
#include "topology/live_discovery.h"

namespace wb {
std::vector<GpuDevice> discover_cuda_gpus() { return {}; }
std::vector<PeerAccess> discover_cuda_peer_access(int) { return {}; }
}  // namespace wb
